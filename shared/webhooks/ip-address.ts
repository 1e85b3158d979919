// IP literals for the endpoint URL guard, parsed and classified by ipaddr.js (a maintained parser with the IANA
// special-purpose ranges): every numeric IPv4 form inet_aton and the WHATWG URL parser accept (`2130706433`,
// `0x7f000001`, `0177.0.0.1`, `127.1`), IPv6 with or without brackets and an embedded IPv4 tail. Only global
// unicast is public; everything else a webhook must not reach has a class that names why.
import ipaddr from "ipaddr.js";

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

/** ipaddr.js range names → our classes; a name not listed (a range added by a later version) is "reserved". */
const RANGE_CLASS: Record<string, AddressClass> = {
  unicast: "public",
  unspecified: "unspecified",
  broadcast: "reserved",
  loopback: "loopback",
  private: "private",
  linkLocal: "link-local", // includes the cloud metadata service 169.254.169.254
  carrierGradeNat: "cgnat",
  uniqueLocal: "unique-local",
  multicast: "multicast",
  ipv4Mapped: "ipv4-mapped",
  rfc6145: "reserved", // ::ffff:0:0:0/96, outside global unicast
  rfc6052: "reserved", // NAT64 64:ff9b::/96, outside global unicast
  "6to4": "ipv4-embedding",
  teredo: "ipv4-embedding",
};

/** Documentation ranges (RFC 5737, 3849, 9637): the library files them under "reserved"; named for the reader. */
const DOCUMENTATION = ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32", "3fff::/20"].map((cidr) =>
  ipaddr.parseCIDR(cidr),
);
/** IPv6 global unicast: the only IPv6 that can be public (::/8 IPv4-compatible and the rest are not). */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/** A host "ends in a number" (WHATWG URL): it is meant as IPv4, so a malformed one must be refused, not resolved. */
export function looksLikeIpv4(host: string): boolean {
  const labels = host.replace(/\.$/, "").split(".");
  return /^(?:\d+|0x[0-9a-f]*)$/i.test(labels[labels.length - 1] ?? "");
}

/** The class of an IP literal (IPv4 in any numeric form, IPv6 with or without brackets), or null for a name. */
export function classifyIpAddress(text: string): AddressClass | null {
  const literal = text.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  if (!ipaddr.isValid(literal)) return null;
  const address = ipaddr.parse(literal);
  if (DOCUMENTATION.some(([net, bits]) => address.kind() === net.kind() && address.match(net, bits))) {
    return "documentation";
  }
  const kind = RANGE_CLASS[address.range()] ?? "reserved";
  if (kind === "public" && address.kind() === "ipv6" && !address.match(GLOBAL_UNICAST_V6)) return "reserved";
  return kind;
}
