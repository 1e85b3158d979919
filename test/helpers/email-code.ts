// Email-code sign-in from a test: a Browser that also keeps the oc_email_code and oc_recovery_code cookies (each sent,
// as a browser would, only to its own code routes, and replaced or cleared by their Set-Cookie), and the mails the
// mail API got (the codes in their subjects).
import { env } from "cloudflare:test";
import { SESSION_COOKIE } from "../../shared/auth/cookie";
import { EMAIL_CODE_COOKIE, RECOVERY_CODE_COOKIE } from "../../shared/auth/email-code-cookie";
import { Browser } from "./browser";

const CODE_PATH = "/api/auth/email-otp/";
const RECOVERY_PATH = "/api/auth/recovery/signin/";

export class EmailBrowser extends Browser {
  /** The attempt id this browser holds; tests set it to stand for a browser that stole or forged one. */
  attempt: string | undefined;
  /** The recovery sign-in attempt this browser holds (oc_recovery_code), likewise. */
  recoveryAttempt: string | undefined;

  override async fetch(
    path: string,
    init: RequestInit & { json?: unknown; fetchMetadata?: boolean } = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    const held = path.startsWith(CODE_PATH)
      ? this.attempt && `${EMAIL_CODE_COOKIE}=${this.attempt}`
      : path.startsWith(RECOVERY_PATH) && this.recoveryAttempt && `${RECOVERY_CODE_COOKIE}=${this.recoveryAttempt}`;
    if (held && !headers.has("cookie")) {
      const session = this.cookie ? [`${SESSION_COOKIE}=${this.cookie}`] : [];
      headers.set("cookie", [...session, held].join("; "));
    }
    const res = await super.fetch(path, { ...init, headers });
    // Every Set-Cookie line on its own (the base class reads them joined, which only works for one cookie).
    for (const line of setCookies(res)) {
      const name = line.slice(0, line.indexOf("="));
      const value = /^[^=]*=([^;]*)/.exec(line)?.[1] ?? "";
      const cleared = value === "" || /Max-Age=0|Expires=Thu, 01 Jan 1970/.test(line);
      if (name === EMAIL_CODE_COOKIE) this.attempt = cleared ? undefined : value;
      if (name === RECOVERY_CODE_COOKIE) this.recoveryAttempt = cleared ? undefined : value;
      if (name === SESSION_COOKIE) this.cookie = cleared ? undefined : value;
    }
    return res;
  }

  start(email: string): Promise<Response> {
    return this.post("/api/auth/email-otp/start", { email });
  }

  async verify(email: string, code: string, add = false) {
    const res = await this.post("/api/auth/email-otp/verify", { email, code, ...(add && { add: true }) });
    return {
      status: res.status,
      headers: res.headers,
      body: (await res.json()) as {
        ok: boolean;
        reason?: string;
        detail?: string;
        account: { did_oc: string; display_identity: { kind: string; value: string } };
      },
    };
  }
}

/**
 * Each Set-Cookie line of `res` on its own. workerd has Headers.getSetCookie (compatibility date 2023-03-01 on); the
 * default @cloudflare/workers-types entry this project types against predates it.
 */
export function setCookies(res: Response): string[] {
  return (res.headers as Headers & { getSetCookie(): string[] }).getSetCookie();
}

/** The code in the last mail the local mail API holds for `email` (its subject carries it). */
export async function lastCode(email: string): Promise<string> {
  const url = `${env.MAIL_API_URL as string}/__admin/emails?to=${encodeURIComponent(email)}`;
  const mails = (await (await fetch(url)).json()) as { subject: string }[];
  const match = /(\d{6})/.exec(mails[mails.length - 1]?.subject ?? "");
  if (!match?.[1]) throw new Error(`no code mailed to ${email}`);
  return match[1];
}

/** A code that is not `code` (the n-th such), for wrong tries. */
export function wrongCode(code: string, n = 0): string {
  return String((Number(code) + 1 + n) % 1_000_000).padStart(6, "0");
}

export interface SentMail {
  subject: string;
  text: string;
}

/** Every mail the local mail API holds for `email`, oldest first. */
export async function mailsTo(email: string): Promise<SentMail[]> {
  const url = `${env.MAIL_API_URL as string}/__admin/emails?to=${encodeURIComponent(email)}`;
  return (await (await fetch(url)).json()) as SentMail[];
}

/**
 * The mails for `email` after the first `seen`, waiting for them: some routes mail after they answer (waitUntil), so
 * a test polls. With `count: 0`, waits the whole time and returns what came (to show that nothing did).
 */
export async function mailsAfter(email: string, seen: number, count = 1, waitMs = 2_000): Promise<SentMail[]> {
  const until = Date.now() + waitMs;
  for (;;) {
    const fresh = (await mailsTo(email)).slice(seen);
    if ((count > 0 && fresh.length >= count) || Date.now() >= until) return fresh;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The code of the next mail to `email` after the first `seen` (for codes mailed after the answer). */
export async function nextCode(email: string, seen: number): Promise<string> {
  const [mail] = await mailsAfter(email, seen);
  const match = /(\d{6})/.exec(mail?.subject ?? "");
  if (!match?.[1]) throw new Error(`no code mailed to ${email}`);
  return match[1];
}

/** A fresh address for a test (storage is per file, the mail API per run). */
export const freshEmail = (tag = "user") => `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** A new browser signed in by a code mailed to `email` (so its account holds that address), and the account's did. */
export async function signedInByEmail(
  email = freshEmail(),
): Promise<{ browser: EmailBrowser; email: string; did: string }> {
  const browser = new EmailBrowser();
  await browser.start(email);
  const res = await browser.verify(email, await lastCode(email));
  if (res.status !== 200) throw new Error(`email sign-in: ${res.status} ${res.body.reason}`);
  return { browser, email, did: res.body.account.did_oc };
}

/** Makes the session rows of an account stale for sudo (their last proof 11 minutes ago). */
export async function staleSudo(didOc: string): Promise<void> {
  await env.DB.prepare(
    "UPDATE sessions SET authenticated_at = ? WHERE account_id = (SELECT id FROM accounts WHERE did_oc = ?)",
  )
    .bind(Date.now() - 11 * 60 * 1000, didOc)
    .run();
}

/** The account log of an account, oldest first, details parsed. */
export async function accountLogOf(didOc: string) {
  const { results } = await env.DB.prepare(
    "SELECT e.event_type, e.detail, e.session_id FROM account_events e JOIN accounts a ON a.id = e.account_id WHERE a.did_oc = ? ORDER BY e.seq",
  )
    .bind(didOc)
    .all<{ event_type: string; detail: string | null; session_id: string | null }>();
  return results.map((r) => ({ ...r, detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null }));
}
