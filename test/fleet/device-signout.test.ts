// Devices on the fleet (issue 46, item 1): a browser the account signs out from its devices list (the auth host's
// DELETE /api/auth/devices/{id}, or sign-out-others) is refused by the fleet at once, on its very next request: the
// fleet checks the session row at the auth database's primary (DECISIONS 9), and the row is gone. The browser that
// did it keeps working. The auth host's own app answers here in the test's isolate, over the same auth database.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomToken, sha256Hex } from "../../shared/crypto/digest";
import { DAY } from "../../shared/time";
import { app as authApp } from "../../workers/auth/src/app";
import { authDb } from "../helpers/auth-db";
import { AUTH_ORIGIN } from "../helpers/browser";
import { FleetClient, signedIn } from "../helpers/fleet";
import { decodePart, mintToken } from "../helpers/tokens";

/** Another browser of the same account: its own session row (its own roster) and cookie. */
async function anotherBrowser(client: FleetClient): Promise<{ cookie: string; id: string }> {
  const claims = decodePart(client.cookie as string, 1);
  const jti = randomToken(18);
  const id = crypto.randomUUID();
  const now = Date.now();
  await authDb()
    .prepare(
      "INSERT INTO sessions (id, token_hash, account_id, roster_id, authenticated_at, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(id, await sha256Hex(jti), claims.sub, crypto.randomUUID(), now, now, now + 30 * DAY, now)
    .run();
  const cookie = await mintToken({
    sub: claims.sub as string,
    did_oc: claims.did_oc as string,
    jti,
    display_name: null,
    primary_btc: claims.primary_btc as string,
    display_identity: { kind: "btc", value: claims.primary_btc as string },
    step_up_at: null,
    sudo_at: null,
  });
  return { cookie, id };
}

/** The auth host's answer to a request from the browser holding `cookie`. */
async function atAuth(path: string, cookie: string, method: string): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(`${AUTH_ORIGIN}${path}`, {
    method,
    headers: { cookie: `oc_session=${cookie}`, "sec-fetch-site": "same-origin", "cf-connecting-ip": "203.0.113.46" },
  });
  const res = await authApp.fetch(request, { ...env, DB: authDb() }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** The fleet's answer to a read that needs a caller (GET /api/projects) with `cookie`: 200, or 401's reason. */
async function fleetStatus(cookie: string): Promise<number | string> {
  const browser = new FleetClient();
  browser.cookie = cookie;
  const res = await browser.fetch("/api/projects");
  return res.status === 401 ? ((await res.json()) as { reason: string }).reason : res.status;
}

describe("a browser signed out from the devices list, on the fleet", () => {
  it("is refused at once; the browser that signed it out is not", async () => {
    const client = await signedIn();
    const other = await anotherBrowser(client);
    expect(await fleetStatus(other.cookie)).toBe(200);
    expect(await fleetStatus(client.cookie as string)).toBe(200);

    const res = await atAuth(`/api/auth/devices/${other.id}`, client.cookie as string, "DELETE");
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await fleetStatus(other.cookie)).toBe("unauthenticated");
    expect(await fleetStatus(client.cookie as string)).toBe(200);
  });

  it("every other browser, signed out at once, is refused at once", async () => {
    const client = await signedIn();
    const others = [await anotherBrowser(client), await anotherBrowser(client)];
    for (const o of others) expect(await fleetStatus(o.cookie)).toBe(200);
    const res = await atAuth("/api/auth/devices/sign-out-others", client.cookie as string, "POST");
    expect(await res.json()).toEqual({ ok: true, signed_out: 2 });
    for (const o of others) expect(await fleetStatus(o.cookie)).toBe("unauthenticated");
    expect(await fleetStatus(client.cookie as string)).toBe(200);
  });
});
