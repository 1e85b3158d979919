// The orangecheck-auth message builder and parser (oc-wire-formats §2).
import { describe, expect, it } from "vitest";
import {
  buildChallengeMessage,
  challengeReason,
  checkSignedChallenge,
  parseChallengeMessage,
} from "../../shared/auth/challenge";
import { sha256Hex } from "../../shared/crypto/digest";

const example = {
  address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
  nonce: "0011223344556677889900aabbccddee",
  issuedAt: Date.parse("2026-04-22T12:00:00Z"),
  expiresAt: Date.parse("2026-04-22T12:05:00Z"),
  audience: "https://example.com",
  purpose: "login",
};

describe("orangecheck-auth message", () => {
  it("matches the wire-format reference example byte for byte (287 bytes, sha256 820e1a53…)", async () => {
    const message = buildChallengeMessage(example);
    expect(new TextEncoder().encode(message).length).toBe(287);
    expect(await sha256Hex(message)).toBe("820e1a53fd50186f0310c21d379eb37ec63b8d6ca8075e12fd3d14dde5f26975");
  });

  it("parses what it builds, and refuses repeated keys, a wrong ack, a bad nonce or missing core lines", () => {
    const message = buildChallengeMessage(example);
    expect(parseChallengeMessage(message)).toEqual(example);
    expect(parseChallengeMessage(message.replace("orangecheck-auth", "orangecheck"))).toBeUndefined();
    expect(parseChallengeMessage(`${message}nonce: ${example.nonce}\n`)).toBeUndefined();
    expect(parseChallengeMessage(message.replace("I authorize", "I allow"))).toBeUndefined();
    expect(parseChallengeMessage(message.replace(example.nonce, example.nonce.toUpperCase()))).toBeUndefined();
    expect(parseChallengeMessage(message.replace(/expires_at: .*\n/, ""))).toBeUndefined();
  });

  it("checks time before the signature: expired and not yet valid", () => {
    const message = buildChallengeMessage(example);
    const at = (now: number) => checkSignedChallenge({ message, signature: "AAAA", now, expected: {} });
    expect(at(example.expiresAt + 1)).toEqual({ ok: false, reason: "expired" });
    expect(at(example.issuedAt - 1)).toEqual({ ok: false, reason: "not_yet_valid" });
    expect(at(example.issuedAt + 1000)).toEqual({ ok: false, reason: "sig_invalid" });
  });

  it("names each failure on the wire through one exhaustive switch", () => {
    expect(challengeReason("expired")).toBe("challenge_expired");
    expect(challengeReason("not_yet_valid")).toBe("challenge_not_yet_valid");
    expect(challengeReason("malformed")).toBe("challenge_malformed");
  });
});
