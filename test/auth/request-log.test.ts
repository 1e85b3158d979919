// The auth host's request log (README "Logs"): one line per request with x-request-id and the route pattern; the
// caller is a session once the host has read one; never the address, the signature, the cookie or the query.
import { describe, expect, it } from "vitest";
import { Browser } from "../helpers/browser";
import { capturedLines } from "../helpers/log-scan";
import { lineFor, requestLines } from "../helpers/request-lines";
import { newWallet } from "../helpers/wallet";

describe("auth request log", () => {
  it("logs an anonymous refusal by route and reason", async () => {
    const { result: res, lines } = await requestLines(() => new Browser().fetch("/api/auth/me"));
    expect(res.status).toBe(401);
    expect(lineFor(lines, res)).toMatchObject({
      worker: "auth",
      method: "GET",
      route: "/api/auth/me",
      status: 401,
      reason: "not_authenticated",
      caller: "anonymous",
    });
  });

  it("logs a sign-in and a signed-in read without the address, signature, cookie or query", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const signIn = await requestLines(() => browser.signIn(wallet));
    expect(signIn.result.status).toBe(200);
    expect(lineFor(signIn.lines, signIn.result)).toMatchObject({ route: "/api/auth/signin", status: 200 });
    const routes = signIn.lines.map((line) => line.route);
    expect(routes).toEqual(["/api/challenge", "/api/auth/signin"]);
    const me = await requestLines(() => browser.fetch("/api/auth/me"));
    expect(me.result.status).toBe(200);
    const line = lineFor(me.lines, me.result);
    expect(line).toMatchObject({ route: "/api/auth/me", status: 200, caller: "session" });
    const written = JSON.stringify([...signIn.lines, ...me.lines]);
    expect(written).not.toContain(wallet.address);
    expect(written).not.toContain(browser.cookie);
    expect(written).not.toMatch(/audience|purpose|addr=/);
    expect(capturedLines().some((text) => text.includes(line.id))).toBe(true);
  });
});
