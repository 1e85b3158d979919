// The two provider calls of a sign-in, whatever the provider, on oauth4webapi: where to send the browser, and what
// a callback proves (who signed in). The callback is checked before the code is spent: its `state`, and its `iss`
// against the provider's issuer (RFC 9207: required when the provider's metadata announces it, refused when wrong).
import {
  authorizationCodeGrantRequest,
  checkProtocol,
  processAuthorizationCodeResponse,
  validateAuthResponse,
} from "oauth4webapi";
import { OAuthError, providerStep } from "./errors";
import { githubProfile, refusedWithOk } from "./github";
import { oidcProfile } from "./oidc";
import type { ProviderProfile } from "./profile";
import type { Provider } from "./providers";
import { providerServer } from "./server";

export async function authorizationEndpoint(provider: Provider, now: number): Promise<string> {
  const server = await providerServer(provider, now);
  return providerStep("discovery", () => {
    const endpoint = server.as.authorization_endpoint;
    if (endpoint === undefined) throw new OAuthError("oauth_provider_error", "no authorization_endpoint");
    checkProtocol(new URL(endpoint), !server.loopback);
    return endpoint;
  });
}

export interface Callback {
  /** The callback's query as the provider sent it (`code`, `state`, `iss`, and whatever else it adds). */
  params: URLSearchParams;
  /** The state of the flow this callback consumed. */
  state: string;
  /** The stored PKCE verifier; always sent, so a flow whose verifier is lost or wrong fails at the provider. */
  verifier: string;
  redirectUri: string;
  /** The stored OIDC nonce (null for GitHub). */
  nonce: string | null;
  now: number;
}

/** Checks the callback, exchanges the code and returns the verified identity; OAuthError on any failure. */
export async function redeemCode(provider: Provider, callback: Callback): Promise<ProviderProfile> {
  const server = await providerServer(provider, callback.now);
  const { as, client, clientAuth, options } = server;
  const params = await providerStep("callback", () =>
    validateAuthResponse(as, client, callback.params, callback.state),
  );
  const response = await providerStep("token endpoint", async () => {
    const res = await authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      callback.redirectUri,
      callback.verifier,
      options,
    );
    if (provider.kind === "oauth2") await refusedWithOk(res);
    return res;
  });
  if (provider.kind === "oauth2") {
    const tokens = await providerStep("token endpoint", () => processAuthorizationCodeResponse(as, client, response));
    return githubProfile(provider, server, tokens);
  }
  if (callback.nonce === null) throw new OAuthError("oauth_response_invalid", "this sign-in has no nonce");
  const expectedNonce = callback.nonce;
  const tokens = await providerStep("token endpoint", () =>
    processAuthorizationCodeResponse(as, client, response, { expectedNonce, requireIdToken: true }),
  );
  return oidcProfile(provider, server, tokens, response);
}
