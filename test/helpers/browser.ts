// A browser for route tests: its own client IP (so rate limits never leak between tests), a cookie jar holding
// the oc_session cookie the auth host sets, and same-origin Fetch Metadata on every request.
import { SELF } from "cloudflare:test";
import type { Wallet } from "./wallet";

export const AUTH_ORIGIN = "http://localhost:8787";

let ipCounter = 0;
export function freshIp(): string {
  ipCounter += 1;
  return `198.51.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
}

export class Browser {
  readonly ip = freshIp();
  cookie: string | undefined;

  /** `fetchMetadata: false` sends no Sec-Fetch-Site, as a script or an old browser would. */
  async fetch(path: string, init: RequestInit & { json?: unknown; fetchMetadata?: boolean } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has("sec-fetch-site") && init.fetchMetadata !== false) headers.set("sec-fetch-site", "same-origin");
    headers.set("cf-connecting-ip", this.ip);
    if (this.cookie && !headers.has("cookie")) headers.set("cookie", `oc_session=${this.cookie}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    const res = await SELF.fetch(`${AUTH_ORIGIN}${path}`, { ...init, headers, body, redirect: "manual" });
    const setCookie = res.headers.get("set-cookie") ?? "";
    const match = /^oc_session=([^;]*)/.exec(setCookie);
    if (match) this.cookie = /Max-Age=0/.test(setCookie) ? undefined : match[1];
    return res;
  }

  post(path: string, json?: unknown, init: RequestInit = {}): Promise<Response> {
    return this.fetch(path, { ...init, method: "POST", ...(json !== undefined && { json }) });
  }

  async challenge(address: string, query: Record<string, string> = { audience: AUTH_ORIGIN, purpose: "login" }) {
    const params = new URLSearchParams({ addr: address, ...query });
    const res = await this.fetch(`/api/challenge?${params}`);
    if (res.status !== 200) throw new Error(`challenge: ${res.status} ${await res.text()}`);
    return (await res.json()) as { message: string; nonce: string; expiresAt: string };
  }

  /** GET a sign-in challenge, sign it, POST it: the BIP-322 sign-in flow. */
  async signIn(wallet: Pick<Wallet, "address" | "sign">, options: { add?: boolean } = {}): Promise<Response> {
    const { message, nonce } = await this.challenge(wallet.address);
    const path = options.add ? "/api/auth/signin?add=1" : "/api/auth/signin";
    return this.post(path, { address: wallet.address, message, signature: wallet.sign(message), nonce });
  }

  async me(): Promise<{ status: number; body: MeBody }> {
    const res = await this.fetch("/api/auth/me");
    return { status: res.status, body: (await res.json()) as MeBody };
  }
}

export interface AccountBody {
  did_oc: string;
  display_name: string | null;
  primary_btc: string | null;
  display_identity: { kind: string; value: string };
}

export interface MeBody {
  ok: boolean;
  reason?: string;
  account: AccountBody;
  roster: (AccountBody & { last_seen_at: string })[];
}
