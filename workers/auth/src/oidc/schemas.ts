// The OpenID provider's JSON shapes (validation and the OpenAPI description; issue 33).
import { z } from "@hono/zod-openapi";
import { displayText } from "../../../../shared/text";
import { OIDC_SCOPES } from "./claims";
import { isPlainHttpsUrl } from "./consent-policy";

export const DiscoverySchema = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    userinfo_endpoint: z.string(),
    jwks_uri: z.string(),
    revocation_endpoint: z.string(),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    subject_types_supported: z.array(z.string()),
    id_token_signing_alg_values_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    claims_supported: z.array(z.string()),
    prompt_values_supported: z.array(z.string()),
    claims_parameter_supported: z.boolean(),
    request_parameter_supported: z.boolean(),
    request_uri_parameter_supported: z.boolean(),
    authorization_response_iss_parameter_supported: z.boolean(),
  })
  .openapi("OpenIdConfiguration");

export const OidcJwksSchema = z
  .object({
    keys: z.array(
      z.object({
        kty: z.literal("RSA"),
        n: z.string(),
        e: z.string(),
        kid: z.string(),
        alg: z.literal("RS256"),
        use: z.literal("sig"),
        oc_use: z.literal("oidc"),
      }),
    ),
  })
  .openapi("OidcJwks");

const parses = (value: string) => {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
};

/** A redirect URI: https, or http on a loopback host for local development; no fragment; matched exactly. */
const RedirectUri = z
  .string()
  .max(2000)
  .url()
  .refine((value) => {
    const url = parses(value); // refused by .url() already when it does not parse; refinements still run
    if (!url) return false;
    const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
    return (url.protocol === "https:" || (url.protocol === "http:" && loopback)) && !url.hash && !url.username;
  }, "must be https (or http on localhost), without a fragment or user info");

export const ClientCreate = z.strictObject({
  name: displayText(80),
  redirect_uris: z.array(RedirectUri).min(1).max(10),
  // Only its origin reaches the consent page's CSP, but a value that could end a CSP source is refused outright.
  logo_uri: z
    .string()
    .max(2000)
    .url()
    .refine(isPlainHttpsUrl, "must be a plain https URL (no spaces, quotes, `;`, `,` or user info)")
    .optional(),
  type: z.enum(["public", "confidential"]).openapi({
    description: "public: a browser or native app, PKCE only; confidential: a server that keeps a client secret",
  }),
});

export const ClientSchema = z
  .object({
    client_id: z.string(),
    name: z.string(),
    type: z.enum(["public", "confidential"]),
    redirect_uris: z.array(z.string()),
    logo_uri: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("OidcClient");

export const ConsentSchema = z
  .object({
    client_id: z.string(),
    name: z.string(),
    logo_uri: z.string().nullable(),
    scopes: z.array(z.enum(OIDC_SCOPES)),
    created_at: z.string(),
  })
  .openapi("OidcConsent");

export const ClientIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "must be a client id"),
});
