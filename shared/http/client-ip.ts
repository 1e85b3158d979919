// The client address a rate limit keys on: only CF-Connecting-IP (set by Cloudflare, not forgeable through it);
// X-Forwarded-For is ignored. IPv6 clients are keyed on their /64, which one subscriber usually holds whole.

export function clientIpKey(headers: Headers): string {
  const ip = headers.get("cf-connecting-ip")?.trim();
  if (!ip) return "unknown";
  return ip.includes(":") ? ipv6Prefix64(ip) : ip;
}

/** The first four hextets of an IPv6 address, expanded, e.g. `2001:db8:0:0::/64`. */
export function ipv6Prefix64(ip: string): string {
  const [head = "", tail] = ip.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(Math.max(missing, 0)).fill("0"), ...right];
  const prefix = groups.slice(0, 4).map((g) => (g === "" ? "0" : g.replace(/^0+(?=.)/, "")));
  return `${prefix.join(":")}::/64`;
}
