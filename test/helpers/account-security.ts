// Helpers for the account security tests (issue 27): a browser signed in with a fresh wallet, the session row its
// cookie names, making that row's proofs stale (as if the sign-in were older than the window), the cookie's claims,
// and the BIP-322 proofs of purpose `login`, `link` and `reauth`.
import { env } from "cloudflare:test";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256Hex } from "../../shared/crypto/digest";
import { addressOf, signMessage } from "./bip322-proofs";
import { type AccountBody, AUTH_ORIGIN, Browser } from "./browser";
import { decodePart } from "./tokens";
import { newWallet, type Wallet, type WalletKind } from "./wallet";

export const ELEVEN_MINUTES = 11 * 60 * 1000;

/** A P2SH-P2WPKH wallet (3… addresses), which the kit's signer does not make: BIP-322 as btc-signer signs it. */
export function p2shWallet(): Pick<Wallet, "address" | "sign"> {
  const key = secp256k1.utils.randomSecretKey();
  return {
    address: addressOf("p2sh-p2wpkh", key),
    sign: (message: string) => signMessage("p2sh-p2wpkh", key, message).signature,
  };
}

export interface SignedIn {
  browser: Browser;
  wallet: Wallet;
  account: AccountBody;
}

export async function signedInBrowser(kind: WalletKind = "p2wpkh", browser = new Browser()): Promise<SignedIn> {
  const wallet = newWallet(kind);
  const res = await browser.signIn(wallet, { add: browser.cookie !== undefined });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  const { account } = (await res.json()) as { account: AccountBody };
  return { browser, wallet, account };
}

/** The claims of the browser's current cookie. */
export function claims(browser: Browser): Record<string, unknown> {
  if (!browser.cookie) throw new Error("not signed in");
  return decodePart(browser.cookie, 1);
}

/** The id of the session row the browser's cookie names. */
export async function sessionId(browser: Browser): Promise<string> {
  const jti = claims(browser).jti as string;
  const row = await env.DB.prepare("SELECT id FROM sessions WHERE token_hash = ?")
    .bind(await sha256Hex(jti))
    .first<{ id: string }>();
  if (!row) throw new Error("no session row");
  return row.id;
}

/** Ages the browser's proofs past the windows: its sign-in (and any step-up) was eleven minutes ago. */
export async function makeStale(browser: Browser): Promise<void> {
  const id = await sessionId(browser);
  const past = Date.now() - ELEVEN_MINUTES;
  await env.DB.prepare(
    "UPDATE sessions SET authenticated_at = ?, stepped_up_at = CASE WHEN stepped_up_at IS NULL THEN NULL ELSE ? END WHERE id = ?",
  )
    .bind(past, past, id)
    .run();
}

/**
 * A BIP-322 proof of `wallet` over a challenge of `purpose`, as the body the sign-in, link and reauth routes take (a
 * `login` one at the others: a challenge of another purpose).
 */
export async function proof(
  browser: Browser,
  wallet: Pick<Wallet, "address" | "sign">,
  purpose: "login" | "link" | "reauth",
) {
  const { message, nonce } = await browser.challenge(wallet.address, { audience: AUTH_ORIGIN, purpose });
  return { address: wallet.address, message, signature: wallet.sign(message), nonce };
}

export async function reasonOf(res: Response): Promise<string | undefined> {
  return ((await res.json()) as { reason?: string }).reason;
}

/** The account's log as its owner reads it. */
export async function accountLogOf(browser: Browser) {
  const res = await browser.fetch("/api/auth/account/log");
  return ((await res.json()) as { events: { event_type: string; detail: Record<string, unknown> | null }[] }).events;
}
