// Every statement of the sign-in path that reads or changes a row of the tables migration 0022 re-keyed (challenges,
// sessions, account_identities, the recovery address's partial index) or of known_devices is served by a key or an
// index, never a scan of the table (issue 47, item 1: fewer indexes, so fewer rows written, and no read lost its
// index). The statements are recorded from the auth app's own requests (and the few helpers no route reaches in a
// test without waiting minutes), then planned by SQLite's EXPLAIN QUERY PLAN on the real schema.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orm } from "../../shared/db/client";
import { accountRecoveredBy, setRecoveryAddress } from "../../shared/db/recovery-address";
import { reauthenticateSession, type SessionRow, touchSession } from "../../shared/db/sessions";
import { app } from "../../workers/auth/src/app";
import { AUTH_ORIGIN, freshIp } from "../helpers/browser";
import { type D1Recording, recordD1 } from "../helpers/d1-recorder";
import { setCookies } from "../helpers/email-code";
import { queryPlan } from "../helpers/query-plan";
import { newWallet, type Wallet } from "../helpers/wallet";

const TABLES = /\b(challenges|sessions|account_identities|known_devices|recovery_email)\b/;

/** A browser whose requests reach the auth app with the recording as its database (and its background work run). */
class RecordedBrowser {
  readonly ip = freshIp();
  cookie: string | undefined;
  constructor(private readonly recording: D1Recording) {}

  async fetch(path: string, method = "GET", json?: unknown): Promise<Response> {
    const headers = new Headers({ "cf-connecting-ip": this.ip, "sec-fetch-site": "same-origin" });
    if (this.cookie) headers.set("cookie", `oc_session=${this.cookie}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    const request = new Request(`${AUTH_ORIGIN}${path}`, {
      method,
      headers,
      ...(json !== undefined && { body: JSON.stringify(json) }),
    });
    const ctx = createExecutionContext();
    const res = await app.fetch(request, { ...env, DB: this.recording.db }, ctx);
    await waitOnExecutionContext(ctx);
    const match = /^oc_session=([^;]*)/m.exec(setCookies(res).join("\n"));
    if (match) this.cookie = match[1] === "" ? undefined : match[1];
    expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
    return res;
  }

  async signIn(wallet: Wallet, add = false): Promise<void> {
    const query = new URLSearchParams({ addr: wallet.address, audience: AUTH_ORIGIN, purpose: "login" });
    const { message, nonce } = (await (await this.fetch(`/api/challenge?${query}`)).json()) as {
      message: string;
      nonce: string;
    };
    const body = { address: wallet.address, message, signature: wallet.sign(message), nonce };
    await this.fetch(`/api/auth/signin${add ? "?add=1" : ""}`, "POST", body);
  }
}

const plan = (sql: string) => queryPlan(sql);

/** A row of the account, straight from the table (the helpers below take one). */
async function sessionOf(accountId: string): Promise<SessionRow> {
  const row = await orm(env.DB).query.sessions.findFirst({ where: (s, { eq }) => eq(s.accountId, accountId) });
  if (!row) throw new Error("no session row");
  return row;
}

describe("the sign-in path's reads use a key or an index", () => {
  it("challenges, sessions, identities, known browsers and the recovery address: no table scanned", async () => {
    const recording = recordD1();
    const browser = new RecordedBrowser(recording);
    const [a, b] = [newWallet(), newWallet("p2tr")];
    await browser.signIn(a); // a new account: identity lookup, account, session, known browser
    await browser.signIn(b, true); // a second account joins the roster, and is the active one
    await browser.fetch("/api/auth/me"); // the cookie's check and the roster
    const elsewhere = new RecordedBrowser(recording);
    await elsewhere.signIn(b); // b's second browser, ended from the first by its id
    const listed = (await (await browser.fetch("/api/auth/devices")).json()) as {
      devices: { id: string; current: boolean }[];
    };
    const there = listed.devices.find((d) => !d.current);
    expect(there).toBeDefined();
    await browser.fetch(`/api/auth/devices/${there?.id}`, "DELETE");
    await elsewhere.signIn(b); // and again, ended with every other browser of b's
    await browser.fetch("/api/auth/devices/sign-out-others", "POST", {});
    const me = (await (await browser.fetch("/api/auth/me")).json()) as { roster: { did_oc: string }[] };
    const [other] = me.roster;
    expect(other).toBeDefined();
    await browser.fetch("/api/auth/switch", "POST", { did_oc: other?.did_oc }); // a reissued row
    await browser.fetch("/api/auth/logout?scope=current", "POST"); // one row ended, the other promoted
    await browser.signIn(newWallet()); // a sign-in without add: the browser's roster is signed out
    await browser.fetch("/api/auth/logout?scope=all", "POST");
    await elsewhere.signIn(b); // a live row for the helpers below

    // What no route reaches here without waiting: a due last_seen_at, a re-authentication, the recovery address.
    const db = orm(recording.db);
    const accountId = (
      await env.DB.prepare("SELECT account_id FROM account_identities WHERE value = ?").bind(b.address).first<{
        account_id: string;
      }>()
    )?.account_id as string;
    const row = await sessionOf(accountId);
    await touchSession(db, row, row.lastSeenAt + 10 * 60 * 1000);
    await reauthenticateSession(db, row, { method: "bip322", stepUp: false, now: Date.now() });
    await setRecoveryAddress(db, `plans-${accountId}@example.com`, { accountId, sessionId: row.id, now: Date.now() });
    await accountRecoveredBy(db, `plans-${accountId}@example.com`);

    const statements = [...new Set(recording.statements.map((s) => s.sql))].filter(
      (sql) => TABLES.test(sql) && /^\s*(select|delete|update|with)\b/i.test(sql),
    );
    expect(statements.length).toBeGreaterThan(10);
    const scans: { sql: string; scans: string[] }[] = [];
    for (const sql of statements) {
      const lines = (await plan(sql)).filter((d) => /^SCAN /.test(d) && !/^SCAN CONSTANT ROW/.test(d));
      if (lines.length > 0) scans.push({ sql, scans: lines });
    }
    expect(scans).toEqual([]);
  });
});
