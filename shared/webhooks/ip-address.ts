// IP literals for the endpoint URL guard: every numeric IPv4 form that inet_aton and the WHATWG URL parser accept,
// IPv6 with an embedded IPv4 tail, and the special-purpose ranges (IANA registries) a webhook must not reach.

export type AddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "unique-local"
  | "multicast"
  | "documentation"
  | "ipv4-mapped"
  | "ipv4-embedding"
  | "reserved";

const IPV4_PART = /^(?:0x[0-9a-f]*|0[0-7]*|[1-9]\d*)$/i;

/** A host "ends in a number" (WHATWG URL): it is meant as IPv4, so a malformed one must be refused, not resolved. */
export function looksLikeIpv4(host: string): boolean {
  const labels = host.replace(/\.$/, "").split(".");
  return /^(?:\d+|0x[0-9a-f]*)$/i.test(labels[labels.length - 1] ?? "");
}

/** IPv4 in any inet_aton form (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) as a uint32, else null. */
export function parseIpv4(host: string): number | null {
  const parts = host.replace(/\.$/, "").split(".");
  if (parts.length > 4 || parts.some((p) => !IPV4_PART.test(p))) return null;
  const values = parts.map((p) =>
    /^0x/i.test(p) ? Number.parseInt(p.slice(2) || "0", 16) : Number.parseInt(p, /^0./.test(p) ? 8 : 10),
  );
  const last = values.pop() ?? 0;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  return values.reduce((acc, v, i) => acc + v * 256 ** (3 - i), 0) + last;
}

const DOTTED_QUAD = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** IPv6 (brackets optional, `::` and a dotted IPv4 tail allowed) as eight 16-bit groups, else null. */
export function parseIpv6(text: string): number[] | null {
  let body = text.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const lastColon = body.lastIndexOf(":");
  const tail = body.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = DOTTED_QUAD.test(tail) ? parseIpv4(tail) : null;
    if (v4 === null) return null;
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  // "::" stands for at least one zero group; without it there must be exactly eight.
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...rest];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => Number.parseInt(g, 16));
}

/** Refused IPv4 ranges (RFC 6890 special-purpose registry), as [first address, prefix length, class]. */
const IPV4_RANGES: [number, number, AddressClass][] = [
  [ipv4(0, 0, 0, 0), 8, "unspecified"],
  [ipv4(10, 0, 0, 0), 8, "private"],
  [ipv4(100, 64, 0, 0), 10, "cgnat"],
  [ipv4(127, 0, 0, 0), 8, "loopback"],
  [ipv4(169, 254, 0, 0), 16, "link-local"], // includes the cloud metadata service 169.254.169.254
  [ipv4(172, 16, 0, 0), 12, "private"],
  [ipv4(192, 0, 0, 0), 24, "reserved"],
  [ipv4(192, 0, 2, 0), 24, "documentation"],
  [ipv4(192, 88, 99, 0), 24, "reserved"],
  [ipv4(192, 168, 0, 0), 16, "private"],
  [ipv4(198, 18, 0, 0), 15, "reserved"],
  [ipv4(198, 51, 100, 0), 24, "documentation"],
  [ipv4(203, 0, 113, 0), 24, "documentation"],
  [ipv4(224, 0, 0, 0), 4, "multicast"],
  [ipv4(240, 0, 0, 0), 4, "reserved"], // includes broadcast 255.255.255.255
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

export function classifyIpv4(address: number): AddressClass {
  for (const [first, prefix, kind] of IPV4_RANGES) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if ((address & mask) >>> 0 === first) return kind;
  }
  return "public";
}

export function classifyIpv6(groups: number[]): AddressClass {
  const [g0 = 0, g1 = 0, , , , g5 = 0, , g7 = 0] = groups;
  const zeroUpTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g7 === 1) return "loopback";
  if (zeroUpTo(5) && g5 === 0xffff) return "ipv4-mapped";
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  // Only global unicast 2000::/3 can be public; ::/8 (IPv4-compatible), 64:ff9b::/96 (NAT64), fec0::/10 are not.
  if ((g0 & 0xe000) !== 0x2000) return "reserved";
  if ((g0 === 0x2001 && g1 === 0x0db8) || (g0 === 0x3fff && g1 < 0x1000)) return "documentation";
  if (g0 === 0x2002 || (g0 === 0x2001 && g1 < 0x200)) return "ipv4-embedding"; // 6to4, Teredo and 2001::/23
  return "public";
}

/** The class of an IP literal (IPv4 in any numeric form, IPv6 with or without brackets), or null for a name. */
export function classifyIpAddress(text: string): AddressClass | null {
  if (text.includes(":")) {
    const groups = parseIpv6(text);
    return groups ? classifyIpv6(groups) : null;
  }
  const v4 = parseIpv4(text);
  return v4 === null ? null : classifyIpv4(v4);
}
