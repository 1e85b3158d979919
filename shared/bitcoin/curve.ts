// The three secp256k1 operations the message verifier needs, behind one interface: libsecp256k1 as WebAssembly
// (secp256k1-wasm.ts, what the workers run) and @noble/curves (curve-noble.ts, the reference the tests hold it to).

export interface Secp256k1Backend {
  /**
   * ECDSA over an already computed 32-byte digest (never hashed again). `signature` is compact r‖s; the caller
   * has checked 1 ≤ r < n and 1 ≤ s ≤ n/2 (BIP-322's LOW_S), so a backend need not normalize.
   */
  verifyEcdsa(signature: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): boolean;
  /** BIP-340 Schnorr over a 32-byte message against a 32-byte x-only key. */
  verifySchnorr(signature: Uint8Array, message: Uint8Array, xOnlyKey: Uint8Array): boolean;
  /**
   * The public key a compact r‖s signature with `recovery` id 0-3 recovers over `digest`, serialized compressed
   * (33 bytes) or not (65); null when there is none (r or s out of range, r not an x coordinate, ...).
   */
  recoverPublicKey(signature: Uint8Array, recovery: number, digest: Uint8Array, compressed: boolean): Uint8Array | null;
}
