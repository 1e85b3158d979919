// The post-sign-in return_to guard (DECISIONS 11; OA-04; bug list 7 and 22): same family or refused.
import { describe, expect, it } from "vitest";
import { returnToPolicy, safeReturnTo } from "../../shared/auth/oauth/return-to";

const local = { authOrigin: "http://localhost:8787" };
const family = { authOrigin: "https://auth.example.com", familyDomain: ".example.com" };

describe("safeReturnTo", () => {
  it("defaults to / when none is given", () => {
    expect(safeReturnTo(undefined, local)).toBe("/");
    expect(safeReturnTo("", local)).toBe("/");
  });

  it("keeps paths on this host, query and fragment included", () => {
    expect(safeReturnTo("/", local)).toBe("/");
    expect(safeReturnTo("/account?tab=keys#top", local)).toBe("/account?tab=keys#top");
    expect(safeReturnTo("/a/../b", local)).toBe("/b");
  });

  it("keeps absolute URLs on this exact origin", () => {
    expect(safeReturnTo("http://localhost:8787/x?y=1", local)).toBe("http://localhost:8787/x?y=1");
    expect(safeReturnTo("https://auth.example.com/me", family)).toBe("https://auth.example.com/me");
  });

  it("keeps https URLs on the cookie domain and its subdomains", () => {
    expect(safeReturnTo("https://example.com/", family)).toBe("https://example.com/");
    expect(safeReturnTo("https://app.example.com/dash", family)).toBe("https://app.example.com/dash");
    expect(safeReturnTo("https://a.b.EXAMPLE.com/", family)).toBe("https://a.b.example.com/");
  });

  const refused: [string, string, typeof local | typeof family][] = [
    ["another site", "https://evil.example", local],
    ["scheme-relative", "//evil.example", local],
    ["scheme-relative with a path", "//evil.example/", family],
    ["backslash", "/\\evil.example", local],
    ["backslashes", "\\\\evil.example", local],
    ["tab inside the slashes", "/\t/evil.example", local],
    ["newline inside the slashes", "/\n/evil.example", local],
    ["leading space", " https://localhost:8787/", local],
    ["suffix lookalike", "https://localhost:8787.evil.com", local],
    ["auth origin as a prefix", "http://localhost:8787.evil.com/", local],
    ["auth host as a userinfo prefix", "http://localhost:8787@evil.com/", local],
    ["credentials on the auth origin", "http://user:pw@localhost:8787/", local],
    ["other port", "http://localhost:8788/", local],
    ["other scheme on the auth host", "https://localhost:8787/", local],
    ["javascript:", "javascript:alert(document.cookie)", local],
    ["javascript: with case and spaces", "JaVaScRiPt:alert(1)", family],
    ["data:", "data:text/html,<script>alert(1)</script>", local],
    ["scheme-less host", "evil.example/path", local],
    ["family domain as a suffix", "https://evilexample.com/", family],
    ["family domain as a prefix", "https://example.com.evil.com/", family],
    ["family over http", "http://app.example.com/", family],
    ["family on another port", "https://app.example.com:8443/", family],
    ["wildcard spelled out", "https://*.example.com/", family],
    ["subdomain when no family is configured", "https://app.localhost:8787/", local],
    ["too long", `/${"a".repeat(2048)}`, local],
  ];
  for (const [name, value, policy] of refused) {
    it(`refuses ${name}`, () => {
      expect(safeReturnTo(value, policy)).toBeUndefined();
    });
  }

  it("treats a cookie domain without a dot as no family", () => {
    expect(
      safeReturnTo("https://evil.localhost/", { authOrigin: "http://localhost:8787", familyDomain: "localhost" }),
    ).toBeUndefined();
  });
});

describe("returnToPolicy", () => {
  it("adds the fleet's exact origin, nothing looser", () => {
    const policy = returnToPolicy({ AUTH_ORIGIN: "http://localhost:8787", FLEET_ORIGIN: "http://localhost:8788/" });
    expect(safeReturnTo("http://localhost:8788/dashboard/", policy)).toBe("http://localhost:8788/dashboard/");
    expect(safeReturnTo("https://localhost:8788/dashboard/", policy)).toBeUndefined();
    expect(safeReturnTo("http://localhost:8789/", policy)).toBeUndefined();
    expect(
      safeReturnTo("http://localhost:8788/", returnToPolicy({ AUTH_ORIGIN: "http://localhost:8787" })),
    ).toBeUndefined();
  });
});
