// Email-code sign-in from a test: a Browser that also keeps the oc_email_code cookie (sent, as a browser would, only
// to the email-code routes, and replaced or cleared by their Set-Cookie), and the last code the mail API got.
import { env } from "cloudflare:test";
import { SESSION_COOKIE } from "../../shared/auth/cookie";
import { EMAIL_CODE_COOKIE } from "../../shared/auth/email-code-cookie";
import { Browser } from "./browser";

const CODE_PATH = "/api/auth/email-otp/";

export class EmailBrowser extends Browser {
  /** The attempt id this browser holds; tests set it to stand for a browser that stole or forged one. */
  attempt: string | undefined;

  override async fetch(
    path: string,
    init: RequestInit & { json?: unknown; fetchMetadata?: boolean } = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.attempt && path.startsWith(CODE_PATH) && !headers.has("cookie")) {
      const session = this.cookie ? [`${SESSION_COOKIE}=${this.cookie}`] : [];
      headers.set("cookie", [...session, `${EMAIL_CODE_COOKIE}=${this.attempt}`].join("; "));
    }
    const res = await super.fetch(path, { ...init, headers });
    // Every Set-Cookie line on its own (the base class reads them joined, which only works for one cookie).
    for (const line of setCookies(res)) {
      const name = line.slice(0, line.indexOf("="));
      const value = /^[^=]*=([^;]*)/.exec(line)?.[1] ?? "";
      const cleared = value === "" || /Max-Age=0|Expires=Thu, 01 Jan 1970/.test(line);
      if (name === EMAIL_CODE_COOKIE) this.attempt = cleared ? undefined : value;
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
