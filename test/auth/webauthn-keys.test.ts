// The active account's hardware keys (issue 27): listing (never a public key), renaming, revoking with the proof
// the rule asks for (step-up while another key remains, sudo for the last), another account's key as 404, the log
// lines, and the routes in the OpenAPI document.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orm } from "../../shared/db/client";
import { recordAssertion } from "../../shared/db/webauthn";
import { claims, makeStale, sessionId, signedInBrowser } from "../helpers/account-security";
import { AUTH_ORIGIN, Browser } from "../helpers/browser";
import type { SoftAuthenticator } from "../helpers/soft-authenticator";
import { addKeys, answer, logLines, stepUp } from "../helpers/webauthn-flows";

async function keysOf(browser: Browser) {
  return answer(await browser.fetch("/api/auth/webauthn/credentials"));
}

const revoke = async (browser: Browser, id: string) =>
  answer(await browser.fetch(`/api/auth/webauthn/credentials/${id}`, { method: "DELETE" }));

const rename = async (browser: Browser, id: string, name: unknown) =>
  answer(await browser.fetch(`/api/auth/webauthn/credentials/${id}`, { method: "PATCH", json: { name } }));

/** A signed-in account with `n` keys, each on its own software authenticator. */
async function withKeys(n: number) {
  const signedIn = await signedInBrowser();
  const keys = await addKeys(signedIn.browser, n, (i) => `Key ${i + 1}`);
  // The step-up that added the later keys is spent: each test proves what its rule asks for.
  await env.DB.prepare("UPDATE sessions SET stepped_up_at = NULL WHERE id = ?")
    .bind(await sessionId(signedIn.browser))
    .run();
  return { ...signedIn, keys };
}

describe("listing and renaming keys", () => {
  it("lists the active account's keys, oldest first, without their public keys", async () => {
    const { browser, keys } = await withKeys(2);
    const res = await keysOf(browser);
    expect(res.status).toBe(200);
    const listed = res.body.keys as Record<string, unknown>[];
    expect(listed.map((k) => [k.id, k.name])).toEqual([
      [keys[0]?.id, "Key 1"],
      [keys[1]?.id, "Key 2"],
    ]);
    expect(Object.keys(listed[0] ?? {}).sort()).toEqual(
      ["backed_up", "created_at", "device_type", "id", "last_used_at", "name", "transports"].sort(),
    );
    const other = await signedInBrowser();
    expect((await keysOf(other.browser)).body.keys).toEqual([]);
  });

  it("renames a key and logs it; another account's key is 404 not_found; a bad name is invalid_body", async () => {
    const { browser, account, keys } = await withKeys(1);
    const id = keys[0]?.id as string;
    const res = await rename(browser, id, "  Office key  ");
    expect(res).toMatchObject({ status: 200, body: { key: { id, name: "Office key" } } });
    const line = (await logLines(account.did_oc)).find((l) => l.event_type === "hardware_key.renamed");
    expect(line).toMatchObject({
      detail: { credential_id: id, name: "Office key" },
      session_id: await sessionId(browser),
    });
    const other = await signedInBrowser();
    expect(await rename(other.browser, id, "Mine now")).toMatchObject({ status: 404, body: { reason: "not_found" } });
    expect((await rename(browser, id, "a\u202Eb")).body.reason).toBe("invalid_body");
    expect((await rename(browser, "not base64url!", "x")).body.reason).toBe("invalid_id");
  });
});

