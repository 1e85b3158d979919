// The token bucket and the client-IP key, as pure functions.
import { describe, expect, it } from "vitest";
import { clientIpKey, ipv6Prefix64 } from "../../shared/http/client-ip";
import { AUTH_RULE } from "../../shared/rate-limit/rules";
import { type BucketState, takeToken } from "../../shared/rate-limit/token-bucket";

describe("token bucket", () => {
  it("admits capacity requests at once, then refills one token per window/capacity", () => {
    let state: BucketState | undefined;
    const t0 = 1_000_000;
    for (let i = 0; i < 20; i++) {
      const d = takeToken(AUTH_RULE, state, t0);
      expect(d.allowed).toBe(true);
      state = d.state;
    }
    const denied = takeToken(AUTH_RULE, state, t0);
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBe(3000);
    expect(takeToken(AUTH_RULE, denied.state, t0 + 2999).allowed).toBe(false);
    const refilled = takeToken(AUTH_RULE, denied.state, t0 + 3000);
    expect(refilled.allowed).toBe(true);
    expect(takeToken(AUTH_RULE, refilled.state, t0 + 60_000 + 3000).remaining).toBe(19);
  });

  it("never goes above capacity and tolerates a clock that steps back", () => {
    const d = takeToken(AUTH_RULE, { tokens: 20, updatedAt: 5000 }, 1000);
    expect(d.allowed).toBe(true);
    expect(d.remaining).toBe(19);
  });
});

describe("client IP key", () => {
  it("uses only CF-Connecting-IP, and the /64 for IPv6", () => {
    expect(clientIpKey(new Headers({ "cf-connecting-ip": "203.0.113.9", "x-forwarded-for": "1.1.1.1" }))).toBe(
      "203.0.113.9",
    );
    expect(clientIpKey(new Headers({ "x-forwarded-for": "1.1.1.1" }))).toBe("unknown");
    expect(ipv6Prefix64("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(ipv6Prefix64("2001:0db8:0001:0002:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(ipv6Prefix64("::1")).toBe("0:0:0:0::/64");
  });
});
