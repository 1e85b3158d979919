// Security review item 9: no value reaches a mail header with a line break (CR/LF injection adds headers such as
// Bcc), and names people read hold no lone surrogate and no bidi override. One check for headers, in the mail
// adapter; one rule for names (shared/text.ts), used by every schema that takes one.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { displayTextProblem, headerValueProblem } from "../../shared/text";
import { Browser } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

const teamMails = async () =>
  ((await (await fetch(`${env.MAIL_API_URL}/__admin/emails?to=team@example.com`)).json()) as { subject: string }[])
    .length;

describe("attack: CR/LF into mail headers", () => {
  it("a contact name with a line break is refused 400 and no mail is sent", async () => {
    const before = await teamMails();
    for (const name of ["Ada\r\nBcc: attacker@evil.example", "Ada\nX-Injected: 1", "Ada\u2028Bcc: x", "Ada\u0085x"]) {
      const res = await new Browser().post("/api/contact", {
        name,
        email: "ada@example.com",
        topic: "sales",
        message: "Hello",
      });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(((await res.json()) as { reason: string }).reason).toBe("invalid_body");
    }
    expect(await teamMails()).toBe(before);
  });

  it("the header check itself: control characters and lone surrogates out, ordinary text in", () => {
    expect(headerValueProblem("a\rb")).toBeDefined();
    expect(headerValueProblem("a\u0000b")).toBeDefined();
    expect(headerValueProblem("a\ud800")).toBeDefined();
    expect(headerValueProblem("[contact/sales] Ada (Engines) — ünïcödé 😀")).toBeUndefined();
  });
});

describe("attack: display names that read as something else", () => {
  it("refuses bidi overrides and isolates in an account's display name (400 invalid_body)", async () => {
    const browser = new Browser();
    await browser.signIn(newWallet());
    for (const name of ["evil\u202Emoc.elppa", "a\u2066b", "a\u200Fb"]) {
      const res = await browser.fetch("/api/auth/account", { method: "PATCH", json: { display_name: name } });
      expect(res.status, name).toBe(400);
      expect(((await res.json()) as { reason: string }).reason).toBe("invalid_body");
    }
    const lone = await browser.fetch("/api/auth/account", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: '{"display_name":"a\\ud800"}',
    });
    expect(((await lone.json()) as { reason: string }).reason).toBe("json_lone_surrogate");
    expect(displayTextProblem("Ada Lovelace — 😀")).toBeUndefined();
  });
});
