// Where a browser may be sent after sign-in, by a provider callback or by the sign-in page (DECISIONS 11: same
// family, no open redirect; OA-04). The one function that decides, wherever a return target is accepted. Allowed: a
// path on this host (one leading `/`), this host's exact origin, the fleet's exact origin (its dashboard), or, when
// the cookie is shared across a parent domain, an https URL on that domain or a subdomain of it. Everything else is
// refused, never "fixed". The order matters (security review item 2): what browsers read differently from the URL
// parser is refused before parsing, then the value is parsed against this host and its origin compared, and the
// answer is the parsed form, never the input (`/..//evil.example` parses to the path `//evil.example`).

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

/** Percent-encoded `/`, `\`, `.` or a control character: a separator, dot segment or header break in disguise. */
const ENCODED_SEPARATOR = /%(?:2f|5c|2e|[01][0-9a-f]|7f)/i;
/** A scheme at the start (`javascript:`, `data:`, `https:`); only http and https may follow. */
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** A DNS name as the URL parser leaves it (lowercase, IDNs in punycode): no `*`, `_` or other oddities. */
const DNS_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

function familyHost(host: string, familyDomain: string | undefined): boolean {
  const domain = familyDomain?.trim().toLowerCase().replace(/^\./, "");
  if (!domain?.includes(".") || !DNS_NAME.test(host)) return false;
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The return_to to store: `/` when none is given, the parsed value when it is in the family (a path on this host as
 * a path, anything else as an absolute URL), undefined when it must be refused.
 */
export function safeReturnTo(value: string | undefined, policy: ReturnToPolicy): string | undefined {
  if (value === undefined || value === "") return "/";
  if (value.length > RETURN_TO_MAX_LENGTH || UNSAFE_CHARACTERS.test(value) || ENCODED_SEPARATOR.test(value)) {
    return undefined;
  }
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined ? !value.startsWith("/") : scheme !== "http" && scheme !== "https") return undefined;
  const base = new URL(policy.authOrigin);
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  if (url.origin === base.origin) {
    const path = `${url.pathname}${url.search}${url.hash}`;
    // A path that normalises to `//host` would leave the host once a browser reads it as a Location or assigns it.
    if (path.startsWith("//")) return undefined;
    return scheme === undefined ? path : url.href;
  }
  if (policy.siblingOrigins?.includes(url.origin)) return url.href;
  // The family: https on the parent domain, on the default port (no `example.com:8443` lookalike services).
  if (url.protocol === "https:" && url.port === "" && familyHost(url.hostname, policy.familyDomain)) return url.href;
  return undefined;
}
