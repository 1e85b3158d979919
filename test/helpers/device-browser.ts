// A browser with a User-Agent of its own that keeps the `oc_device` cookie the auth host sets at sign-in (issue 46),
// beside the session and email-code cookies an EmailBrowser keeps, so a test can sign one account in from several
// browsers and see each as a device.
import { expect } from "vitest";
import { EMAIL_CODE_COOKIE } from "../../shared/auth/email-code-cookie";
import { EmailBrowser, mailsTo, setCookies } from "./email-code";

export const FIREFOX_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:126.0) Gecko/20100101 Firefox/126.0";
export const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
export const CHROME_WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

export class DeviceBrowser extends EmailBrowser {
  device: string | undefined;

  constructor(readonly agent: string) {
    super();
  }

  override async fetch(
    path: string,
    init: RequestInit & { json?: unknown; fetchMetadata?: boolean } = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("user-agent", this.agent);
    if (this.device && !headers.has("cookie")) {
      const held = path.startsWith("/api/auth/email-otp/") && this.attempt && `${EMAIL_CODE_COOKIE}=${this.attempt}`;
      const parts = [this.cookie && `oc_session=${this.cookie}`, held, `oc_device=${this.device}`];
      headers.set("cookie", parts.filter(Boolean).join("; "));
    }
    const res = await super.fetch(path, { ...init, headers });
    for (const line of setCookies(res)) {
      const match = /^oc_device=([^;]*)/.exec(line);
      if (match) this.device = match[1];
    }
    return res;
  }

  /** Signs in by a code mailed to `email` (a new account, or the one that address signs in to). */
  async signInByEmail(email: string, add = false): Promise<void> {
    const seen = (await mailsTo(email)).length;
    expect((await this.start(email)).status).toBe(200);
    const res = await this.verify(email, await codeAfter(email, seen), add);
    if (res.status !== 200) throw new Error(`email sign-in: ${res.status} ${res.body.reason}`);
  }
}

/** The code of the first mail to `email` after the first `seen` that carries one (notices may arrive in between). */
export async function codeAfter(email: string, seen: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    for (const mail of (await mailsTo(email)).slice(seen)) {
      const code = /(\d{6})/.exec(mail.subject)?.[1];
      if (code) return code;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no code mailed to ${email}`);
}
