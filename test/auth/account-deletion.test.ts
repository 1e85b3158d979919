// Leaving (issue 46, items 3 and 5): "Delete my account" needs a fresh step-up where the account has a key (else a
// fresh sudo), is refused while the account owns a fleet project with other members, ends the other sessions and
// mails every address; the grace period can be undone by signing in again; then the cron erases every row naming
// the account (every table the schema says names one), archives the projects it owned alone, and keeps the did_oc as
// a tombstone: the old cookie is refused, and the same Bitcoin address signing in again starts a new account.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomHex } from "../../shared/crypto/digest";
import worker from "../../workers/auth/src/index";
import { oauthApi } from "../../workers/auth/src/oidc/server";
import { accountLogOf, makeStale, reasonOf, signedInBrowser } from "../helpers/account-security";
import { tablesNamingAccounts } from "../helpers/account-tables";
import { Browser } from "../helpers/browser";
import { freshEmail, mailsAfter, mailsTo, signedInByEmail } from "../helpers/email-code";
import { codeFor, exchange, refreshWith, registerClient, startFlow, userinfo } from "../helpers/oidc";
import { newWallet } from "../helpers/wallet";
import { addKeys, stepUp } from "../helpers/webauthn-flows";

type Body = {
  ok: boolean;
  reason?: string;
  deletion?: { requested_at: string; due_at: string } | null;
  shared_projects?: { project_id: string }[];
  sole_projects?: { project_id: string }[];
  cancelled?: boolean;
  account?: { did_oc: string };
};

const call = async (browser: Browser, method: string) => {
  const res = await browser.fetch("/api/auth/account/deletion", { method });
  return { status: res.status, body: (await res.json()) as Body };
};
const ask = (b: Browser) => call(b, "POST");
const state = (b: Browser) => call(b, "GET");
const undo = (b: Browser) => call(b, "DELETE");

const accountIdOf = async (did: string) =>
  (await env.DB.prepare("SELECT id FROM accounts WHERE did_oc = ?").bind(did).first<{ id: string }>())?.id as string;

/** A project in the registry owned by `owner`, with members at `others` too. */
async function project(owner: string, others: string[] = []): Promise<string> {
  const id = `proj_${randomHex(12)}`;
  const now = Date.now();
  const db = env.REGISTRY_DB;
  await db
    .prepare("INSERT INTO projects (id, name, owner_address, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
    .bind(id, `p-${id.slice(-4)}`, owner, now, now)
    .run();
  for (const [address, role] of [[owner, "owner"], ...others.map((a) => [a, "member"])] as [string, string][]) {
    await db
      .prepare("INSERT INTO members (id, project_id, address, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
      .bind(`mem_${randomHex(12)}`, id, address, role, now, now)
      .run();
  }
  return id;
}

/** Runs the auth worker's Cron Trigger once, as the platform does. */
async function cron(): Promise<void> {
  const ctx = createExecutionContext();
  worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "17 * * * *" }), env as never, ctx);
  await waitOnExecutionContext(ctx);
}

/** The grace period ends now for the account. */
const graceOver = (did: string) =>
  env.DB.prepare("UPDATE accounts SET deletion_due_at = ? WHERE did_oc = ?")
    .bind(Date.now() - 1000, did)
    .run();

describe("asking for deletion", () => {
  it("needs a fresh sudo without a key: 403 sudo_required when stale", async () => {
    const { browser } = await signedInBrowser();
    await makeStale(browser);
    const res = await ask(browser);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe("sudo_required");
  });

  it("needs a fresh step-up where the account has a key, a fresh sudo not being enough", async () => {
    const { browser } = await signedInBrowser();
    const [key] = await addKeys(browser, 1);
    const refused = await ask(browser);
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe("step_up_required");
    expect((await stepUp(browser, key?.soft as never)).status).toBe(200);
    const asked = await ask(browser);
    expect(asked.status).toBe(200);
    expect(asked.body.deletion).not.toBeNull();
  });

  it("is refused while the account owns a project with other members, and says which", async () => {
    const { browser, wallet } = await signedInBrowser();
    const shared = await project(wallet.address, [newWallet().address]);
    const res = await ask(browser);
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe("account_owns_shared_projects");
    expect((await state(browser)).body.shared_projects?.map((p) => p.project_id)).toEqual([shared]);
    // Transferred (the account is an admin now): it may leave.
    await env.REGISTRY_DB.prepare("UPDATE members SET role = 'admin' WHERE project_id = ? AND address = ?")
      .bind(shared, wallet.address)
      .run();
    expect((await ask(browser)).status).toBe(200);
  });

  it("schedules it for the grace period, ends the other sessions, logs it and mails every address", async () => {
    const { browser, email, did } = await signedInByEmail(freshEmail("leaving"));
    const other = await signedInByEmail(email);
    expect(other.did).toBe(did);
    const seen = (await mailsTo(email)).length;
    const before = Date.now();
    const res = await ask(browser);
    expect(res.status).toBe(200);
    const due = Date.parse(res.body.deletion?.due_at ?? "");
    expect(due - before).toBeGreaterThanOrEqual(7 * 86_400_000 - 1000);
    expect(due - before).toBeLessThan(7 * 86_400_000 + 60_000);
    expect((await other.browser.fetch("/api/auth/me")).status).toBe(401);
    expect((await browser.fetch("/api/auth/me")).status).toBe(200);
    expect((await mailsAfter(email, seen)).length).toBeGreaterThanOrEqual(1);
    // Asking again keeps the first schedule.
    expect((await ask(browser)).body.deletion?.due_at).toBe(res.body.deletion?.due_at);
  });
});

