// The dashboard's one way to call the fleet API. Same origin, so the browser sends the oc_session cookie and
// `Sec-Fetch-Site: same-origin` (the spec's rule for browser writes). Every answer becomes
// {ok, status, data, reason, detail}; screens show `reason` as the API gave it, beside a readable sentence.

/** Readable sentences for the reasons a dashboard user meets; the reason itself is always shown too. */
const MESSAGES = {
  unauthenticated: "You are not signed in, or the session ended.",
  not_authenticated: "You are not signed in.",
  cross_site_blocked: "The request did not come from this page's own origin.",
  owner_required: "Only an owner of this project can do this.",
  role_forbidden: "Your role in this project does not allow this.",
  owner_role_requires_owner: "Only an owner can add, change or remove an owner.",
  last_owner_cannot_demote: "The last owner cannot be demoted: make another member an owner first.",
  last_owner_cannot_remove: "The last owner cannot be removed: make another member an owner first.",
  already_a_member: "That address is already a member of this project.",
  expired_cannot_restore: "This token has expired and cannot be restored: create a new one.",
  endpoint_paused: "The endpoint is paused: resume it before retrying.",
  already_succeeded: "This delivery already succeeded.",
  endpoint_not_in_project: "This delivery's endpoint belongs to another project.",
  not_found: "Not found, or not visible to you (archived projects are read-only).",
  invalid_body: "The API refused a value of this form.",
  invalid_query: "The API refused a value of this filter.",
  no_fields_to_update: "Nothing to change.",
  webhook_master_key_unset: "Webhooks are not configured on this server (WEBHOOK_MASTER_KEY is unset).",
  signing_key_unset: "Audit exports are not configured on this server (FLEET_SIGNING_KEY is unset).",
  rate_limited: "Too many requests: wait a moment and try again.",
  tier_not_self_serve: "This plan is not sold here: contact us.",
  checkout_not_configured: "Checkout is not configured on this server.",
  card_processor_not_configured: "Card payments are not configured on this server.",
  lightning_processor_not_configured: "Lightning payments are not configured on this server.",
  no_card_processor_customer: "The card billing portal opens after a first card payment.",
  card_processor_error: "The card processor refused the request.",
  card_processor_no_url: "The card processor gave no page to open.",
  lightning_processor_error: "The Lightning processor refused the request.",
  lightning_processor_fetch_error: "The Lightning processor could not be reached.",
  network_error: "The server could not be reached.",
};

export const messageFor = (reason) => MESSAGES[reason] ?? "The request failed.";

/** `{a: 1, b: undefined}` → `?a=1` (undefined and empty values left out). */
export function query(params) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") q.set(key, value);
  const text = q.toString();
  return text ? `?${text}` : "";
}

export async function api(method, path, body, options = {}) {
  const headers = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      redirect: options.redirect ?? "follow",
    });
  } catch (err) {
    return { ok: false, status: 0, data: null, reason: "network_error", detail: String(err) };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {}
  if (res.ok && data && data.ok !== false) return { ok: true, status: res.status, data, reason: null, detail: null };
  return {
    ok: false,
    status: res.status,
    data,
    reason: data?.reason ?? `http_${res.status}`,
    detail: data?.detail ?? null,
  };
}
