// The sign-in providers this host offers, built from configuration (DECISIONS 11, 27): GitHub (plain OAuth 2.0),
// Google and one generic OpenID Connect issuer. A provider is offered only when its client id and secret are set
// and its URLs are https (plain http only on loopback, for a local test server).

export type ProviderId = "github" | "google" | "oidc";

/** The variables the registry reads; the auth worker's bindings satisfy it. */
export interface ProviderEnv {
  GITHUB_CLIENT_ID?: string;
  GITHUB_CLIENT_SECRET?: string;
  /** Test and self-hosting knobs; production defaults are GitHub's own endpoints. */
  GITHUB_AUTHORIZE_URL?: string;
  GITHUB_TOKEN_URL?: string;
  GITHUB_USER_URL?: string;
  /** The issuer its callbacks' `iss` and any id_token must name; a local server stands in with its own. */
  GITHUB_ISSUER?: string;
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
  /** The issuer identifier: the only value a callback's `iss` may carry (RFC 9207). */
  issuer: string;
}

/** GitHub: authorization code + PKCE, then the user endpoint (GitHub issues no id_token and has no discovery). */
export interface OAuth2Provider extends ProviderBase {
  kind: "oauth2";
  authorizeUrl: string;
  tokenUrl: string;
  userUrl: string;
}

/** OpenID Connect: endpoints discovered from the issuer, identity from a verified id_token. */
export interface OidcProvider extends ProviderBase {
  kind: "oidc";
}

export type Provider = OAuth2Provider | OidcProvider;

export const GITHUB_DEFAULTS = {
  authorizeUrl: "https://github.com/login/oauth/authorize",
  tokenUrl: "https://github.com/login/oauth/access_token",
  userUrl: "https://api.github.com/user",
  // Not in GitHub's documentation: the value its callbacks carried while it sent RFC 9207 `iss` (April 2026).
  issuer: "https://github.com/login/oauth",
} as const;

export const GOOGLE_DEFAULT_ISSUER = "https://accounts.google.com";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** Plain http to this machine: the only place provider calls may go without TLS (a local test provider). */
export function isLoopbackHttp(value: string): boolean {
  const url = parseUrl(value);
  return url?.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

function isProviderUrl(value: string): boolean {
  return parseUrl(value)?.protocol === "https:" || isLoopbackHttp(value);
}

function set(value: string | undefined): value is string {
  return typeof value === "string" && value.trim() !== "";
}

function github(env: ProviderEnv): OAuth2Provider | undefined {
  if (!set(env.GITHUB_CLIENT_ID) || !set(env.GITHUB_CLIENT_SECRET)) return undefined;
  const urls = {
    authorizeUrl: env.GITHUB_AUTHORIZE_URL || GITHUB_DEFAULTS.authorizeUrl,
    tokenUrl: env.GITHUB_TOKEN_URL || GITHUB_DEFAULTS.tokenUrl,
    userUrl: env.GITHUB_USER_URL || GITHUB_DEFAULTS.userUrl,
    issuer: env.GITHUB_ISSUER || GITHUB_DEFAULTS.issuer,
  };
  if (!Object.values(urls).every(isProviderUrl)) return undefined;
  return {
    id: "github",
    kind: "oauth2",
    label: "GitHub",
    clientId: env.GITHUB_CLIENT_ID,
    clientSecret: env.GITHUB_CLIENT_SECRET,
    scope: "read:user",
    identityKind: "github",
    ...urls,
  };
}

/** Configured providers, in display order; a provider missing its client id or secret is left out. */
export function configuredProviders(env: ProviderEnv): Provider[] {
  const providers: Provider[] = [];
  const gh = github(env);
  if (gh) providers.push(gh);
  const googleIssuer = env.GOOGLE_ISSUER || GOOGLE_DEFAULT_ISSUER;
  if (set(env.GOOGLE_CLIENT_ID) && set(env.GOOGLE_CLIENT_SECRET) && isProviderUrl(googleIssuer)) {
    providers.push({
      id: "google",
      kind: "oidc",
      label: "Google",
      clientId: env.GOOGLE_CLIENT_ID,
      clientSecret: env.GOOGLE_CLIENT_SECRET,
      scope: "openid profile",
      identityKind: "google",
      issuer: googleIssuer,
    });
  }
  if (
    set(env.OIDC_ISSUER) &&
    set(env.OIDC_CLIENT_ID) &&
    set(env.OIDC_CLIENT_SECRET) &&
    isProviderUrl(env.OIDC_ISSUER)
  ) {
    providers.push({
      id: "oidc",
      kind: "oidc",
      label: set(env.OIDC_LABEL) ? env.OIDC_LABEL.trim() : new URL(env.OIDC_ISSUER).host,
      clientId: env.OIDC_CLIENT_ID,
      clientSecret: env.OIDC_CLIENT_SECRET,
      scope: "openid profile",
      identityKind: `oidc:${env.OIDC_ISSUER}`,
      issuer: env.OIDC_ISSUER,
    });
  }
  return providers;
}

/** The configured provider named `id`, or undefined (unknown and unconfigured look the same from outside). */
export function findProvider(env: ProviderEnv, id: string): Provider | undefined {
  return configuredProviders(env).find((p) => p.id === id);
}
