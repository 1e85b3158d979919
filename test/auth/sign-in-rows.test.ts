// What a sign-in costs in D1 rows (issue 31, item 8; issue 47, item 1; priced in docs/scale.md "What it costs"): the
// challenge and the BIP-322 sign-in, for a new account and for a returning one, counted from D1's own `meta` of every
// statement the two requests ran, background work included (test/helpers/d1-recorder.ts). Held here so the figures
// cannot drift unseen; test/auth/sign-in-query-plans.test.ts holds that no read lost its index to them.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/auth/src/app";
import { AUTH_ORIGIN, freshIp } from "../helpers/browser";
import { type D1Recording, recordD1 } from "../helpers/d1-recorder";
import { setCookies } from "../helpers/email-code";
import { newWallet, type Wallet } from "../helpers/wallet";

interface Cost {
  read: number;
  written: number;
}

const total = (recording: D1Recording): Cost => ({
  read: recording.rows.reduce((sum, r) => sum + r.read, 0),
  written: recording.rows.reduce((sum, r) => sum + r.written, 0),
});

/** The auth app's answer with the recording as its database, after its background work. */
async function answer(
  recording: D1Recording,
  path: string,
  ip: string,
  body?: unknown,
  cookie?: string,
): Promise<Response> {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { "cf-connecting-ip": ip, "sec-fetch-site": "same-origin" };
  if (cookie !== undefined) headers.cookie = cookie;
  if (body !== undefined) headers["content-type"] = "application/json";
  const request = new Request(`${AUTH_ORIGIN}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const res = await app.fetch(request, { ...env, DB: recording.db }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/**
 * One sign-in of `wallet`: the challenge's rows and the sign-in's, and the browser's `oc_device` cookie after it.
 * `device`: that cookie, for a sign-in from a browser the account knows (no session cookie: a new roster).
 */
async function signIn(wallet: Wallet, device?: string): Promise<{ challenge: Cost; signin: Cost; device?: string }> {
  const recording = recordD1();
  const ip = freshIp();
  const query = new URLSearchParams({ addr: wallet.address, audience: AUTH_ORIGIN, purpose: "login" });
  const challenged = await answer(recording, `/api/challenge?${query}`, ip);
  expect(challenged.status).toBe(200);
  const { message, nonce } = (await challenged.json()) as { message: string; nonce: string };
  const challenge = total(recording);
  recording.clear();
  const body = { address: wallet.address, message, signature: wallet.sign(message), nonce };
  const signedIn = await answer(recording, "/api/auth/signin", ip, body, device);
  expect(signedIn.status, await signedIn.clone().text()).toBe(200);
  const set = setCookies(signedIn)
    .map((line) => /^(oc_device=[^;]+)/.exec(line)?.[1])
    .find((found) => found !== undefined);
  return { challenge, signin: total(recording), ...(set !== undefined && { device: set }) };
}

describe("what a sign-in costs in D1 rows", () => {
  it("a new account's first BIP-322 sign-in, and a returning one's", async () => {
    const wallet = newWallet("p2wpkh");
    const { device, ...first } = await signIn(wallet);
    expect(device).toMatch(/^oc_device=/);
    const { device: kept, ...known } = await signIn(wallet, device);
    expect(kept).toBeUndefined(); // the browser keeps its cookie
    const { device: _another, ...again } = await signIn(wallet);
    expect({ first, again, known }).toEqual({ first: FIRST, again: AGAIN, known: KNOWN });
  });
});

/**
 * The challenge: one row written (0022: `challenges` is keyed by (expires_at, nonce) without a rowid, no index beside
 * it), after its sweep's read. The sign-in consumes it (1). The first sign-in: the account (its row, the rowid
 * table's key index and `accounts_did_oc_unique`: 3; the recovery address's index holds no NULL since 0022), its
 * identity (the row and `account_identities_account`: 2), the session (the row, keyed by account and token hash, and
 * `sessions_roster_account`: 2) and the browser in known_devices (1). A returning one finds the identity and writes
 * the consumed challenge, the session and the browser only: 1 + 4 = 5 (issue 47: at most 5). As these requests hold
 * no oc_device cookie, the browser is a new one for the account, so its addresses are read for the notice.
 */
const FIRST = { challenge: { read: 1, written: 1 }, signin: { read: 3, written: 9 } };
const AGAIN = { challenge: { read: 1, written: 1 }, signin: { read: 9, written: 4 } };
/**
 * A returning sign-in from the browser that made the account (its only one), a day not yet gone by: known_devices is
 * read, not written (its last_seen_at is written at most once a day), and no notice is sent, so no address is read:
 * 1 + 3 written.
 */
const KNOWN = { challenge: { read: 1, written: 1 }, signin: { read: 7, written: 3 } };
