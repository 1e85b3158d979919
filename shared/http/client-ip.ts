// The client address a rate limit keys on: only CF-Connecting-IP (set by Cloudflare, not forgeable through it);
// X-Forwarded-For is ignored. IPv6 clients are keyed on their /64, which one subscriber usually holds whole.
import ipaddr from "ipaddr.js";

export function clientIpKey(headers: Headers): string {
  const ip = headers.get("cf-connecting-ip")?.trim();
  if (!ip) return "unknown";
  return ip.includes(":") ? ipv6Prefix64(ip) : ip;
}

/** The first four hextets of an IPv6 address, expanded, e.g. `2001:db8:0:0::/64` (parsed by ipaddr.js). */
export function ipv6Prefix64(ip: string): string {
  if (!ipaddr.IPv6.isValid(ip)) return ip; // not an address: keyed as given (Cloudflare always sends one)
  const parts = ipaddr.IPv6.parse(ip).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(":")}::/64`;
}
