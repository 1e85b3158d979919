// The one error table: every reason the services answer with, its HTTP status and a short sentence for a person
// (pages show the sentence, never the code). Reasons are stable API (service-spec "Versioning" 2): add new ones,
// never rename or repurpose; a message may be reworded at any time.

export const REASON_TABLE = {
  // auth (service-spec, fleet error table)
  agent_must_match_delegation: { status: 403, message: "Only the delegation's agent can sign this action." },
  cross_site_blocked: { status: 403, message: "This request came from another site, so it was blocked." },
  honeypot: { status: 403, message: "The form could not be sent. Reload the page and try again." },
  invalid_signature: { status: 401, message: "The request's signature does not match its content." },
  missing_signature: { status: 401, message: "The request is missing its signature." },
  owner_required: { status: 403, message: "Only a project owner can do this." },
  owner_role_requires_owner: { status: 403, message: "Only an owner can make someone an owner." },
  principal_must_be_parent_agent: { status: 403, message: "Only the parent delegation's agent can delegate further." },
  principal_must_match_session: { status: 403, message: "The principal must be the account you are signed in as." },
  role_forbidden: { status: 403, message: "Your role in this project does not allow this." },
  signer_must_be_principal: { status: 403, message: "Only the delegation's principal can sign this." },
  signer_must_match_session: { status: 403, message: "The signer must be the account you are signed in as." },
  unauthenticated: { status: 401, message: "Please sign in first." },
  unauthorized: { status: 401, message: "You are not allowed to do this." },
  // input
  bad_company: { status: 400, message: "Please check the company name." },
  bad_email: { status: 400, message: "That email address doesn't look right." },
  bad_message: { status: 400, message: "Please check your message." },
  bad_name: { status: 400, message: "Please check your name." },
  bad_topic: { status: 400, message: "Please choose one of the listed topics." },
  bad_request: { status: 400, message: "The request could not be understood." },
  canonicalization_failed: { status: 400, message: "The envelope could not be put in its canonical form." },
  descriptor_id_mismatch: { status: 400, message: "The federation descriptor's id does not match its content." },
  descriptor_invalid: { status: 400, message: "The federation descriptor is not valid." },
  duplicate_guardian: { status: 400, message: "A guardian signed more than once." },
  federation_not_yet_supported: { status: 400, message: "A federation cannot be the principal here yet." },
  federation_principal_wrong_endpoint: {
    status: 400,
    message: "A federation's delegation goes to the federation endpoint.",
  },
  id_mismatch: { status: 400, message: "The envelope's id does not match its content." },
  insufficient_signatures: { status: 400, message: "Not enough guardians have signed yet." },
  invalid_body: { status: 400, message: "Something you entered is missing or not in the expected form." },
  invalid_id: { status: 400, message: "That id is not in the expected form." },
  invalid_query: { status: 400, message: "Something in the address bar's query is not in the expected form." },
  malformed_json: { status: 400, message: "The request could not be read." },
  malformed_signature: { status: 400, message: "That signature is not in a form we can read." },
  no_fields_to_update: { status: 400, message: "There was nothing to change." },
  threshold_mismatch: { status: 400, message: "The signature threshold does not match the descriptor's." },
  unknown_guardian: { status: 400, message: "A signature came from someone who is not a guardian." },
  // tenancy
  delegation_not_found: { status: 404, message: "That delegation was not found." },
  endpoint_not_in_project: { status: 404, message: "That webhook endpoint is not in this project." },
  not_found: { status: 404, message: "That was not found." },
  parent_not_found: { status: 404, message: "The parent delegation was not found." },
  // method
  method_not_allowed: { status: 405, message: "That action is not available here." },
  // conflict
  already_a_member: { status: 409, message: "That person is already a member of this project." },
  already_registered: { status: 409, message: "This was already registered." },
  already_revoked: { status: 409, message: "This delegation was already revoked." },
  already_succeeded: { status: 409, message: "This delivery already succeeded." },
  delegation_inactive: { status: 409, message: "That delegation is no longer active." },
  endpoint_paused: { status: 409, message: "That webhook endpoint is paused." },
  expired_cannot_restore: { status: 409, message: "This token has expired and cannot be restored." },
  last_owner_cannot_demote: { status: 409, message: "A project needs an owner: make someone else owner first." },
  last_owner_cannot_remove: { status: 409, message: "A project needs an owner: make someone else owner first." },
  parent_inactive: { status: 409, message: "The parent delegation is no longer active." },
  tier_not_self_serve: { status: 409, message: "This plan is not sold online. Please contact us." },
  // rate
  rate_limited: { status: 429, message: "Too many tries. Wait a minute, then try again." },
  // config
  lightning_processor_not_configured: { status: 503, message: "Lightning payments are not set up here." },
  checkout_not_configured: { status: 503, message: "Checkout is not set up here." },
  cron_secret_unset: { status: 503, message: "Scheduled work is not set up here." },
  database_not_configured: { status: 503, message: "This is a preview without storage." },
  mailer_not_configured: { status: 503, message: "Email is not set up here. Choose another way to sign in." },
  no_card_processor_customer: { status: 503, message: "There is no card payment on file yet." },
  card_processor_not_configured: { status: 503, message: "Card payments are not set up here." },
  webhook_master_key_unset: { status: 503, message: "Webhooks are not set up here." },
  webhook_not_configured: { status: 503, message: "Webhooks are not set up here." },
  // external
  lightning_processor_error: { status: 502, message: "The Lightning payment service failed. Try again later." },
  lightning_processor_fetch_error: { status: 502, message: "The Lightning payment service did not answer." },
  mailer_error: { status: 502, message: "We could not send the email. Try again in a moment." },
  card_processor_error: { status: 502, message: "The card payment service failed. Try again later." },
  card_processor_no_url: { status: 502, message: "The card payment service gave no page to continue on." },
  // internal
  apply_failed: { status: 500, message: "Something went wrong on our side. Try again." },
  insert_failed: { status: 500, message: "Something went wrong on our side. Try again." },
  update_failed: { status: 500, message: "Something went wrong on our side. Try again." },

  // ---- additions (DECISIONS.md 3; docs/decisions.md) ----
  envelope_signature_invalid: { status: 400, message: "The envelope's signature does not verify." },
  body_too_large: { status: 413, message: "That is too large to send." },
  unsupported_media_type: { status: 415, message: "The request's content type is not accepted here." },
  internal_error: { status: 500, message: "Something went wrong on our side. Try again." },
  signing_key_unset: { status: 503, message: "Sign-in is not set up on this host yet." },
  // verification API upstreams (DECISIONS 19-20): never answered as a pass or a negative
  chain_unavailable: { status: 502, message: "The Bitcoin chain could not be reached. Try again later." },
  relays_unavailable: { status: 502, message: "The nostr relays could not be reached. Try again later." },
  relays_not_configured: { status: 503, message: "No nostr relays are set up here." },
  // the OpenID provider (issue 33): no ID_TOKEN_SIGNING_KEY
  oidc_not_configured: { status: 503, message: "This host is not set up as an OpenID provider." },
  // email one-time codes: wrong or unknown (one answer, no enumeration), expired, locked after 5 wrong tries
  email_code_invalid: { status: 401, message: "That code is not right. Check the latest email and try again." },
  email_code_expired: { status: 401, message: "That code has expired. Send yourself a new one." },
  email_code_locked: {
    status: 429,
    message: "Too many wrong codes. Send yourself a new code, or wait until the time given, or sign in another way.",
  },
  // OC Agent: an exercised or delegated scope that no granted scope covers (E_SCOPE_DENIED, …_SCOPE_ESCALATED)
  scope_denied: { status: 403, message: "The delegation does not grant this scope." },
  // OC Pledge states and signers (docs/decisions.md)
  pledge_not_pending: { status: 409, message: "This pledge is already settled." },
  pledge_expired: { status: 409, message: "This pledge has expired." },
  pledge_not_expired: { status: 409, message: "This pledge has not expired yet." },
  resolver_unauthorized: { status: 403, message: "Only the pledge's resolver can record its outcome." },
  signer_must_be_swearer: { status: 403, message: "Only the person who made the pledge can sign this." },
  delegation_scope_violated: { status: 403, message: "This goes beyond what the delegation allows." },
  // fleet: /api/health/deep when a binding does not answer
  dependency_unavailable: { status: 503, message: "A service this depends on is not answering." },
  // load shed (issue 47): a registration refused before any work because this isolate or D1 is past what it can
  // take (a wait past the budget, D1's own overload or restart errors); Retry-After says when to try again
  overloaded: { status: 503, message: "We are too busy to take this right now. Try again in a few seconds." },
  // auth host (service-spec "Auth host errors")
  not_authenticated: { status: 401, message: "You are not signed in." },
  not_in_roster: { status: 403, message: "That account is no longer signed in on this browser. Sign in again." },
  unknown_did_oc: { status: 404, message: "That account does not exist." },
  no_roster: { status: 409, message: "This browser has no other accounts to switch to." },
  invalid_challenge: { status: 400, message: "That sign-in message is not valid." },
  // auth host additions: switching to the active account, roster cap, display identity without a value
  already_active: { status: 409, message: "You are already using that account." },
  roster_full: { status: 409, message: "This browser holds the most accounts it can. Sign out of one first." },
  // devices (issue 46): the devices list ends other browsers' sessions; this one signs out with logout
  device_is_current: { status: 409, message: "That is the browser you are using. Sign out of this account instead." },
  identity_not_linked: { status: 409, message: "That kind of identity is not linked to this account." },
  // sign-in challenge failures (the challenge verifier's reasons, mapped at the sign-in edge)
  challenge_malformed: { status: 400, message: "That is not the sign-in message we gave you. Get a new one." },
  challenge_expired: { status: 401, message: "The message to sign has expired. Get a new one and sign it." },
  challenge_not_yet_valid: { status: 401, message: "Your clock and ours disagree. Check your time, then retry." },
  challenge_address_mismatch: {
    status: 401,
    message: "The message was made for another address. Get a new one for this address.",
  },
  challenge_nonce_mismatch: { status: 401, message: "The message does not match this sign-in. Get a new one." },
  challenge_audience_mismatch: { status: 401, message: "The message was made for another site. Get a new one." },
  challenge_purpose_mismatch: { status: 401, message: "The message was made for something else. Get a new one." },
  challenge_network_mismatch: {
    status: 401,
    message: "That address is for another Bitcoin network than this site uses.",
  },
  challenge_unknown: {
    status: 401,
    message: "That message was already used or never issued here. Get a new one and sign it.",
  },
  challenge_sig_invalid: {
    status: 401,
    message: "That signature doesn't match this address and message. Sign the exact text shown, with the same wallet.",
  },
  // provider sign-in (DECISIONS 11): unknown provider, foreign return_to, a state not issued to this browser or
  // already used, the provider's own failure or refusal, and an answer that fails our checks (id_token, iss)
  provider_not_configured: { status: 404, message: "That sign-in provider is not available here." },
  bad_return_to: { status: 400, message: "The page to return to after sign-in is not allowed." },
  oauth_state_invalid: {
    status: 400,
    message: "This sign-in expired or was started in another browser. Start again from this page.",
  },
  oauth_provider_error: {
    status: 502,
    message: "The provider could not sign you in. Try again, or choose another way.",
  },
  oauth_response_invalid: {
    status: 401,
    message: "The provider's answer did not pass our checks, so you were not signed in. Try again.",
  },
  // the person cancelled (or the provider refused) at the provider: `error=access_denied` on the callback, which
  // answers it as a redirect to /signin?error=oauth_access_denied (the status is for any other use)
  oauth_access_denied: {
    status: 403,
    message: "The sign-in was cancelled at the provider, so nothing changed. Try again, or choose another way.",
  },
  // payment processor webhooks: signed, but outside the timestamp tolerance (a replay)
  webhook_timestamp_stale: { status: 401, message: "The webhook is too old to accept." },
  // I-JSON (RFC 7493) for every JSON body: a name repeated in one object, a string with a lone surrogate
  duplicate_json_key: { status: 400, message: "The request names the same field twice." },
  json_lone_surrogate: { status: 400, message: "The request holds text that is not valid Unicode." },
  // account security (issue 27): a sensitive operation needs a fresh proof, and the reason says which one, so the
  // page asks for it inline and retries (Clerk's reverification)
  sudo_required: {
    status: 403,
    message: "Confirm it is you: prove one of this account's sign-in identities again, then try once more.",
  },
  step_up_required: {
    status: 403,
    message: "Confirm it is you with one of this account's security keys, then try once more.",
  },
  // linked identities: on another account (merge both, signed in and confirmed in this browser), already here, the
  // last way in, the primary Bitcoin address (choose another first), merging an account with itself
  identity_on_other_account: {
    status: 409,
    message: "That identity belongs to another account. Sign in to both in this browser to merge them.",
  },
  identity_already_linked: { status: 409, message: "That identity is already linked to this account." },
  last_identity: {
    status: 409,
    message: "That is the last way into this account. Link another identity before removing it.",
  },
  identity_is_primary: {
    status: 409,
    message: "That address is the account's primary Bitcoin address. Choose another one (or none) first.",
  },
  merge_same_account: { status: 400, message: "An account cannot be merged into itself." },
  // hardware keys (WebAuthn): a challenge not issued, expired or used; an answer that fails the checks (origin,
  // RP ID, user verification, signature); a counter that went backwards (a cloned key); a key not registered here
  webauthn_challenge_invalid: {
    status: 400,
    message: "This security-key request expired or was already used. Start again.",
  },
  webauthn_response_invalid: {
    status: 401,
    message: "The security key's answer did not pass our checks, so nothing changed. Try again.",
  },
  webauthn_counter_regressed: {
    status: 401,
    message: "This security key's counter went backwards, which a copied key would do. It was not accepted.",
  },
  webauthn_credential_unknown: {
    status: 401,
    message: "That security key or passkey is not registered on this account.",
  },
  webauthn_already_registered: { status: 409, message: "That security key is already registered." },
  // the recovery address: none set, or already another account's
  recovery_not_set: { status: 404, message: "This account has no recovery address." },
  recovery_address_taken: {
    status: 409,
    message: "That address already recovers another account. Choose another one.",
  },
  // leaving (issue 46): an account that owns projects with other members hands them over first
  account_owns_shared_projects: {
    status: 409,
    message: "This account owns projects that others are members of. Transfer them to another owner first.",
  },
} as const satisfies Record<string, { status: number; message: string }>;
