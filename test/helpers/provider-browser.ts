// A browser for provider sign-in against an auth worker whose provider variables differ from the run's (the
// configured providers are fixed per run): it calls the worker's fetch handler with those variables changed, keeps
// the session and state cookies, and plays the provider's consent (the local server answers at once).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import { app } from "../../workers/auth/src/app";
import type { AuthBindings } from "../../workers/auth/src/env";
import { AUTH_ORIGIN, freshIp } from "./browser";

export class ProviderBrowser {
  readonly ip = freshIp();
  readonly env: AuthBindings;
  session: string | undefined;
  stateCookie = "";

  constructor(changes: Partial<AuthBindings>) {
    this.env = { ...env, ...changes };
  }

  async fetch(path: string, crossSite = false): Promise<Response> {
    const cookies = [
      this.session && `oc_session=${this.session}`,
      this.stateCookie && `oc_oauth_state=${this.stateCookie}`,
    ];
    const cookie = cookies.filter(Boolean).join("; ");
    const request = new Request(`${AUTH_ORIGIN}${path}`, {
      headers: {
        "cf-connecting-ip": this.ip,
        "sec-fetch-site": crossSite ? "cross-site" : "same-origin",
        ...(cookie && { cookie }),
      },
      redirect: "manual",
    });
    const ctx = createExecutionContext();
    const res = await app.fetch(request, this.env, ctx);
    await waitOnExecutionContext(ctx);
    for (const line of res.headers.getAll("set-cookie")) {
      const session = /^oc_session=([^;]*)/.exec(line);
      if (session) this.session = session[1];
      const state = /^oc_oauth_state=([^;]*)/.exec(line);
      if (state) this.stateCookie = state[1] ?? "";
    }
    return res;
  }

  /** Start → the provider's consent → the callback URL the provider sends the browser to. */
  async consent(provider: string): Promise<URL> {
    const started = await this.fetch(`/api/auth/${provider}/start`);
    expect(started.status, await started.clone().text()).toBe(302);
    const back = await fetch(started.headers.get("location") ?? "", { redirect: "manual" });
    expect(back.status).toBe(302);
    return new URL(back.headers.get("location") ?? "");
  }

  /** The browser arriving back from the provider (a cross-site navigation). */
  callback(url: URL): Promise<Response> {
    return this.fetch(`${url.pathname}${url.search}`, true);
  }
}

/** Status, reason and detail of an answer (a sign-in's 302 has no body: then its status and Location). */
export async function outcome(
  res: Response,
): Promise<{ status: number; reason?: string; detail?: string; location?: string }> {
  const text = await res.text();
  const body = (text ? JSON.parse(text) : {}) as { reason?: string; detail?: string };
  return {
    status: res.status,
    reason: body.reason,
    detail: body.detail,
    location: res.headers.get("location") ?? undefined,
  };
}
