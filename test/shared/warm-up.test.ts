// The verifier's warm-up (shared/bitcoin/warm-up.ts), inside workerd: its four signatures verify with libsecp256k1
// and with the noble reference, so the isolate's start really runs every path a first request would (a warm-up
// that failed early would leave the first request cold), and each worker entry runs it at global scope.
import { describe, expect, it } from "vitest";
import { verifyMessageSignature } from "../../shared/bitcoin/bip322";
import { nobleSecp256k1 } from "../../shared/bitcoin/curve-noble";
import { WARM_UP_MESSAGE, WARM_UP_SIGNATURES, warmVerifier } from "../../shared/bitcoin/warm-up";

describe("verifier warm-up", () => {
  it("verifies all four address types, so every type's code has run once", () => {
    expect(warmVerifier()).toBe(4);
  });

  it.each(WARM_UP_SIGNATURES)("$kind: valid for the reference curve, invalid for another message", (item) => {
    const input = { address: item.address, message: WARM_UP_MESSAGE, signature: item.signature };
    expect(verifyMessageSignature(input, nobleSecp256k1).ok).toBe(true);
    expect(verifyMessageSignature({ ...input, message: `${WARM_UP_MESSAGE}!` }).ok).toBe(false);
  });
});
