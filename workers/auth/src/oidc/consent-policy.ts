// The consent page's Content-Security-Policy and what an app may put into it (review 3, item 7). The app's logo and
// redirect URI are its owner's words: only their origins, taken from the parsed URL and checked to be nothing but a
// scheme, a host and a port, ever reach the policy, so no `;`, space, quote or comma can end a source list or add a
// directive, whatever was stored. Registration takes a logo only as a plain https URL, by the same rules.
import { CONTENT_SECURITY_POLICY } from "../../../../shared/http/security-headers";

/** A DNS name as the URL parser leaves it (lowercase, IDNs in punycode), or a bracketed IPv6 literal. */
const HOST = String.raw`(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])`;
/** An origin that is one CSP host-source: scheme, host, optional port, nothing else. */
const ORIGIN = new RegExp(`^https?://${HOST}(?::\\d{1,5})?$`);
/**
 * The characters of a plain URL: RFC 3986's unreserved, gen-delims and the sub-delims that cannot end a CSP source or
 * directive (no `;`, `,` or `'`), and percent escapes. No space, quote, backslash or anything outside ASCII.
 */
const PLAIN_URL = /^[A-Za-z0-9\-._~:/?#[\]@!$&()*+=%]+$/;

function parsed(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The URL's origin when it is one clean CSP host-source, else undefined (never the input itself). */
export function sourceOrigin(value: string | null | undefined): string | undefined {
  const url = value ? parsed(value) : undefined;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return undefined;
  return ORIGIN.test(url.origin) ? url.origin : undefined;
}

/** A logo URL registration accepts: https, plain characters only, no user info, a host that is a clean origin. */
export function isPlainHttpsUrl(value: string): boolean {
  const url = PLAIN_URL.test(value) ? parsed(value) : undefined;
  return url?.protocol === "https:" && !url.username && !url.password && sourceOrigin(value) !== undefined;
}

/**
 * The consent page's policy: the host's, with the app's redirect origin allowed as a form target (browsers apply
 * form-action to the redirect that follows the form) and its logo's origin allowed as an image. An origin that is
 * not clean is left out: the logo does not show, and the form's redirect is this host's to refuse.
 */
export function consentPolicy(redirectUri: string, logoUri: string | null): string {
  const redirect = sourceOrigin(redirectUri);
  const logo = logoUri !== null && isPlainHttpsUrl(logoUri) ? sourceOrigin(logoUri) : undefined;
  return CONTENT_SECURITY_POLICY.replace(
    "form-action 'self'",
    `form-action 'self'${redirect ? ` ${redirect}` : ""}`,
  ).replace("img-src 'self' data:", `img-src 'self' data:${logo ? ` ${logo}` : ""}`);
}
