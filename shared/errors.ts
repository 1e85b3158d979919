// The one error table: every reason the services answer with, its HTTP status, and the AppError that renders it.
// Reasons are stable API (service-spec "Versioning" 2): add new ones, never rename or repurpose.

export const REASONS = {
  // auth (service-spec, fleet error table)
  agent_must_match_delegation: 403,
  cross_site_blocked: 403,
  honeypot: 403,
  invalid_signature: 401,
  missing_signature: 401,
  owner_required: 403,
  owner_role_requires_owner: 403,
  principal_must_be_parent_agent: 403,
  principal_must_match_session: 403,
  role_forbidden: 403,
  signer_must_be_principal: 403,
  signer_must_match_session: 403,
  unauthenticated: 401,
  unauthorized: 401,
  // input
  bad_company: 400,
  bad_email: 400,
  bad_message: 400,
  bad_name: 400,
  bad_topic: 400,
  bad_request: 400,
  canonicalization_failed: 400,
  descriptor_id_mismatch: 400,
  descriptor_invalid: 400,
  duplicate_guardian: 400,
  federation_not_yet_supported: 400,
  federation_principal_wrong_endpoint: 400,
  id_mismatch: 400,
  insufficient_signatures: 400,
  invalid_body: 400,
  invalid_id: 400,
  invalid_query: 400,
  malformed_json: 400,
  malformed_signature: 400,
  no_fields_to_update: 400,
  threshold_mismatch: 400,
  unknown_guardian: 400,
  // tenancy
  delegation_not_found: 404,
  endpoint_not_in_project: 404,
  not_found: 404,
  parent_not_found: 404,
  // method
  method_not_allowed: 405,
  // conflict
  already_a_member: 409,
  already_registered: 409,
  already_revoked: 409,
  already_succeeded: 409,
  delegation_inactive: 409,
  endpoint_paused: 409,
  expired_cannot_restore: 409,
  last_owner_cannot_demote: 409,
  last_owner_cannot_remove: 409,
  parent_inactive: 409,
  tier_not_self_serve: 409,
  // rate
  rate_limited: 429,
  // config
  lightning_processor_not_configured: 503,
  checkout_not_configured: 503,
  cron_secret_unset: 503,
  database_not_configured: 503,
  mailer_not_configured: 503,
  no_card_processor_customer: 503,
  card_processor_not_configured: 503,
  webhook_master_key_unset: 503,
  webhook_not_configured: 503,
  // external
  lightning_processor_error: 502,
  lightning_processor_fetch_error: 502,
  mailer_error: 502,
  card_processor_error: 502,
  card_processor_no_url: 502,
  // internal
  apply_failed: 500,
  insert_failed: 500,
  update_failed: 500,

  // ---- additions (DECISIONS.md 3; docs/decisions.md) ----
  envelope_signature_invalid: 400,
  body_too_large: 413,
  unsupported_media_type: 415,
  internal_error: 500,
  signing_key_unset: 503,
  // verification API upstreams (DECISIONS 19-20): never answered as a pass or a negative
  chain_unavailable: 502,
  relays_unavailable: 502,
  relays_not_configured: 503,
  // email one-time codes: wrong or unknown (one answer, no enumeration), expired, locked after 5 wrong tries
  email_code_invalid: 401,
  email_code_expired: 401,
  email_code_locked: 429,
  // OC Agent: an exercised or delegated scope that no granted scope covers (E_SCOPE_DENIED, …_SCOPE_ESCALATED)
  scope_denied: 403,
  // OC Pledge states and signers (docs/decisions.md)
  pledge_not_pending: 409,
  pledge_expired: 409,
  pledge_not_expired: 409,
  resolver_unauthorized: 403,
  signer_must_be_swearer: 403,
  delegation_scope_violated: 403,
  // fleet: /api/health/deep when a binding does not answer
  dependency_unavailable: 503,
  // auth host (service-spec "Auth host errors")
  not_authenticated: 401,
  not_in_roster: 403,
  unknown_did_oc: 404,
  no_roster: 409,
  invalid_challenge: 400,
  // auth host additions: switching to the active account, roster cap, display identity without a value
  already_active: 409,
  roster_full: 409,
  identity_not_linked: 409,
  // sign-in challenge failures (the challenge verifier's reasons, mapped at the sign-in edge)
  challenge_malformed: 400,
  challenge_expired: 401,
  challenge_not_yet_valid: 401,
  challenge_address_mismatch: 401,
  challenge_nonce_mismatch: 401,
  challenge_audience_mismatch: 401,
  challenge_purpose_mismatch: 401,
  challenge_network_mismatch: 401,
  challenge_unknown: 401,
  challenge_sig_invalid: 401,
  // provider sign-in (DECISIONS 11): unknown provider, foreign return_to, a state not issued to this browser or
  // already used, the provider's own failure or refusal, and an answer that fails our checks (id_token, iss)
  provider_not_configured: 404,
  bad_return_to: 400,
  oauth_state_invalid: 400,
  oauth_provider_error: 502,
  oauth_response_invalid: 401,
  // payment processor webhooks: signed, but outside the timestamp tolerance (a replay)
  webhook_timestamp_stale: 401,
  // I-JSON (RFC 7493) for every JSON body: a name repeated in one object, a string with a lone surrogate
  duplicate_json_key: 400,
  json_lone_surrogate: 400,
} as const satisfies Record<string, number>;

export type Reason = keyof typeof REASONS;

/** The 70 reasons of service-spec.md's fleet error table, in table order (a test holds the table to this list). */
export const SPEC_REASON_COUNT = 70;

export class AppError extends Error {
  readonly reason: Reason;
  readonly status: number;
  readonly detail?: string;
  readonly headers?: Record<string, string>;

  constructor(reason: Reason, options: { detail?: string; headers?: Record<string, string> } = {}) {
    super(options.detail ? `${reason}: ${options.detail}` : reason);
    this.name = "AppError";
    // The compiler proves every reason is in the table; should a string from outside slip in at run time anyway,
    // fail closed: a Response with an undefined status would be a 200.
    const known = Object.hasOwn(REASONS, reason);
    this.reason = known ? reason : "internal_error";
    this.status = REASONS[this.reason];
    this.detail = options.detail;
    this.headers = options.headers;
  }
}

export interface ErrorBody {
  ok: false;
  reason: Reason;
  detail?: string;
}

export function errorBody(reason: Reason, detail?: string): ErrorBody {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}

/** Renders an AppError as the spec's envelope `{ok:false, reason, detail?}`. */
export function errorResponse(err: AppError): Response {
  const headers = new Headers({ "content-type": "application/json; charset=UTF-8", ...err.headers });
  // A 429 body is exactly {ok:false, reason:'rate_limited'} (service-spec, Errors).
  const body = err.reason === "rate_limited" ? errorBody(err.reason) : errorBody(err.reason, err.detail);
  return new Response(JSON.stringify(body), { status: err.status, headers });
}

/** GET /api/reasons: the table as data. */
export function reasonList(): { reason: Reason; status: number }[] {
  return (Object.keys(REASONS) as Reason[]).map((reason) => ({ reason, status: REASONS[reason] }));
}
