// BIP-322 verification in Node, both verifiers on the same bip322-js-signed attestation messages, per address
// type (bip322-js signs 1… addresses the legacy BIP-137 way, so the P2PKH row is legacy verification for both).
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { Verifier } from "bip322-js";

function rate(fn, items, ms) {
  for (const item of items) if (!fn(item)) throw new Error("a verifier refused a valid signature");
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    fn(items[n % items.length]);
    n += 1;
  }
  return (n * 1000) / (performance.now() - start);
}

export async function bip322({ fx, ms, log }) {
  const sets = Array.from({ length: 4 }, () => fx.signedAttestations().slice(0, 4)); // p2pkh, p2sh-p2wpkh, p2wpkh, p2tr
  const rows = [];
  for (const kind of ["p2pkh", "p2sh-p2wpkh", "p2wpkh", "p2tr"]) {
    const items = sets.map((set) => set.find((a) => a.kind === kind));
    const project = rate((a) => fx.verifyMessageSignature(a).ok, items, ms);
    const reference = rate((a) => Verifier.verifySignature(a.address, a.message, a.signature), items, ms);
    log(`bip322 ${kind}: project ${project.toFixed(0)}/s, bip322-js ${reference.toFixed(0)}/s`);
    rows.push({ kind, project, reference });
  }
  // The pure-JS floor under the project's verifier: one noble curve verify (ECDSA prehash off; BIP-340).
  const key = secp256k1.utils.randomSecretKey();
  const digest = crypto.getRandomValues(new Uint8Array(32));
  const ecdsa = { sig: secp256k1.sign(digest, key, { prehash: false }), pub: secp256k1.getPublicKey(key) };
  const bip340 = { sig: schnorr.sign(digest, key), pub: schnorr.getPublicKey(key) };
  const floor = {
    ecdsa: rate(() => secp256k1.verify(ecdsa.sig, digest, ecdsa.pub, { prehash: false }), [0], ms),
    schnorr: rate(() => schnorr.verify(bip340.sig, digest, bip340.pub), [0], ms),
  };
  log(`bip322 floor: noble ECDSA ${floor.ecdsa.toFixed(0)}/s, schnorr ${floor.schnorr.toFixed(0)}/s`);
  return { rows, floor };
}
