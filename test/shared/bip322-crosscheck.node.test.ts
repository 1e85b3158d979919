// Cross-check against bip322-js (Node only: its bitcoinjs/elliptic dependencies are unreliable in
// workerd). Fresh random keys per run: bip322-js signs, we verify; we can sign, bip322-js verifies.
import { readFileSync } from "node:fs";
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, createBase58check } from "@scure/base";
import { NETWORK, p2pkh, p2sh, p2tr, p2wpkh, RawWitness, TEST_NETWORK, Transaction, WIF } from "@scure/btc-signer";
import { Signer, Verifier } from "bip322-js";
import { describe, expect, it } from "vitest";
import { buildToSpendTx, verifyMessageSignature } from "../../shared/bitcoin/bip322";
import { WARM_UP_MESSAGE, WARM_UP_SIGNATURES } from "../../shared/bitcoin/warm-up";
import tv21 from "../vectors/oc-attest/tv21.json";
import tv22 from "../vectors/oc-attest/tv22.json";

type Network = "mainnet" | "testnet" | "regtest";
type Kind = "p2pkh" | "p2sh-p2wpkh" | "p2wpkh" | "p2tr";
type BtcNetwork = typeof NETWORK;

const REGTEST: BtcNetwork = { bech32: "bcrt", pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const NETWORKS: [Network, BtcNetwork][] = [
  ["mainnet", NETWORK],
  ["testnet", TEST_NETWORK],
  ["regtest", REGTEST],
];
const KINDS: Kind[] = ["p2pkh", "p2sh-p2wpkh", "p2wpkh", "p2tr"];
const MESSAGES = [
  "",
  "Hello World",
  "orangecheck-auth\naddress: placeholder\nnonce: 0011223344556677889900aabbccddee\n" +
    "issued_at: 2026-04-22T12:00:00Z\nexpires_at: 2026-04-22T12:05:00Z\n" +
    "ack: I attest control of this address and bind it to my identities.\n" +
    "audience: https://example.com\npurpose: login\n",
  "unicode: héllo wörld — 日本語 🙂 \u{1F9E1}\r\n",
];

function randomKey(): Uint8Array {
  for (;;) {
    const key = crypto.getRandomValues(new Uint8Array(32));
    if (secp256k1.utils.isValidSecretKey(key)) return key;
  }
}

function uncompressedWif(key: Uint8Array, net: BtcNetwork): string {
  return createBase58check(sha256).encode(Uint8Array.of(net.wif, ...key));
}

function payment(kind: Kind, key: Uint8Array, net: BtcNetwork) {
  const pub = secp256k1.getPublicKey(key, true);
  if (kind === "p2pkh") return p2pkh(pub, net);
  if (kind === "p2wpkh") return p2wpkh(pub, net);
  if (kind === "p2sh-p2wpkh") return p2sh(p2wpkh(pub, net), net);
  return p2tr(schnorr.getPublicKey(key), undefined, net);
}

/** A simple BIP-322 proof signed by @scure/btc-signer (taproot: 64-byte SIGHASH_DEFAULT). */
function btcSignerSimpleProof(kind: Exclude<Kind, "p2pkh">, key: Uint8Array, message: string) {
  const pay = payment(kind, key, NETWORK);
  const tx = new Transaction({ version: 0, allowUnknownOutputs: true });
  tx.addInput({
    txid: buildToSpendTx(pay.script, message).txid,
    index: 0,
    sequence: 0,
    witnessUtxo: { script: pay.script, amount: 0n },
    ...("redeemScript" in pay && pay.redeemScript ? { redeemScript: pay.redeemScript } : {}),
    ...("tapInternalKey" in pay ? { tapInternalKey: pay.tapInternalKey } : {}),
  });
  tx.addOutput({ script: Uint8Array.of(0x6a), amount: 0n });
  tx.sign(key);
  tx.finalize();
  const witness = tx.getInput(0).finalScriptWitness;
  if (!witness || !pay.address) throw new Error("unsigned");
  return { address: pay.address, signature: base64.encode(RawWitness.encode(witness)) };
}

const bip322jsAccepts = (address: string, message: string, signature: string) => {
  try {
    return Verifier.verifySignature(address, message, signature);
  } catch {
    return false;
  }
};

describe("bip322-js Signer -> verifyMessageSignature", () => {
  for (const [network, net] of NETWORKS) {
    for (const kind of KINDS) {
      it(`${network} ${kind}`, () => {
        const key = randomKey();
        const address = payment(kind, key, net).address ?? "";
        const expected = { ok: true, scheme: kind === "p2pkh" ? "legacy" : "bip322" };
        for (const message of MESSAGES) {
          const signature = Signer.sign(WIF(net).encode(key), address, message);
          expect(verifyMessageSignature({ address, message, signature, network })).toEqual(expected);
          expect(bip322jsAccepts(address, message, signature)).toBe(true);
          const tampered = `${message}.`;
          expect(verifyMessageSignature({ address, message: tampered, signature, network }).ok).toBe(false);
          expect(bip322jsAccepts(address, tampered, signature)).toBe(false);
        }
      });
    }

    it(`${network} p2pkh with an uncompressed key`, () => {
      const key = randomKey();
      const address = p2pkh(secp256k1.getPublicKey(key, false), net).address ?? "";
      for (const message of MESSAGES) {
        const signature = Signer.sign(uncompressedWif(key, net), address, message);
        expect(verifyMessageSignature({ address, message, signature, network })).toEqual({
          ok: true,
          scheme: "legacy",
        });
        expect(verifyMessageSignature({ address, message: `${message}.`, signature }).ok).toBe(false);
      }
    });
  }
});

describe("signatures we accept -> bip322-js Verifier", () => {
  const vectors = [
    [
      "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
      "Hello World",
      "AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=",
    ],
    [
      "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
      "",
      "AkcwRAIgM2gBAQqvZX15ZiysmKmQpDrG83avLIT492QBzLnQIxYCIBaTpOaD20qRlEylyxFSeEA2ba9YOixpX8z46TSDtS40ASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=",
    ],
    [
      "bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3",
      "Hello World",
      "AUHd69PrJQEv+oKTfZ8l+WROBHuy9HKrbFCJu7U1iK2iiEy1vMU5EfMtjc+VSHM7aU0SDbak5IUZRVno2P5mjSafAQ==",
    ],
    [tv21.input.address, tv21.input.message, tv21.input.signature],
    [tv22.input.address, tv22.input.message, tv22.input.signature],
  ] as const;

  it.each(vectors)("vector for %s", (address, message, signature) => {
    expect(verifyMessageSignature({ address, message, signature })).toEqual({ ok: true, scheme: "bip322" });
    expect(bip322jsAccepts(address, message, signature)).toBe(true);
    expect(verifyMessageSignature({ address, message: `${message}!`, signature }).ok).toBe(false);
    expect(bip322jsAccepts(address, `${message}!`, signature)).toBe(false);
  });

  it.each(["p2wpkh", "p2sh-p2wpkh", "p2tr"] as const)("fresh %s proofs signed by btc-signer", (kind) => {
    const key = randomKey();
    for (const message of MESSAGES) {
      const { address, signature } = btcSignerSimpleProof(kind, key, message);
      expect(verifyMessageSignature({ address, message, signature })).toEqual({ ok: true, scheme: "bip322" });
      expect(bip322jsAccepts(address, message, signature)).toBe(true);
      expect(verifyMessageSignature({ address, message: `${message}x`, signature }).ok).toBe(false);
      expect(bip322jsAccepts(address, `${message}x`, signature)).toBe(false);
    }
  });
});

describe("the verifier's warm-up signatures (shared/bitcoin/warm-up.ts)", () => {
  it.each(WARM_UP_SIGNATURES)("$kind: bip322-js finds it valid too", ({ address, signature }) => {
    expect(Verifier.verifySignature(address, WARM_UP_MESSAGE, signature)).toBe(true);
  });

  it.each(["auth", "fleet", "verify"])("the %s worker's entry runs the warm-up at global scope", (worker) => {
    const entry = readFileSync(new URL(`../../workers/${worker}/src/index.ts`, import.meta.url), "utf8");
    expect(entry).toMatch(/^warmVerifier\(\);$/m);
  });
});
