// Where a browser may be sent after sign-in, by a provider callback or by the sign-in page (DECISIONS 11: same
// family, no open redirect; OA-04). Allowed: a path on this host (one leading `/`), this host's exact origin, the
// fleet's exact origin (its dashboard), or, when the cookie is shared across a parent domain, an https URL on that
// domain or a subdomain of it. Everything else (other hosts, `javascript:`, …) is refused, never "fixed".

/** Longest return_to kept (it is stored with the flow and echoed in a Location header). */
export const RETURN_TO_MAX_LENGTH = 2048;

export interface ReturnToPolicy {
  /** This host's origin, e.g. `https://auth.example.com` or `http://localhost:8787`. */
  authOrigin: string;
  /** COOKIE_DOMAIN, e.g. `.example.com`: its https subdomains are in the family. */
  familyDomain?: string;
  /** Other exact origins of the family (FLEET_ORIGIN), allowed on any scheme and port they name. */
  siblingOrigins?: string[];
}

/** The policy of an auth host configured by AUTH_ORIGIN, COOKIE_DOMAIN and FLEET_ORIGIN. */
export function returnToPolicy(env: {
  AUTH_ORIGIN: string;
  COOKIE_DOMAIN?: string;
  FLEET_ORIGIN?: string;
}): ReturnToPolicy {
  const siblings = env.FLEET_ORIGIN ? [new URL(env.FLEET_ORIGIN).origin] : [];
  return { authOrigin: env.AUTH_ORIGIN, familyDomain: env.COOKIE_DOMAIN, siblingOrigins: siblings };
}

// Browsers drop tabs and newlines inside URLs and read `\` as `/`, so `/\evil.com` or `/\t/evil.com` would become
// the scheme-relative `//evil.com`; a value holding any of them, or any other control or space, is refused outright.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const UNSAFE_CHARACTERS = /[\u0000-\u0020\u007f-\u00a0\\\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** A DNS name as the URL parser leaves it (lowercase, IDNs in punycode): no `*`, `_` or other oddities. */
const DNS_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

function familyHost(host: string, familyDomain: string | undefined): boolean {
  const domain = familyDomain?.trim().toLowerCase().replace(/^\./, "");
  if (!domain?.includes(".") || !DNS_NAME.test(host)) return false;
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The return_to to store: `/` when none is given, the value (normalised) when it is in the family, undefined when
 * it must be refused.
 */
export function safeReturnTo(value: string | undefined, policy: ReturnToPolicy): string | undefined {
  if (value === undefined || value === "") return "/";
  if (value.length > RETURN_TO_MAX_LENGTH || UNSAFE_CHARACTERS.test(value)) return undefined;
  const base = new URL(policy.authOrigin);
  if (value.startsWith("/")) {
    if (value.startsWith("//")) return undefined; // scheme-relative: another host
    const resolved = new URL(value, base);
    if (resolved.origin !== base.origin) return undefined;
    return `${resolved.pathname}${resolved.search}${resolved.hash}`;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined; // neither a path nor an absolute URL
  }
  if (url.username || url.password) return undefined;
  if (url.origin === base.origin || policy.siblingOrigins?.includes(url.origin)) return url.href;
  // The family: https on the parent domain, on the default port (no `example.com:8443` lookalike services).
  if (url.protocol === "https:" && url.port === "" && familyHost(url.hostname, policy.familyDomain)) return url.href;
  return undefined;
}
