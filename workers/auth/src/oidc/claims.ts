// What the OpenID provider says about an account (issue 33), as pure functions: the scopes it serves, the claims
// each scope releases, `amr` from how the session was proven, and the ID token's claims. docs/oidc.md has the table.

/** The scopes this provider grants; `openid` is required (a plain OAuth request is refused). */
export const OIDC_SCOPES = ["openid", "profile", "email", "bitcoin", "offline_access"] as const;
export type OidcScope = (typeof OIDC_SCOPES)[number];

/** The claims each scope releases (discovery's `claims_supported` lists them all). */
export const SCOPE_CLAIMS: Record<OidcScope, readonly string[]> = {
  openid: ["sub"],
  profile: ["name"],
  email: ["email", "email_verified"],
  bitcoin: ["primary_btc"],
  offline_access: [],
};

/**
 * `amr` (RFC 8176 values where one fits) for the session's proof: a BIP-322 signature is a proof of possession of a
 * software-held key (`swk`) and names itself; an email code is a one-time password (`otp`); a provider sign-in is
 * federated (`fed`); a passkey or security key is a hardware key with user presence (`hwk`, `user`); a recovery
 * sign-in is a code sent to the recovery address (`otp`).
 */
const AMR: Record<string, readonly string[]> = {
  bip322: ["bip322", "swk"],
  email: ["email", "otp"],
  provider: ["fed"],
  passkey: ["hwk", "user"],
  recovery: ["recovery", "otp"],
};

export function amrOf(authMethod: string | null | undefined): string[] {
  return [...(AMR[authMethod ?? ""] ?? ["unknown"])];
}

/** Only the scopes this provider knows, in its order (an unknown requested scope is dropped, not granted). */
export function grantedScopes(requested: readonly string[]): OidcScope[] {
  return OIDC_SCOPES.filter((scope) => requested.includes(scope));
}

/** What the account is, as the claims need it: a proven email and a primary address proven by BIP-322, or null. */
export interface AccountFacts {
  didOc: string;
  displayName: string | null;
  email: string | null;
  primaryBtc: string | null;
}

/** The claims the scopes release about the account (userinfo's answer, and the ID token's subject part). */
export function userClaims(facts: AccountFacts, scopes: readonly string[]): Record<string, string | boolean> {
  const claims: Record<string, string | boolean> = { sub: facts.didOc };
  if (scopes.includes("profile") && facts.displayName) claims.name = facts.displayName;
  if (scopes.includes("email") && facts.email) {
    claims.email = facts.email;
    claims.email_verified = true;
  }
  if (scopes.includes("bitcoin") && facts.primaryBtc) claims.primary_btc = facts.primaryBtc;
  return claims;
}

/** What the provider stored with the grant when the person authorized (the library encrypts it). */
export interface GrantProps {
  account_id: string;
  client_id: string;
  /** The authorization request's nonce, echoed in the ID token of the code exchange only. */
  nonce: string | null;
  /** When the session last proved an identity (its `sudo_at`), epoch seconds. */
  auth_time: number;
  amr: string[];
}

export interface IdTokenInput {
  issuer: string;
  clientId: string;
  facts: AccountFacts;
  scopes: readonly string[];
  props: GrantProps;
  /** The code exchange carries the nonce; a refresh's ID token does not (OpenID Connect Core 12.2). */
  withNonce: boolean;
  atHash: string;
  now: number;
  ttlSeconds: number;
}

export function idTokenClaims(input: IdTokenInput): Record<string, unknown> {
  const iat = Math.floor(input.now / 1000);
  return {
    iss: input.issuer,
    aud: input.clientId,
    azp: input.clientId,
    iat,
    exp: iat + input.ttlSeconds,
    auth_time: input.props.auth_time,
    amr: input.props.amr,
    at_hash: input.atHash,
    ...(input.withNonce && input.props.nonce !== null ? { nonce: input.props.nonce } : {}),
    ...userClaims(input.facts, input.scopes),
  };
}
