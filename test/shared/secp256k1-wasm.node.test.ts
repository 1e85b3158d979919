// libsecp256k1 fails closed: a module that is not the build the wrapper was written for, or one that cannot be
// loaded at all, is an error (Secp256k1UnavailableError) that reaches the caller, never a verdict. Node: it compiles
// test modules from bytes, which workerd refuses.
import { describe, expect, it, vi } from "vitest";
import { Secp256k1UnavailableError } from "../../shared/bitcoin/secp256k1-wasm";

// The verifier's module getter, replaced per test: the real one (Node compiles the package's bytes) or a failing one.
const loader = vi.hoisted(() => ({ fail: false }));
vi.mock("../../shared/bitcoin/secp256k1-module.node.ts", async (original) => {
  const real = await original<typeof import("../../shared/bitcoin/secp256k1-module.node")>();
  return {
    defaultSecp256k1: () => {
      if (loader.fail) throw new Secp256k1UnavailableError("libsecp256k1 (WebAssembly) could not be read or compiled");
      return real.defaultSecp256k1();
    },
  };
});

const { verifyMessageSignature } = await import("../../shared/bitcoin/bip322");
const { instantiateSecp256k1 } = await import("../../shared/bitcoin/secp256k1-wasm");
const { buildChallengeMessage, checkSignedChallenge } = await import("../../shared/auth/challenge");

const VECTOR = {
  address: "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
  message: "Hello World",
  signature:
    "AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=",
};

describe("the committed build", () => {
  it("is the file its README names by SHA-256 (scripts/build-secp256k1-wasm.sh rebuilds it byte for byte)", async () => {
    const { readFileSync } = await import("node:fs");
    const { createHash } = await import("node:crypto");
    const dir = new URL("../../shared/bitcoin/wasm/", import.meta.url);
    const readme = readFileSync(new URL("README.md", dir), "utf8");
    const digest = createHash("sha256")
      .update(readFileSync(new URL("secp256k1.wasm", dir)))
      .digest("hex");
    expect(readme).toContain(`\`${digest}\``);
  });
});

describe("libsecp256k1 instantiation fails closed", () => {
  it("a module without the build's exports (an empty module) is refused at instantiation", () => {
    // (cast: the workers' types, also loaded here, declare WebAssembly.Module without a constructor)
    const compile = WebAssembly.Module as unknown as new (bytes: Uint8Array) => WebAssembly.Module;
    const empty = new compile(Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00));
    expect(() => instantiateSecp256k1(empty)).toThrow(Secp256k1UnavailableError);
  });

  it("with the module, the verifier answers; without it, every call throws instead of answering", () => {
    loader.fail = false;
    expect(verifyMessageSignature(VECTOR)).toEqual({ ok: true, scheme: "bip322" });
    loader.fail = true;
    try {
      expect(() => verifyMessageSignature(VECTOR)).toThrow(Secp256k1UnavailableError);
      expect(() => verifyMessageSignature({ ...VECTOR, message: "other" })).toThrow(Secp256k1UnavailableError);
      // Nor does the sign-in check turn it into a verdict: it reaches the worker's onError (500 internal_error).
      const now = Date.UTC(2026, 0, 1);
      const challenge = { address: VECTOR.address, nonce: "00".repeat(16), issuedAt: now, expiresAt: now + 60_000 };
      const message = buildChallengeMessage(challenge);
      const signIn = () => checkSignedChallenge({ message, signature: VECTOR.signature, now, expected: {} });
      expect(signIn).toThrow(Secp256k1UnavailableError);
    } finally {
      loader.fail = false;
    }
  });
});
