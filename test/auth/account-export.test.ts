// "Download my data" (issue 46, items 4 and 5): behind a fresh sudo, one JSON document as an attachment, streamed,
// that the schema of docs/account-export.md accepts; every section the export plan names holds the account's rows
// (each table naming the account, written here), and nothing secret is in it (no token or key hash, no passkey
// public key, no code's hash, no client or Connect key).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomHex } from "../../shared/crypto/digest";
import { EXPORT_PLAN } from "../../shared/db/account-export";
import { AccountExportSchema } from "../../shared/db/account-export-schema";
import { makeStale, reasonOf, signedInBrowser } from "../helpers/account-security";
import { freshEmail } from "../helpers/email-code";
import { newWallet } from "../helpers/wallet";
import { addKeys } from "../helpers/webauthn-flows";

const accountIdOf = async (did: string) =>
  (await env.DB.prepare("SELECT id FROM accounts WHERE did_oc = ?").bind(did).first<{ id: string }>())?.id as string;

describe("the data download", () => {
  it("needs a fresh sudo: 403 sudo_required when stale, 401 signed out", async () => {
    const { browser } = await signedInBrowser();
    await makeStale(browser);
    const res = await browser.fetch("/api/auth/account/export");
    expect(res.status).toBe(403);
    expect(await reasonOf(res)).toBe("sudo_required");
    browser.cookie = undefined;
    expect(await reasonOf(await browser.fetch("/api/auth/account/export"))).toBe("not_authenticated");
  });

  it("is one JSON attachment the schema accepts, holding every section of the plan and no secret", async () => {
    const { browser, wallet, account } = await signedInBrowser();
    await addKeys(browser, 1, () => "My key");
    const id = await accountIdOf(account.did_oc);
    const now = Date.now();
    const db = env.DB;
    const client = `oc_${randomHex(8)}`;
    const connectKeyHash = randomHex(32);
    await db.batch([
      db
        .prepare(
          "INSERT INTO oidc_clients (client_id, account_id, name, client_type, redirect_uris, created_at) VALUES (?, ?, 'App', 'public', '[\"https://a.example/cb\"]', ?)",
        )
        .bind(client, id, now),
      db
        .prepare(
          "INSERT INTO oidc_consents (account_id, client_id, scopes, created_at) VALUES (?, ?, 'openid email', ?)",
        )
        .bind(id, client, now),
      db
        .prepare("INSERT INTO connect_apps (id, owner_account_id, name, key_hash, created_at) VALUES (?, ?, 'C', ?, ?)")
        .bind(`app_${randomHex(12)}`, id, connectKeyHash, now),
      db
        .prepare("INSERT INTO connect_users (app_id, user_id, account_id, email, created_at) VALUES (?, 'u1', ?, ?, ?)")
        .bind(`app_${randomHex(12)}`, id, freshEmail(), now),
      db
        .prepare(
          "INSERT OR IGNORE INTO known_devices (account_id, device_hash, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?)",
        )
        .bind(id, randomHex(32), now, now),
      db
        .prepare("INSERT OR REPLACE INTO mail_settings (account_id, app_allowed, updated_at) VALUES (?, 0, ?)")
        .bind(id, now),
    ]);
    // A fleet project the account's address is a member of (read from the registry the auth host can read).
    const project = `proj_${randomHex(12)}`;
    const owner = newWallet().address;
    await env.REGISTRY_DB.batch([
      env.REGISTRY_DB.prepare(
        "INSERT INTO projects (id, name, owner_address, created_at, updated_at) VALUES (?, 'Shared', ?, ?, ?)",
      ).bind(project, owner, now, now),
      env.REGISTRY_DB.prepare(
        "INSERT INTO members (id, project_id, address, role, created_at, updated_at) VALUES (?, ?, ?, 'member', ?, ?)",
      ).bind(`mem_${randomHex(12)}`, project, wallet.address, now, now),
    ]);

    const res = await browser.fetch("/api/auth/account/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="orangecheck-account-.*\.json"$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const text = await res.text();
    const doc = AccountExportSchema.parse(JSON.parse(text));

    expect(doc.account.did_oc).toBe(account.did_oc);
    for (const [table, plan] of Object.entries(EXPORT_PLAN)) {
      if (!("section" in plan)) continue;
      const section = doc[plan.section];
      if (Array.isArray(section)) expect(section.length, `${table} → ${plan.section}`).toBeGreaterThan(0);
      else expect(section, `${table} → ${plan.section}`).not.toBeNull();
    }
    expect(doc.identities).toContainEqual(expect.objectContaining({ kind: "btc", value: wallet.address }));
    expect(doc.passkeys.map((k) => k.name)).toEqual(["My key"]);
    expect(doc.oidc_consents[0]).toMatchObject({ client_id: client, app_name: "App", scopes: ["openid", "email"] });
    expect(doc.fleet_memberships).toEqual([
      expect.objectContaining({ project_id: project, address: wallet.address, role: "member", owner_address: owner }),
    ]);
    expect(doc.account_log.map((e) => e.event_type)).toContain("hardware_key.registered");

    // Nothing secret: no session token hash, no passkey public key, no Connect key hash.
    const secrets = [
      ...(await db.prepare("SELECT token_hash AS s FROM sessions WHERE account_id = ?").bind(id).all<{ s: string }>())
        .results,
      ...(
        await db.prepare("SELECT public_key AS s FROM webauthn_credentials WHERE account_id = ?").bind(id).all<{
          s: string;
        }>()
      ).results,
    ].map((r) => r.s);
    expect(secrets.length).toBeGreaterThan(1);
    for (const secret of [...secrets, connectKeyHash]) expect(text).not.toContain(secret);
  });
});
