// The sign-in providers this host offers, built from configuration (DECISIONS 11, 27): GitHub (plain OAuth 2.0),
// Google and one generic OpenID Connect issuer. A provider is offered only when its client id and secret are set.

export type ProviderId = "github" | "google" | "oidc";

/** The variables the registry reads; the auth worker's bindings satisfy it. */
export interface ProviderEnv {
  GITHUB_CLIENT_ID?: string;
  GITHUB_CLIENT_SECRET?: string;
  /** Test and self-hosting knobs; production defaults are GitHub's own endpoints. */
  GITHUB_AUTHORIZE_URL?: string;
  GITHUB_TOKEN_URL?: string;
  GITHUB_USER_URL?: string;
  GOOGLE_CLIENT_ID?: string;
  GOOGLE_CLIENT_SECRET?: string;
  /** Default `https://accounts.google.com`; the tests point it at a local issuer. */
  GOOGLE_ISSUER?: string;
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_LABEL?: string;
}

interface ProviderBase {
  id: ProviderId;
  label: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  /** The account-identity kind its subjects are stored under: `github`, `google`, `oidc:<issuer>`. */
  identityKind: string;
}

/** GitHub: authorization code + PKCE, then the user endpoint (GitHub issues no id_token). */
export interface OAuth2Provider extends ProviderBase {
  kind: "oauth2";
  authorizeUrl: string;
  tokenUrl: string;
  userUrl: string;
}

/** OpenID Connect: endpoints discovered from the issuer, identity from a verified id_token. */
export interface OidcProvider extends ProviderBase {
  kind: "oidc";
  issuer: string;
  /** `iss` values an id_token may carry (Google also signs with the scheme-less `accounts.google.com`). */
  acceptedIssuers: string[];
}

export type Provider = OAuth2Provider | OidcProvider;

export const GITHUB_DEFAULTS = {
  authorizeUrl: "https://github.com/login/oauth/authorize",
  tokenUrl: "https://github.com/login/oauth/access_token",
  userUrl: "https://api.github.com/user",
} as const;

export const GOOGLE_DEFAULT_ISSUER = "https://accounts.google.com";

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

function set(value: string | undefined): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** Configured providers, in display order; a provider missing its client id or secret is left out. */
export function configuredProviders(env: ProviderEnv): Provider[] {
  const providers: Provider[] = [];
  if (set(env.GITHUB_CLIENT_ID) && set(env.GITHUB_CLIENT_SECRET)) {
    providers.push({
      id: "github",
      kind: "oauth2",
      label: "GitHub",
      clientId: env.GITHUB_CLIENT_ID,
      clientSecret: env.GITHUB_CLIENT_SECRET,
      scope: "read:user",
      identityKind: "github",
      authorizeUrl: env.GITHUB_AUTHORIZE_URL || GITHUB_DEFAULTS.authorizeUrl,
      tokenUrl: env.GITHUB_TOKEN_URL || GITHUB_DEFAULTS.tokenUrl,
      userUrl: env.GITHUB_USER_URL || GITHUB_DEFAULTS.userUrl,
    });
  }
  if (set(env.GOOGLE_CLIENT_ID) && set(env.GOOGLE_CLIENT_SECRET)) {
    const issuer = env.GOOGLE_ISSUER || GOOGLE_DEFAULT_ISSUER;
    if (isHttpUrl(issuer)) {
      providers.push({
        id: "google",
        kind: "oidc",
        label: "Google",
        clientId: env.GOOGLE_CLIENT_ID,
        clientSecret: env.GOOGLE_CLIENT_SECRET,
        scope: "openid profile",
        identityKind: "google",
        issuer,
        acceptedIssuers: issuer === GOOGLE_DEFAULT_ISSUER ? [issuer, "accounts.google.com"] : [issuer],
      });
    }
  }
  if (set(env.OIDC_ISSUER) && set(env.OIDC_CLIENT_ID) && set(env.OIDC_CLIENT_SECRET) && isHttpUrl(env.OIDC_ISSUER)) {
    providers.push({
      id: "oidc",
      kind: "oidc",
      label: set(env.OIDC_LABEL) ? env.OIDC_LABEL.trim() : new URL(env.OIDC_ISSUER).host,
      clientId: env.OIDC_CLIENT_ID,
      clientSecret: env.OIDC_CLIENT_SECRET,
      scope: "openid profile",
      identityKind: `oidc:${env.OIDC_ISSUER}`,
      issuer: env.OIDC_ISSUER,
      acceptedIssuers: [env.OIDC_ISSUER],
    });
  }
  return providers;
}

/** The configured provider named `id`, or undefined (unknown and unconfigured look the same from outside). */
export function findProvider(env: ProviderEnv, id: string): Provider | undefined {
  return configuredProviders(env).find((p) => p.id === id);
}
