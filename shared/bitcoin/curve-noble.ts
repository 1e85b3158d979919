// @noble/curves behind the verifier's curve interface: the pure-JS reference the WebAssembly libsecp256k1 path is
// checked against in tests. Not on the workers' path: its first use builds base-point tables (10+ ms per curve).
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import type { Secp256k1Backend } from "./curve";

export const nobleSecp256k1: Secp256k1Backend = {
  verifyEcdsa(signature, digest, publicKey) {
    try {
      // noble v2 defaults to prehash: true (it would sha256 the digest again): must be off here.
      return secp256k1.verify(signature, digest, publicKey, { prehash: false, lowS: true, format: "compact" });
    } catch {
      return false;
    }
  },
  verifySchnorr(signature, message, xOnlyKey) {
    try {
      return schnorr.verify(signature, message, xOnlyKey);
    } catch {
      return false;
    }
  },
  recoverPublicKey(signature, recovery, digest, compressed) {
    try {
      const recovered = secp256k1.recoverPublicKey(Uint8Array.of(recovery, ...signature), digest, { prehash: false });
      return secp256k1.Point.fromBytes(recovered).toBytes(compressed);
    } catch {
      return null;
    }
  },
};
