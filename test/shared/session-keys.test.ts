// sessionKeysOf: only keys a JWKS does not mark for another use may verify a session (DECISIONS 16 puts the fleet's
// audit key in the same JWKS).
import { describe, expect, it } from "vitest";
import { sessionKeysOf } from "../../shared/crypto/signing-key";

const key = (kid: string, extra: Record<string, unknown> = {}) => ({
  kty: "OKP",
  crv: "Ed25519",
  x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
  kid,
  alg: "EdDSA",
  use: "sig",
  ...extra,
});

describe("sessionKeysOf", () => {
  it("keeps session keys and unmarked keys, drops audit keys and anything that is not Ed25519", () => {
    const kept = sessionKeysOf([
      key("s", { oc_use: "session" }),
      key("plain"),
      key("a", { oc_use: "audit" }),
      key("other", { oc_use: "something-else" }),
      { kty: "RSA", kid: "r", n: "x", e: "AQAB" },
      null,
      "text",
    ]);
    expect(kept.map((k) => k.kid)).toEqual(["s", "plain"]);
  });

  it("answers no keys for anything but an array", () => {
    for (const value of [undefined, null, {}, "keys", 1]) expect(sessionKeysOf(value)).toEqual([]);
  });
});
