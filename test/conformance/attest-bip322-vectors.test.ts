// OC Attest vectors tv21 (P2WPKH) and tv22 (P2TR) verify; tv23 (one byte flipped) does not.
// Each valid vector must also fail with a one-character message change or another address.
import { describe, expect, it } from "vitest";
import { verifyMessageSignature } from "../../shared/bitcoin/bip322";
import tv21 from "../vectors/oc-attest/tv21.json";
import tv22 from "../vectors/oc-attest/tv22.json";
import tv23 from "../vectors/oc-attest/tv23.json";

interface SignatureVector {
  id: string;
  input: { address: string; message: string; signature: string; scheme: string };
  expected: { valid: boolean };
}

// Valid addresses of the same types that did not sign (BIP-322's own P2WPKH and P2TR vectors).
const OTHER_ADDRESS: Record<string, string> = {
  tv21: "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
  tv22: "bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3",
};

function check(vector: SignatureVector, patch: Partial<SignatureVector["input"]> = {}) {
  const { address, message, signature, scheme } = { ...vector.input, ...patch };
  expect(scheme).toBe("bip322");
  return verifyMessageSignature({ address, message, signature, scheme: "bip322", network: "mainnet" });
}

describe("OC Attest BIP-322 signature vectors", () => {
  it.each([tv21, tv22, tv23] as SignatureVector[])("$id: $description", (vector) => {
    const verdict = check(vector);
    expect(verdict.ok).toBe(vector.expected.valid);
    if (vector.expected.valid) expect(verdict).toEqual({ ok: true, scheme: "bip322" });
    else expect(verdict).toEqual({ ok: false, reason: "sig_invalid" });
  });

  it.each([tv21, tv22] as SignatureVector[])("$id fails with the message changed by one character", (vector) => {
    const { message } = vector.input;
    const changed = `${message.slice(0, 5)}${message[5] === "x" ? "y" : "x"}${message.slice(6)}`;
    expect(check(vector, { message: changed })).toEqual({ ok: false, reason: "sig_invalid" });
    expect(check(vector, { message: message.slice(0, -1) })).toEqual({ ok: false, reason: "sig_invalid" });
  });

  it.each([tv21, tv22] as SignatureVector[])("$id fails for another valid address", (vector) => {
    const other = OTHER_ADDRESS[vector.id] ?? "";
    expect(check(vector, { address: other })).toEqual({ ok: false, reason: "sig_invalid" });
  });

  it("tv21 and tv22 signatures swapped between their addresses never verify", () => {
    expect(check(tv21 as SignatureVector, { address: tv22.input.address }).ok).toBe(false);
    expect(check(tv22 as SignatureVector, { address: tv21.input.address }).ok).toBe(false);
  });
});
