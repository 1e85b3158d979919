// The hardware-key flows as a browser runs them against the auth host, with the software authenticator answering:
// register a key, sign in with a passkey, step up. Each returns the final answer for the test to check; `knobs`
// break one thing in the authenticator's answer; addKeys registers several keys as the add rule allows.
import { env } from "cloudflare:test";
import { app } from "../../workers/auth/src/app";
import type { AuthEnv } from "../../workers/auth/src/env";
import { AUTH_ORIGIN, type Browser } from "./browser";
import { type Knobs, SoftAuthenticator } from "./soft-authenticator";

type Options = Parameters<SoftAuthenticator["get"]>[0] & Parameters<SoftAuthenticator["create"]>[0];
type Body = { ok: boolean; reason?: string; detail?: string; [key: string]: unknown };

export async function answer(res: Response): Promise<{ status: number; body: Body }> {
  return { status: res.status, body: (await res.json()) as Body };
}

/** POST `path` and the options it answers (throws when it refuses). */
export async function optionsFrom(browser: Browser, path: string): Promise<Options> {
  const res = await browser.post(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { options: Options }).options;
}

/** Registration: options, the authenticator's answer, posted with `name`. */
export async function registerKey(browser: Browser, soft: SoftAuthenticator, knobs: Knobs = {}, name?: string) {
  const options = await optionsFrom(browser, "/api/auth/webauthn/register/options");
  const response = await soft.create(options, knobs);
  const res = await browser.post("/api/auth/webauthn/register", { response, ...(name !== undefined && { name }) });
  return { ...(await answer(res)), response, options };
}

/** A passkey sign-in (discoverable: the options name no key). */
export async function passkeySignIn(browser: Browser, soft: SoftAuthenticator, knobs: Knobs = {}, add = false) {
  const options = await optionsFrom(browser, "/api/auth/webauthn/signin/options");
  const response = await soft.get(options, knobs);
  const res = await browser.post("/api/auth/webauthn/signin", { response, ...(add && { add }) });
  return { ...(await answer(res)), response, options };
}

export async function stepUp(browser: Browser, soft: SoftAuthenticator, knobs: Knobs = {}) {
  const options = await optionsFrom(browser, "/api/auth/webauthn/stepup/options");
  const response = await soft.get(options, knobs);
  const res = await browser.post("/api/auth/webauthn/stepup", { response });
  return { ...(await answer(res)), response, options };
}

/**
 * The same request `browser` would make, served by the app with other bindings (a variable set for one test), on
 * the same D1, KV and Durable Objects.
 */
export function withBindings(browser: Browser, changed: Partial<Record<string, string>>) {
  const bindings = { ...(env as unknown as AuthEnv["Bindings"]), ...changed };
  return async (path: string, json?: unknown): Promise<Response> => {
    const headers = new Headers({ "sec-fetch-site": "same-origin", "cf-connecting-ip": browser.ip });
    if (browser.cookie) headers.set("cookie", `oc_session=${browser.cookie}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    const init = { method: "POST", headers, ...(json !== undefined && { body: JSON.stringify(json) }) };
    const res = await app.request(`${AUTH_ORIGIN}${path}`, init, bindings);
    const match = /^oc_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "");
    if (match) browser.cookie = match[1];
    return res;
  };
}

/** The account's log lines, oldest first, straight from D1 (what the owner's log route reads). */
export async function logLines(accountDid: string) {
  const { results } = await env.DB.prepare(
    "SELECT e.event_type, e.detail, e.session_id FROM account_events e JOIN accounts a ON a.id = e.account_id WHERE a.did_oc = ? ORDER BY e.seq",
  )
    .bind(accountDid)
    .all<{ event_type: string; detail: string | null; session_id: string | null }>();
  return results.map((r) => ({
    ...r,
    detail: r.detail === null ? null : (JSON.parse(r.detail) as Record<string, unknown>),
  }));
}

/**
 * Registers `count` keys on the signed-in account, each on its own software authenticator: the first with the
 * session's sudo, the others after a step-up with the first (review 3, item 5: a key is added to an account that has
 * one only after a step-up with one of its keys). Throws when a registration is refused.
 */
export async function addKeys(
  browser: Browser,
  count: number,
  names: (i: number) => string | undefined = () => undefined,
) {
  const keys: { soft: SoftAuthenticator; id: string }[] = [];
  for (let i = 0; i < count; i++) {
    const soft = new SoftAuthenticator();
    if (i === 1) {
      const up = await stepUp(browser, keys[0]?.soft as SoftAuthenticator);
      if (up.status !== 200) throw new Error(`step-up: ${JSON.stringify(up.body)}`);
    }
    const res = await registerKey(browser, soft, {}, names(i));
    if (res.status !== 201) throw new Error(`registration ${i + 1}: ${JSON.stringify(res.body)}`);
    keys.push({ soft, id: res.response.id });
  }
  return keys;
}
