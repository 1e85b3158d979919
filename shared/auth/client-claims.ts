// The session claims the published @orangecheck/auth-core reads (its SessionPayload), derived from the spec's own
// claims so the two can never disagree: a consumer using auth-core unmodified finds the account's name under `name`
// (it never reads `display_name`). docs/decisions.md, "Session claims for auth-core".

/** auth-core's custody states; only self-custody exists here (accounts the service holds are not Fedimint). */
export type SigningMethod = "bip322";

export interface ClientClaims {
  /** = display_name. */
  name: string | null;
  /** No Nostr identities are held here. */
  npub: null;
  /** No federation custody is live (service-spec "What the service does" 3). */
  home_federation: null;
  /** "bip322" for an account that signs with its own Bitcoin key; null for one the service holds. */
  signing_method: SigningMethod | null;
  /** The did_oc of the accounts merged into this one (issue 27), or none. */
  merged_from: string[];
  /** No operator-owner concept; auth-core reads absence as false, so say it. */
  is_owner: false;
}

/** The account facts the claims are derived from (a session subject carries them). */
export interface ClaimsSource {
  display_name: string | null;
  primary_btc: string | null;
  merged_from?: string[];
}

export function clientClaims(subject: ClaimsSource): ClientClaims {
  return {
    name: subject.display_name,
    npub: null,
    home_federation: null,
    // primary_btc is set only by a BIP-322 sign-in (shared/db/accounts.ts), so it marks a self-custody account.
    signing_method: subject.primary_btc === null ? null : "bip322",
    merged_from: subject.merged_from ?? [],
    is_owner: false,
  };
}
