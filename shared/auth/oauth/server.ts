// A provider as the protocol library sees it: the authorization server's metadata (OIDC discovery, cached per
// isolate; GitHub's written down, as it publishes none), our client registration and how we authenticate to it.
import {
  type AuthorizationServer,
  type Client,
  type ClientAuth,
  ClientSecretBasic,
  ClientSecretPost,
  clockTolerance,
  discoveryRequest,
  processDiscoveryResponse,
} from "oauth4webapi";
import { providerStep } from "./errors";
import { type ProviderRequestOptions, providerRequestOptions } from "./http";
import { isLoopbackHttp, type OidcProvider, type Provider } from "./providers";

/** How long a discovery document is reused before it is fetched again. */
export const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** Leeway for the provider's clock on the id_token's exp, iat and nbf. */
const CLOCK_TOLERANCE_SECONDS = 60;

export interface ProviderServer {
  as: AuthorizationServer;
  client: Client;
  clientAuth: ClientAuth;
  options: ProviderRequestOptions;
  /** A local test provider: plain http allowed. */
  loopback: boolean;
}

// The same metadata object is handed out while cached: the library keys its key-set cache on it.
const discovered = new Map<string, { as: AuthorizationServer; expiresAt: number }>();

/** `<issuer>/.well-known/openid-configuration`, whose `issuer` must be the configured one (OIDC Discovery §4.3). */
async function discover(provider: OidcProvider, options: ProviderRequestOptions, now: number) {
  const cached = discovered.get(provider.issuer);
  if (cached && cached.expiresAt > now) return cached.as;
  const as = await providerStep("discovery", async () => {
    const issuer = new URL(provider.issuer);
    return processDiscoveryResponse(issuer, await discoveryRequest(issuer, options));
  });
  discovered.set(provider.issuer, { as, expiresAt: now + DISCOVERY_TTL_MS });
  return as;
}

function loopback(provider: Provider): boolean {
  if (provider.kind === "oidc") return isLoopbackHttp(provider.issuer);
  return [provider.authorizeUrl, provider.tokenUrl, provider.userUrl].every(isLoopbackHttp);
}

/** client_secret_basic unless the issuer lists only other methods; GitHub takes credentials only in the body. */
function clientAuthFor(provider: Provider, as: AuthorizationServer): ClientAuth {
  const methods = as.token_endpoint_auth_methods_supported;
  const basic = provider.kind === "oidc" && (!methods || methods.includes("client_secret_basic"));
  return basic ? ClientSecretBasic(provider.clientSecret) : ClientSecretPost(provider.clientSecret);
}

export async function providerServer(provider: Provider, now: number): Promise<ProviderServer> {
  const local = loopback(provider);
  const options = providerRequestOptions(local);
  const as: AuthorizationServer =
    provider.kind === "oidc"
      ? await discover(provider, options, now)
      : {
          issuer: provider.issuer,
          authorization_endpoint: provider.authorizeUrl,
          token_endpoint: provider.tokenUrl,
        };
  const client: Client = { client_id: provider.clientId, [clockTolerance]: CLOCK_TOLERANCE_SECONDS };
  return { as, client, clientAuth: clientAuthFor(provider, as), options, loopback: local };
}
