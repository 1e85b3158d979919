// Session-token fixtures: mint a token with the test signing key, decode one, and plant a legacy session row.
import { env } from "cloudflare:test";
import { base64urlnopad } from "@scure/base";
import { type SessionSubject, signSessionToken } from "../../shared/auth/session-token";
import { randomToken, sha256Hex } from "../../shared/crypto/digest";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { DAY } from "../../shared/time";
import { authDb } from "./auth-db";
import { AUTH_ORIGIN } from "./browser";

export function decodePart(token: string, index: 0 | 1): Record<string, unknown> {
  const part = token.split(".")[index] ?? "";
  return JSON.parse(new TextDecoder().decode(base64urlnopad.decode(part))) as Record<string, unknown>;
}

export function encodePart(value: unknown): string {
  return base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(value)));
}

/** `signingKey`: a private JWK's JSON to sign with instead of the test AUTH_SIGNING_KEY (a rotated key). */
export async function mintToken(
  subject: SessionSubject,
  options: { now?: number; expiresAt?: number; signingKey?: string } = {},
) {
  const now = options.now ?? Date.now();
  const key = await loadSigningKey(options.signingKey ?? (env.AUTH_SIGNING_KEY as string));
  return signSessionToken(subject, key, { issuer: AUTH_ORIGIN, now, expiresAt: options.expiresAt ?? now + DAY });
}

/** A session row as hosts before multi-account wrote them (no roster), and a token for it. */
export async function legacySession(account: { id: string; didOc: string }): Promise<string> {
  const jti = randomToken(18);
  const now = Date.now();
  await authDb()
    .prepare(
      "INSERT INTO sessions (id, token_hash, account_id, roster_id, authenticated_at, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, NULL, ?, ?, ?, ?)",
    )
    .bind(crypto.randomUUID(), await sha256Hex(jti), account.id, now, now, now + 30 * DAY, now)
    .run();
  return mintToken({
    sub: account.id,
    did_oc: account.didOc,
    jti,
    display_name: null,
    primary_btc: null,
    display_identity: { kind: "did", value: account.didOc },
    step_up_at: null,
    sudo_at: null,
  });
}

export async function accountRow(didOc: string): Promise<{ id: string; didOc: string }> {
  const row = await authDb()
    .prepare("SELECT id, did_oc AS didOc FROM accounts WHERE did_oc = ?")
    .bind(didOc)
    .first<{ id: string; didOc: string }>();
  if (!row) throw new Error(`no account ${didOc}`);
  return row;
}

export async function sessionRows(accountDid: string) {
  const { results } = await authDb()
    .prepare("SELECT s.* FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE a.did_oc = ?")
    .bind(accountDid)
    .all<{ id: string; roster_id: string | null; created_at: number; expires_at: number }>();
  return results;
}
