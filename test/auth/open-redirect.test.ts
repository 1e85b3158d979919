// Security review item 2: no return target leaves the family, whichever entry point takes it. The same table of
// hostile forms goes through the one deciding function, the sign-in page (which writes the checked value into the
// page its script navigates to) and the provider start (whose stored value the callback redirects to).
import { describe, expect, it } from "vitest";
import { returnToPolicy, safeReturnTo } from "../../shared/auth/oauth/return-to";
import { Browser } from "../helpers/browser";

const policy = returnToPolicy({ AUTH_ORIGIN: "http://localhost:8787", FLEET_ORIGIN: "http://localhost:8788" });

const HOSTILE = [
  "/..//evil.example",
  "/.%2e//evil.com",
  "/%2e%2e//evil.com",
  "/\\evil.com",
  "/%5cevil.com",
  "/%5Cevil.com",
  "//evil.com",
  "///evil.com",
  "/%2F%2Fevil.com",
  "/%2f/evil.com",
  "\\\\evil.com",
  "https://evil.com",
  "http://evil.com/",
  "https:evil.com",
  "https:/evil.com",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  " javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "/\t/evil.com",
  "/\n/evil.com",
  "/%0d%0aSet-Cookie:x=1",
  "http://localhost:8787@evil.com/",
  "https://family@evil.com/",
  "http://localhost:8787.evil.com/",
  "http://localhost:8789/",
  "https://localhost:8787/",
  "http://xn--lcalhost-3ya:8787/",
  "evil.com",
  "./x",
];

describe("attack: open redirect after sign-in", () => {
  it.each(HOSTILE)("the deciding function refuses %j", (value) => {
    expect(safeReturnTo(value, policy)).toBeUndefined();
  });

  it("keeps what belongs to the family, in its parsed form", () => {
    expect(safeReturnTo("/account?x=1#y", policy)).toBe("/account?x=1#y");
    expect(safeReturnTo("/a/../b", policy)).toBe("/b");
    expect(safeReturnTo("http://localhost:8788/dashboard/", policy)).toBe("http://localhost:8788/dashboard/");
    expect(safeReturnTo("http://localhost:8787/me", policy)).toBe("http://localhost:8787/me");
  });

  it("the sign-in page never writes a hostile target into the page", async () => {
    for (const value of HOSTILE) {
      const res = await new Browser().fetch(`/signin?return_to=${encodeURIComponent(value)}`);
      const html = await res.text();
      expect(/data-return-to="([^"]*)"/.exec(html)?.[1], value).toBe("");
    }
    const ok = await new Browser().fetch(`/signin?return_to=${encodeURIComponent("/account")}`);
    expect(await ok.text()).toContain('data-return-to="/account"');
  });

  it("the provider start refuses it (400 bad_return_to), so no callback can redirect there", async () => {
    for (const value of HOSTILE) {
      const res = await new Browser().fetch(`/api/auth/oidc/start?return_to=${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(400);
      expect(((await res.json()) as { reason: string }).reason, value).toBe("bad_return_to");
    }
  });
});
