// The token request (RFC 6749 §4.1.3) with the PKCE verifier, and the profile a provider's answer comes down to.
import { base64 } from "@scure/base";
import { z } from "zod";
import { utf8 } from "../../crypto/digest";
import { errorCode, OAuthError } from "./errors";
import { fetchJson } from "./http";
import type { Provider } from "./providers";

/** Who signed in, as the account tables store it, and the name the provider gave (if any). */
export interface ProviderProfile {
  identity: { kind: string; value: string };
  displayName: string | null;
}

export interface CodeRedemption {
  code: string;
  /** The stored PKCE verifier; always sent, so a flow whose verifier is lost or wrong fails at the provider. */
  verifier: string;
  redirectUri: string;
  /** The stored OIDC nonce (null for GitHub). */
  nonce: string | null;
  now: number;
}

/** client_secret_basic (RFC 6749 §2.3.1: each part form-encoded first) or client_secret_post. */
export type ClientAuth = "basic" | "post";

const TokenSet = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  id_token: z.string().optional(),
});
export type TokenSet = z.infer<typeof TokenSet>;

const ErrorAnswer = z.object({ error: z.string() });

export async function requestToken(
  endpoint: string,
  provider: Provider,
  redemption: CodeRedemption,
  auth: ClientAuth,
): Promise<TokenSet> {
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code: redemption.code,
    redirect_uri: redemption.redirectUri,
    code_verifier: redemption.verifier,
  });
  const headers: Record<string, string> = {
    accept: "application/json",
    "content-type": "application/x-www-form-urlencoded",
  };
  if (auth === "basic") {
    const pair = `${encodeURIComponent(provider.clientId)}:${encodeURIComponent(provider.clientSecret)}`;
    headers.authorization = `Basic ${base64.encode(utf8(pair))}`;
  } else {
    body.set("client_id", provider.clientId);
    body.set("client_secret", provider.clientSecret);
  }
  const answer = await fetchJson(endpoint, { method: "POST", headers, body });
  // GitHub answers a refused code with 200 and {error}; others with 400 and {error} or a problem document.
  const refused = ErrorAnswer.safeParse(answer.body);
  if (refused.success) {
    throw new OAuthError("oauth_provider_error", `token endpoint refused the code: ${errorCode(refused.data.error)}`);
  }
  if (answer.status !== 200) throw new OAuthError("oauth_provider_error", `token endpoint answered ${answer.status}`);
  const tokens = TokenSet.safeParse(answer.body);
  if (!tokens.success) throw new OAuthError("oauth_provider_error", "token endpoint sent no access_token");
  return tokens.data;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/** A provider-given name as a display name: one line, at most 64 characters (the account PATCH rule), or null. */
export function displayName(...candidates: unknown[]): string | null {
  for (const candidate of candidates) {
    if (typeof candidate !== "string") continue;
    const clean = candidate.replace(CONTROL_CHARACTERS, " ").replace(/\s+/g, " ").trim();
    if (clean) return [...clean].slice(0, 64).join("");
  }
  return null;
}