describe("the grace period", () => {
  it("signing in again shows the schedule and undoes it; the cron then erases nothing", async () => {
    const { browser, wallet, account } = await signedInBrowser();
    expect((await ask(browser)).status).toBe(200);
    const again = new Browser();
    expect((await again.signIn(wallet)).status).toBe(200);
    expect((await state(again)).body.deletion).not.toBeNull();
    const undone = await undo(again);
    expect(undone.body).toEqual({ ok: true, cancelled: true });
    expect((await state(again)).body.deletion).toBeNull();
    expect((await undo(again)).body.cancelled).toBe(false);
    await cron();
    expect((await again.fetch("/api/auth/me")).status).toBe(200);
    const events = (await accountLogOf(again)).map((e) => e.event_type);
    expect(events).toContain("account.deletion_scheduled");
    expect(events).toContain("account.deletion_cancelled");
    expect(account.did_oc).toMatch(/^did:oc:/);
  });

  it("the cron leaves an account before its due time", async () => {
    const { browser } = await signedInBrowser();
    expect((await ask(browser)).status).toBe(200);
    await cron();
    expect((await browser.fetch("/api/auth/me")).status).toBe(200);
  });

  it("the cron holds an account that came to own a shared project meanwhile", async () => {
    const { browser, wallet, account } = await signedInBrowser();
    expect((await ask(browser)).status).toBe(200);
    await project(wallet.address, [newWallet().address]);
    await graceOver(account.did_oc);
    await cron();
    expect((await browser.fetch("/api/auth/me")).status).toBe(200);
  });
});

