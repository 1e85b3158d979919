// The pure parts of hardware keys (issue 27): the relying party read from the configuration, the revoke rule, and the
// library's errors named by class (a client-chosen string inside a message never picks the class).
import { describe, expect, it } from "vitest";
import { defaultKeyName, relyingParty } from "../../shared/auth/webauthn/config";
import { classifyLibraryError, failureReason } from "../../shared/auth/webauthn/failures";
import { revokeRefusal } from "../../shared/auth/webauthn/revoke-rule";

const NOW = 1_700_000_000_000;
const MIN = 60_000;

describe("the relying party", () => {
  it("pins the RP ID to AUTH_ORIGIN's host and the origin to AUTH_ORIGIN", () => {
    expect(relyingParty({ AUTH_ORIGIN: "https://auth.example.com" })).toEqual({
      rpId: "auth.example.com",
      origin: "https://auth.example.com",
      userVerification: "preferred",
    });
    expect(relyingParty({ AUTH_ORIGIN: "http://localhost:8787/" }).origin).toBe("http://localhost:8787");
  });

  it("reads WEBAUTHN_USER_VERIFICATION: preferred by default, anything but preferred is required", () => {
    const uv = (value?: string) =>
      relyingParty({ AUTH_ORIGIN: "https://a.example", WEBAUTHN_USER_VERIFICATION: value });
    expect([uv(), uv(""), uv("preferred"), uv("required"), uv("requried")].map((r) => r.userVerification)).toEqual([
      "preferred",
      "preferred",
      "preferred",
      "required",
      "required",
    ]);
  });

  it("names an unnamed key by what it is", () => {
    expect(defaultKeyName({ deviceType: "multiDevice", attachment: "platform" })).toBe("Synced passkey");
    expect(defaultKeyName({ deviceType: "singleDevice", attachment: "platform" })).toBe("This device's passkey");
    expect(defaultKeyName({ deviceType: "singleDevice", attachment: undefined })).toBe("Security key");
  });
});

describe("the revoke rule", () => {
  const proofs = (sudoAgoMin: number, stepUpAgoMin: number | null) => ({
    authenticatedAt: NOW - sudoAgoMin * MIN,
    steppedUpAt: stepUpAgoMin === null ? null : NOW - stepUpAgoMin * MIN,
  });

  it("asks for a step-up while another key remains, for sudo when it is the last", () => {
    expect(revokeRefusal(proofs(1, null), 1, NOW)).toBe("step_up");
    expect(revokeRefusal(proofs(1, 11), 1, NOW)).toBe("step_up");
    expect(revokeRefusal(proofs(1, 1), 1, NOW)).toBeUndefined();
    expect(revokeRefusal(proofs(1, null), 0, NOW)).toBeUndefined();
    expect(revokeRefusal(proofs(11, null), 0, NOW)).toBe("sudo");
    expect(revokeRefusal(proofs(11, 1), 0, NOW)).toBeUndefined();
  });
});

describe("the library's refusals", () => {
  const named = (message: string, name = "Error") => {
    const err = new Error(message);
    err.name = name;
    return classifyLibraryError(err).kind;
  };

  it("names each class the library reports", () => {
    expect(named('Unexpected authentication response origin "https://x", expected "https://y"')).toBe("origin");
    expect(named("Unexpected RP ID hash", "UnexpectedRPIDHash")).toBe("rp_id");
    expect(named("User verification required, but user could not be verified")).toBe("user_verification");
    expect(named("User verification was required, but user could not be verified")).toBe("user_verification");
    expect(named("User not present during authentication")).toBe("user_presence");
    expect(named("Response counter value 3 was lower than expected 5")).toBe("counter");
    expect(named('Unexpected public key alg "-999", expected one of "-7, -8, -257"')).toBe("algorithm");
    expect(named("Attestation statement contained invalid alg -1 (Packed)")).toBe("attestation");
    expect(classifyLibraryError("not an error").kind).toBe("malformed");
  });

  it("is not steered by client text quoted inside a message", () => {
    expect(named('Unexpected authentication response type "Response counter value origin"')).toBe("malformed");
    expect(named('Unexpected registration response type: "User verification required"')).toBe("malformed");
  });

  it("maps only a counter to webauthn_counter_regressed; everything else is webauthn_response_invalid", () => {
    expect(failureReason({ kind: "counter" }).reason).toBe("webauthn_counter_regressed");
    for (const kind of ["origin", "rp_id", "user_verification", "signature", "malformed"] as const)
      expect(failureReason({ kind }).reason).toBe("webauthn_response_invalid");
  });
});