describe("revoking a key", () => {
  it("while another key remains, needs a fresh step-up (403 step_up_required), then revokes and logs it", async () => {
    const { browser, account, keys } = await withKeys(2);
    const [first, second] = keys as [{ soft: SoftAuthenticator; id: string }, { soft: SoftAuthenticator; id: string }];
    // A fresh sign-in (sudo) is not enough while another key remains.
    expect(await revoke(browser, first.id)).toMatchObject({ status: 403, body: { reason: "step_up_required" } });
    expect((await stepUp(browser, second.soft)).status).toBe(200);
    expect(await revoke(browser, first.id)).toMatchObject({ status: 200, body: { ok: true } });
    expect(((await keysOf(browser)).body.keys as { id: string }[]).map((k) => k.id)).toEqual([second.id]);
    const line = (await logLines(account.did_oc)).find((l) => l.event_type === "hardware_key.revoked");
    expect(line).toMatchObject({ detail: { credential_id: first.id }, session_id: await sessionId(browser) });
    // The revoked key no longer proves anything.
    const gone = await stepUp(browser, first.soft, { credentialId: first.id });
    expect(gone).toMatchObject({ status: 401, body: { reason: "webauthn_credential_unknown" } });
  });

  it("the last key: a fresh sudo_at is enough, a stale one is 403 sudo_required", async () => {
    const stale = await withKeys(1);
    await makeStale(stale.browser);
    const id = stale.keys[0]?.id as string;
    expect(await revoke(stale.browser, id)).toMatchObject({ status: 403, body: { reason: "sudo_required" } });
    const fresh = await withKeys(1);
    expect((await revoke(fresh.browser, fresh.keys[0]?.id as string)).status).toBe(200);
    expect((await keysOf(fresh.browser)).body.keys).toEqual([]);
  });

  it("a stale step-up with another key left is step_up_required, even with fresh sudo", async () => {
    const { browser, keys } = await withKeys(2);
    expect((await stepUp(browser, keys[0]?.soft as SoftAuthenticator)).status).toBe(200);
    expect(claims(browser).step_up_at).not.toBeNull();
    await makeStale(browser);
    expect((await revoke(browser, keys[1]?.id as string)).body.reason).toBe("step_up_required");
  });

  it("another account's key is 404 not_found, whatever the proofs, and stays", async () => {
    const theirs = await withKeys(1);
    const mine = await withKeys(1);
    expect((await stepUp(mine.browser, mine.keys[0]?.soft as SoftAuthenticator)).status).toBe(200);
    const id = theirs.keys[0]?.id as string;
    expect(await revoke(mine.browser, id)).toMatchObject({ status: 404, body: { reason: "not_found" } });
    expect(((await keysOf(theirs.browser)).body.keys as unknown[]).length).toBe(1);
  });
});

describe("the stored counter", () => {
  it("only moves forward: of two assertions with one counter value, exactly one is accepted", async () => {
    const { keys } = await withKeys(1);
    const soft = keys[0]?.soft as SoftAuthenticator;
    const ask = async () => {
      const b = new Browser();
      const res = await b.post("/api/auth/webauthn/signin/options");
      return { b, options: ((await res.json()) as { options: Parameters<SoftAuthenticator["get"]>[0] }).options };
    };
    const [one, two] = [await ask(), await ask()];
    const answers = [await soft.get(one.options, { counter: 7 }), await soft.get(two.options, { counter: 7 })];
    const results = await Promise.all([
      answer(await one.b.post("/api/auth/webauthn/signin", { response: answers[0] })),
      answer(await two.b.post("/api/auth/webauthn/signin", { response: answers[1] })),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    expect(results.find((r) => r.status === 401)?.body.reason).toBe("webauthn_counter_regressed");
  });

  it("recordAssertion's conditional update refuses a counter not above the stored one", async () => {
    const { keys } = await withKeys(1);
    const id = keys[0]?.id as string;
    const db = orm(env.DB);
    const now = Date.now();
    expect(await recordAssertion(db, { id, counter: 0, now })).toBe(true); // zero stays zero
    expect(await recordAssertion(db, { id, counter: 4, now })).toBe(true);
    expect(await recordAssertion(db, { id, counter: 4, now })).toBe(false);
    expect(await recordAssertion(db, { id, counter: 2, now })).toBe(false);
    expect(await recordAssertion(db, { id, counter: 0, now })).toBe(false);
    const row = await env.DB.prepare("SELECT counter FROM webauthn_credentials WHERE id = ?")
      .bind(id)
      .first<{ counter: number }>();
    expect(row?.counter).toBe(4);
  });
});

describe("the hardware-key routes in the OpenAPI document", () => {
  it("lists every route with its method", async () => {
    const doc = (await (await SELF.fetch(`${AUTH_ORIGIN}/api/openapi`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const expected: [string, string][] = [
      ["/api/auth/webauthn/register/options", "post"],
      ["/api/auth/webauthn/register", "post"],
      ["/api/auth/webauthn/credentials", "get"],
      ["/api/auth/webauthn/credentials/{id}", "patch"],
      ["/api/auth/webauthn/credentials/{id}", "delete"],
      ["/api/auth/webauthn/signin/options", "post"],
      ["/api/auth/webauthn/signin", "post"],
      ["/api/auth/webauthn/stepup/options", "post"],
      ["/api/auth/webauthn/stepup", "post"],
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });
});