describe("the erasure", () => {
  it("removes every row naming the account, archives what it owned alone and keeps a tombstone", async () => {
    const { browser, wallet, account } = await signedInBrowser();
    const did = account.did_oc;
    const id = await accountIdOf(did);
    const [key] = await addKeys(browser, 1);
    const email = freshEmail("erased");
    const now = Date.now();
    const db = env.DB;
    // A row in every table that names an account (some through the API above, the rest written here).
    const client = `oc_${randomHex(8)}`;
    const stranger = await signedInBrowser();
    const strangerId = await accountIdOf(stranger.account.did_oc);
    await db.batch([
      db
        .prepare("INSERT INTO account_identities (kind, value, account_id, created_at) VALUES ('email', ?, ?, ?)")
        .bind(email, id, now),
      db
        .prepare("UPDATE accounts SET recovery_email = ?, recovery_set_at = ?, display_name = 'Ada' WHERE id = ?")
        .bind(freshEmail("rec"), now, id),
      db
        .prepare(
          "INSERT INTO webauthn_challenges (challenge, purpose, account_id, expires_at, created_at) VALUES (?, 'register', ?, ?, ?)",
        )
        .bind(randomHex(16), id, now + 60_000, now),
      db
        .prepare(
          "INSERT INTO email_codes (id, email, purpose, account_id, code_mac, expires_at, failures, created_at) VALUES (?, ?, 'link', ?, 'mac', ?, 0, ?)",
        )
        .bind(`link:${id}`, email, id, now + 60_000, now),
      db.prepare("INSERT INTO email_code_failures (email, failures, since) VALUES (?, 1, ?)").bind(email, now),
      db
        .prepare(
          "INSERT INTO oidc_clients (client_id, account_id, name, client_type, redirect_uris, created_at) VALUES (?, ?, 'App', 'public', '[\"https://a.example/cb\"]', ?)",
        )
        .bind(client, id, now),
      db
        .prepare("INSERT INTO oidc_consents (account_id, client_id, scopes, created_at) VALUES (?, ?, 'openid', ?)")
        .bind(id, client, now),
      db
        .prepare("INSERT INTO oidc_consents (account_id, client_id, scopes, created_at) VALUES (?, ?, 'openid', ?)")
        .bind(strangerId, client, now),
      db
        .prepare(
          "INSERT INTO oidc_refresh_rotations (token_hash, grant_id, account_id, rotated_at) VALUES (?, 'g', ?, ?)",
        )
        .bind(randomHex(32), id, now),
      db
        .prepare("INSERT INTO connect_apps (id, owner_account_id, name, key_hash, created_at) VALUES (?, ?, 'C', ?, ?)")
        .bind(`app_${randomHex(12)}`, id, randomHex(32), now),
      db
        .prepare("INSERT INTO connect_users (app_id, user_id, account_id, email, created_at) VALUES (?, 'u1', ?, ?, ?)")
        .bind(`app_${randomHex(12)}`, id, email, now),
      db
        .prepare("INSERT INTO known_devices (account_id, device_hash, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?)")
        .bind(id, randomHex(32), now, now),
      db.prepare("INSERT INTO mail_settings (account_id, app_allowed, updated_at) VALUES (?, 0, ?)").bind(id, now),
    ]);
    const tables = tablesNamingAccounts();
    for (const [table, columns] of tables) {
      const where = columns.map((c) => `${c} = ?1`).join(" OR ");
      const row = await db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).bind(id).first<{ n: number }>();
      expect(row?.n, `a row of ${table} before`).toBeGreaterThan(0);
    }
    const alone = await project(wallet.address);
    expect((await stepUp(browser, key?.soft as never)).status).toBe(200);
    expect((await ask(browser)).status).toBe(200);
    await graceOver(did);
    await cron();

    for (const [table, columns] of tables) {
      const where = columns.map((c) => `${c} = ?1`).join(" OR ");
      const row = await db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).bind(id).first<{ n: number }>();
      expect(row?.n, `rows of ${table} after`).toBe(0);
    }
    const consents = await db
      .prepare("SELECT count(*) AS n FROM oidc_consents WHERE client_id = ?")
      .bind(client)
      .first<{ n: number }>();
    expect(consents?.n).toBe(0);
    const failures = await db
      .prepare("SELECT count(*) AS n FROM email_code_failures WHERE email = ?")
      .bind(email)
      .first<{ n: number }>();
    expect(failures?.n).toBe(0);
    const tomb = await db.prepare("SELECT * FROM accounts WHERE id = ?").bind(id).first<Record<string, unknown>>();
    expect(tomb).toMatchObject({
      did_oc: did,
      display_name: null,
      primary_btc: null,
      recovery_email: null,
      merged_from: null,
    });
    expect(tomb?.deleted_at).toEqual(expect.any(Number));
    const archived = await env.REGISTRY_DB.prepare("SELECT archived_at FROM projects WHERE id = ?")
      .bind(alone)
      .first<{ archived_at: number | null }>();
    expect(archived?.archived_at).toEqual(expect.any(Number));
    const members = await env.REGISTRY_DB.prepare("SELECT count(*) AS n FROM members WHERE project_id = ?")
      .bind(alone)
      .first<{ n: number }>();
    expect(members?.n).toBe(0);

    // The old cookie is refused; the same address signing in starts a new account; the did_oc is never issued again.
    expect((await browser.fetch("/api/auth/me")).status).toBe(401);
    const again = new Browser();
    const res = await again.signIn(wallet);
    expect(res.status).toBe(200);
    const fresh = ((await res.json()) as Body).account?.did_oc;
    expect(fresh).toMatch(/^did:oc:/);
    expect(fresh).not.toBe(did);
    await expect(
      db
        .prepare(
          "INSERT INTO accounts (id, did_oc, display_identity_kind, created_at, updated_at) VALUES (?, ?, 'did', ?, ?)",
        )
        .bind(randomHex(16), did, now, now)
        .run(),
    ).rejects.toThrow(/UNIQUE/);
    expect(await reasonOf(await browser.fetch("/api/auth/me"))).toBe("not_authenticated");
  });

  it("ends the account's OpenID grants and deletes the apps it registered, in the library too", async () => {
    const stranger = await signedInBrowser();
    const theirs = await registerClient(stranger.browser, { name: "Their app" });
    const { browser, account } = await signedInBrowser();
    const own = await registerClient(browser, { name: "My app" });
    const flow = await startFlow(theirs, "openid offline_access");
    const tokens = await exchange(flow, await codeFor(browser, flow));
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    const api = await oauthApi(env as never);
    expect(await api.lookupClient(own.client_id)).not.toBeNull();

    expect((await ask(browser)).status).toBe(200);
    await graceOver(account.did_oc);
    await cron();

    expect((await userinfo(tokens.access_token)).status).toBe(401);
    expect((await refreshWith(theirs, tokens.refresh_token as string)).body.error).toBe("invalid_grant");
    expect(await api.lookupClient(own.client_id)).toBeNull();
    // The stranger's app is theirs: it stays.
    expect(await api.lookupClient(theirs.client_id)).not.toBeNull();
  });
});
