// The consent page's answer (review 3, items 8 and 13). The ID token's nonce is the authorization request's, kept
// server-side with the consent transaction: a form that changes or drops it changes nothing, and the "a nonce once
// per app" rule records the request's. A body that is not the page's form (JSON, another content type, multipart,
// a file, nothing) is refused with the provider's page, 400, and consumes nothing: the real answer still works.
import { env } from "cloudflare:test";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { signedInBrowser } from "../helpers/account-security";
import type { Browser } from "../helpers/browser";
import {
  authorize,
  consentForm,
  exchange,
  locationOf,
  type RegisteredClient,
  registerClient,
  startFlow,
} from "../helpers/oidc";

type Page = Awaited<ReturnType<typeof authorize>>;

/** POSTs a body to the consent endpoint with the session and the page's binding cookie, as the browser would. */
function post(browser: Browser, page: Page, body: BodyInit | null, contentType: string | null) {
  const cookie = [`oc_session=${browser.cookie}`, ...page.cookies].join("; ");
  const headers: Record<string, string> = { cookie };
  if (contentType !== null) headers["content-type"] = contentType;
  return browser.fetch("/oauth/consent", { method: "POST", headers, body });
}

const urlencoded = "application/x-www-form-urlencoded";

/** The consent page for a new request of the app (prompt=consent: asked even once allowed), and its form fields. */
async function consentPage(browser: Browser, app: RegisteredClient) {
  const flow = await startFlow(app, "openid", { prompt: "consent" });
  const page = await authorize(browser, flow.params);
  expect(page.res.status).toBe(200);
  const fields: Record<string, string> = { ...consentForm(await page.res.clone().text()), decision: "allow" };
  return { flow, page, fields };
}

describe("the nonce travels with the request, not the form", () => {
  it("a changed or missing nonce field: the ID token carries the request's nonce, and that one is used up", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const tampered: ((f: Record<string, string>) => Record<string, string>)[] = [
      (f) => ({ ...f, nonce: "posted-by-the-form" }),
      ({ nonce: _dropped, ...f }) => f,
    ];
    for (const tamper of tampered) {
      const { flow, page, fields } = await consentPage(browser, app);
      const res = await post(browser, page, new URLSearchParams(tamper(fields)).toString(), urlencoded);
      expect(res.status).toBe(302);
      // exchange() checks the ID token's nonce against the request's (oauth4webapi's expectedNonce).
      const result = await exchange(flow, locationOf(res));
      expect(oauth.getValidatedIdTokenClaims(result)?.nonce).toBe(flow.nonce);
      const replay = await startFlow(app, "openid", { nonce: flow.nonce });
      const again = await authorize(browser, replay.params);
      expect(again.res.status).toBe(302);
      expect(locationOf(again.res).searchParams.get("error")).toBe("invalid_request");
    }
    // The posted value was never recorded: a request with it is not refused as a used nonce.
    const fresh = await startFlow(app, "openid", { nonce: "posted-by-the-form" });
    const { res } = await authorize(browser, fresh.params);
    expect(locationOf(res).searchParams.get("error")).toBeNull();
  });
});

describe("malformed consent bodies", () => {
  it("are refused 400 with the provider's page, store nothing, and leave the real answer working", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const { flow, page, fields } = await consentPage(browser, app);
    const form = new URLSearchParams(fields).toString();
    const withFile = (name: string) => {
      const body = new FormData();
      for (const [key, value] of Object.entries(fields)) body.set(key, value);
      body.set(name, new File([fields[name] ?? "x"], "a.txt", { type: "text/plain" }));
      return body;
    };
    const strings = new FormData();
    for (const [key, value] of Object.entries(fields)) strings.set(key, value);
    const cases: [string, BodyInit | null, string | null][] = [
      ["JSON", JSON.stringify(fields), "application/json"],
      ["broken JSON", "{", "application/json"],
      ["text/plain", form, "text/plain"],
      ["no content type", form, null],
      ["empty form", "", urlencoded],
      ["no body", null, urlencoded],
      ["multipart, broken", "--x\r\ngarbage", "multipart/form-data; boundary=x"],
      ["multipart without boundary", form, "multipart/form-data"],
      ["urlencoded, a field twice", `${form}&handle=other`, urlencoded],
    ];
    for (const [label, body, type] of cases) {
      const res = await post(browser, page, body, type);
      expect(res.status, label).toBe(400);
      expect(res.headers.get("location"), label).toBeNull();
      expect(await res.text(), label).toContain('id="refused"');
    }
    // Multipart bodies (the Request sets their content type and boundary): with a file, or all strings.
    for (const [label, body] of [
      ["handle as a file", withFile("handle")],
      ["account as a file", withFile("account")],
      ["multipart of strings", strings],
    ] as const) {
      const cookie = [`oc_session=${browser.cookie}`, ...page.cookies].join("; ");
      const res = await browser.fetch("/oauth/consent", { method: "POST", headers: { cookie }, body });
      expect(res.status, label).toBe(400);
      expect(await res.text(), label).toContain('id="refused"');
    }
    const stored = await env.DB.prepare("SELECT COUNT(*) AS n FROM oidc_consents WHERE client_id = ?")
      .bind(app.client_id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
    // Nothing was consumed: the page's own answer still gets its code.
    const res = await post(browser, page, form, urlencoded);
    expect(res.status).toBe(302);
    expect(oauth.getValidatedIdTokenClaims(await exchange(flow, locationOf(res)))?.nonce).toBe(flow.nonce);
  });
});
