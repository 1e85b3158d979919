// Endpoint URL guard against SSRF (DECISIONS 14; security-and-reliability §1.5 WH-07, WH-10): https to a public host.
//
// Check at create/update AND again before every send. Two gaps no URL check can close, which the dispatcher owns:
// - DNS rebinding: a public name may resolve to a private address at send time, and fetch() gives no way to pin the
//   resolved IP. Workers production refuses subrequests to IP literals and, with error 1003, to names resolving to
//   disallowed addresses (§0 finding 7); local workerd does not, which is why this guard exists in the app.
// - Redirects: fetch with `redirect: "manual"` and count any 3xx as a failure (WH-08); a followed Location would reach
//   a host this guard never saw.
import { type AddressClass, classifyIpAddress, looksLikeIpv4 } from "./ip-address";

export interface UrlGuardOptions {
  /** Local dev and tests only (WEBHOOK_ALLOW_LOOPBACK): http(s) to 127.0.0.0/8, [::1] or localhost, any port. */
  allowLoopback: boolean;
}

export type UrlCheck = { ok: true; url: string } | { ok: false; detail: string };

export const MAX_ENDPOINT_URL_LENGTH = 2048;

/** Special-use names (RFC 6761, RFC 6762, RFC 8375, ICANN's .internal) that never name a public host. */
const PRIVATE_SUFFIXES = ["localhost", "local", "internal", "home.arpa"];

/** The URL to store and fetch (WHATWG-normalised, fragment dropped), or why it is refused (→ 400 invalid_body). */
export function checkEndpointUrl(url: string, options: UrlGuardOptions): UrlCheck {
  if (url.length > MAX_ENDPOINT_URL_LENGTH) return refuse(`url is longer than ${MAX_ENDPOINT_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse("url is not an absolute URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return refuse("url must use https");
  if (parsed.username !== "" || parsed.password !== "") return refuse("url must not contain credentials");
  // The parser already turns 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 into 127.0.0.1 (Node and workerd);
  // ip-address.ts reads those forms itself too, so the guard does not rest on that.
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") return refuse("url must name a host");
  parsed.hash = "";
  if (options.allowLoopback && isLoopback(host)) return { ok: true, url: parsed.href };
  if (parsed.protocol !== "https:") return refuse("url must use https");
  const hostProblem = hostRefusal(host);
  if (hostProblem) return refuse(hostProblem);
  if (parsed.port !== "" && !portAllowed(Number(parsed.port))) {
    return refuse(`port ${parsed.port} is not allowed: use 443 or a port from 1024 up`);
  }
  return { ok: true, url: parsed.href };
}

function hostRefusal(host: string): string | null {
  const ipClass = classifyHost(host);
  if (ipClass === "malformed") return `host ${host} is not a valid IP address`;
  if (ipClass !== null) return ipClass === "public" ? null : `host ${host} is a ${ipClass} address`;
  if (PRIVATE_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) return `host ${host} is not a public name`;
  if (!host.includes(".")) return `host ${host} is not a fully qualified public name`;
  return null;
}

/** The class of an IP-literal host, "malformed" for one that is meant as an IP but unreadable, null for a name. */
function classifyHost(host: string): AddressClass | "malformed" | null {
  if (host.startsWith("[") || host.includes(":")) return classifyIpAddress(host) ?? "malformed";
  if (looksLikeIpv4(host)) return classifyIpAddress(host) ?? "malformed";
  return null;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || classifyHost(host) === "loopback";
}

/** 443, or an unprivileged port: keeps endpoints off well-known service ports (SMTP, SSH, …) of public hosts. */
function portAllowed(port: number): boolean {
  return port === 443 || (port >= 1024 && port <= 65535);
}

function refuse(detail: string): UrlCheck {
  return { ok: false, detail };
}
