// OpenID Connect: the issuer's discovery document (cached per isolate) and the id_token check: signature against
// the discovered JWKS, issuer, audience = our client id, azp, expiry, and the nonce this flow stored.
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from "jose";
import { z } from "zod";
import { OAuthError } from "./errors";
import { fetchJson } from "./http";
import type { OidcProvider } from "./providers";
import type { ClientAuth } from "./token";

/** How long a discovery document is reused before it is fetched again. */
export const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** Leeway for the provider's clock on exp, iat and nbf. */
const CLOCK_TOLERANCE_SECONDS = 60;
/** Asymmetric algorithms only: never `none`, never an HMAC keyed by the (shared) client secret. */
const ID_TOKEN_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/** jose failures that are the key set's fault (unreachable, slow, not a JWKS), not the token's. */
const PROVIDER_SIDE = new Set(["ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID", "ERR_JOSE_GENERIC"]);

const httpUrl = z.string().refine((value) => {
  try {
    return ["https:", "http:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, "must be an http(s) URL");

const DiscoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: httpUrl,
  token_endpoint: httpUrl,
  jwks_uri: httpUrl,
  userinfo_endpoint: httpUrl.optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
});
export type Discovery = z.infer<typeof DiscoverySchema>;

const discoveryCache = new Map<string, { document: Discovery; expiresAt: number }>();
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** `<issuer>/.well-known/openid-configuration` (OIDC Discovery §4), whose `issuer` must be ours exactly (§4.3). */
export async function discover(issuer: string, now: number): Promise<Discovery> {
  const cached = discoveryCache.get(issuer);
  if (cached && cached.expiresAt > now) return cached.document;
  const answer = await fetchJson(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, {
    headers: { accept: "application/json" },
  });
  if (answer.status !== 200) throw new OAuthError("oauth_provider_error", `discovery answered ${answer.status}`);
  const parsed = DiscoverySchema.safeParse(answer.body);
  if (!parsed.success) throw new OAuthError("oauth_provider_error", "discovery document incomplete");
  if (parsed.data.issuer !== issuer) throw new OAuthError("oauth_provider_error", "discovery names another issuer");
  discoveryCache.set(issuer, { document: parsed.data, expiresAt: now + DISCOVERY_TTL_MS });
  return parsed.data;
}

/** client_secret_basic unless the issuer lists only other methods (then client_secret_post). */
export function clientAuthFor(discovery: Discovery): ClientAuth {
  const methods = discovery.token_endpoint_auth_methods_supported;
  return !methods || methods.includes("client_secret_basic") ? "basic" : "post";
}

function keySet(jwksUri: string): ReturnType<typeof createRemoteJWKSet> {
  let set = keySets.get(jwksUri);
  if (!set) {
    set = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: 8_000 });
    keySets.set(jwksUri, set);
  }
  return set;
}

export interface IdTokenExpectation {
  provider: OidcProvider;
  jwksUri: string;
  nonce: string | null;
  now: number;
}

export async function verifyIdToken(idToken: string, expected: IdTokenExpectation): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keySet(expected.jwksUri), {
      issuer: expected.provider.acceptedIssuers,
      audience: expected.provider.clientId,
      algorithms: ID_TOKEN_ALGORITHMS,
      currentDate: new Date(expected.now),
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["sub", "exp", "iat"],
    }));
  } catch (err) {
    // A key set that cannot be fetched is the provider's failure; anything else is a token we refuse.
    if (!(err instanceof errors.JOSEError) || PROVIDER_SIDE.has(err.code)) {
      throw new OAuthError("oauth_provider_error", "provider keys unavailable");
    }
    throw new OAuthError("oauth_response_invalid", `id_token refused: ${err.code}`);
  }
  if (expected.nonce === null || payload.nonce !== expected.nonce) {
    throw new OAuthError("oauth_response_invalid", "id_token nonce does not match this sign-in");
  }
  // OIDC Core §3.1.3.7: with several audiences, the authorized party must be us.
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== expected.provider.clientId) {
    throw new OAuthError("oauth_response_invalid", "id_token authorized party is another client");
  }
  if (typeof payload.sub !== "string" || payload.sub === "" || payload.sub.length > 255) {
    throw new OAuthError("oauth_response_invalid", "id_token has no usable subject");
  }
  return payload;
}
