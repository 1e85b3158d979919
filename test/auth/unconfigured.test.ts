// The auth host's 503 "not configured" reasons, each produced by the worker deployed without what it names: the
// email-code key (mailer_not_configured), the session signing key (signing_key_unset).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/auth/src/app";
import type { AuthEnv } from "../../workers/auth/src/env";
import { AUTH_ORIGIN, freshIp } from "../helpers/browser";

const bindings = env as unknown as AuthEnv["Bindings"];

async function post(path: string, body: unknown, changed: Partial<AuthEnv["Bindings"]>) {
  const res = await app.request(
    `${AUTH_ORIGIN}${path}`,
    {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": freshIp(), "sec-fetch-site": "same-origin" },
      body: JSON.stringify(body),
    },
    { ...bindings, ...changed },
  );
  return { status: res.status, reason: ((await res.json()) as { reason?: string }).reason };
}

describe("not configured: 503 with the table's reason", () => {
  it("no EMAIL_CODE_KEY: an email code cannot be started (mailer_not_configured)", async () => {
    const res = await post(
      "/api/auth/email-otp/start",
      { email: "someone@example.com" },
      { EMAIL_CODE_KEY: undefined },
    );
    expect(res).toEqual({ status: 503, reason: "mailer_not_configured" });
  });

  it("no EMAIL_CODE_KEY: nor can one be checked, before any cookie or code is looked at (mailer_not_configured)", async () => {
    const res = await post(
      "/api/auth/email-otp/verify",
      { email: "someone@example.com", code: "123456" },
      { EMAIL_CODE_KEY: undefined },
    );
    expect(res).toEqual({ status: 503, reason: "mailer_not_configured" });
  });
});
