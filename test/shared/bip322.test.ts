// verifyMessageSignature: BIP-322 known answers, full-format proofs, ECDSA/Schnorr strictness,
// legacy BIP-137 policy and the malformed-input reasons. Proofs are signed with @scure/btc-signer's
// Transaction signer (independent of the verifier's code path) unless a case needs a hand-made one.
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { base64, hex } from "@scure/base";
import {
  NETWORK,
  p2pkh,
  p2sh,
  p2tr,
  p2wpkh,
  p2wsh,
  RawTx,
  RawWitness,
  SigHash,
  TEST_NETWORK,
  Transaction,
  WIF,
} from "@scure/btc-signer";
import { describe, expect, it } from "vitest";
import { decodeAddress } from "../../shared/bitcoin/address";
import { bip322MessageHash, buildToSignTx, buildToSpendTx, verifyMessageSignature } from "../../shared/bitcoin/bip322";
import { legacySighash, SIMPLE_TO_SIGN, toSpendHash } from "../../shared/bitcoin/bip322-sighash";
import { legacyMessageHash } from "../../shared/bitcoin/legacy";

const N = secp256k1.Point.Fn.ORDER;
const VECTOR_ADDRESS = "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l";
const VECTOR_KEY = WIF().decode("L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k");
const SIG_HELLO =
  "AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=";
const SIG_EMPTY =
  "AkcwRAIgM2gBAQqvZX15ZiysmKmQpDrG83avLIT492QBzLnQIxYCIBaTpOaD20qRlEylyxFSeEA2ba9YOixpX8z46TSDtS40ASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=";
// The BIP also lists non-low-R variants (72-byte DER with a 0x00-padded r).
const SIG_HELLO_HIGH_R =
  "AkgwRQIhAOzyynlqt93lOKJr+wmmxIens//zPzl9tqIOua93wO6MAiBi5n5EyAcPScOjf1lAqIUIQtr3zKNeavYabHyR8eGhowEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy";
const SIG_EMPTY_HIGH_R =
  "AkgwRQIhAPkJ1Q4oYS0htvyuSFHLxRQpFAY56b70UvE7Dxazen0ZAiAtZfFz1S6T6I23MWI2lK/pcNTWncuyL8UL+oMdydVgzAEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy";
const OK_BIP322 = { ok: true, scheme: "bip322" };
const OK_LEGACY = { ok: true, scheme: "legacy" };
const fail = (reason: string) => ({ ok: false, reason });

type Kind = "p2pkh" | "p2wpkh" | "p2sh-p2wpkh" | "p2tr";
interface SignOptions {
  version?: number;
  lockTime?: number;
  sequence?: number;
  sighash?: number;
  network?: typeof NETWORK;
}

function payment(kind: Kind, key: Uint8Array, network = NETWORK) {
  const pub = secp256k1.getPublicKey(key, true);
  if (kind === "p2pkh") return p2pkh(pub, network);
  if (kind === "p2wpkh") return p2wpkh(pub, network);
  if (kind === "p2sh-p2wpkh") return p2sh(p2wpkh(pub, network), network);
  return p2tr(schnorr.getPublicKey(key), undefined, network);
}

/** Signs to_sign with btc-signer and returns the finalized transaction and the address. */
function signProof(kind: Kind, key: Uint8Array, message: string, opts: SignOptions = {}) {
  const pay = payment(kind, key, opts.network);
  const toSpend = buildToSpendTx(pay.script, message);
  const tx = new Transaction({
    version: opts.version ?? 0,
    lockTime: opts.lockTime ?? 0,
    allowUnknownOutputs: true,
    allowUnknownVersion: true,
  });
  tx.addInput({
    txid: toSpend.txid,
    index: 0,
    sequence: opts.sequence ?? 0,
    ...(kind === "p2pkh" ? { nonWitnessUtxo: toSpend.raw } : { witnessUtxo: { script: pay.script, amount: 0n } }),
    ...("redeemScript" in pay && pay.redeemScript ? { redeemScript: pay.redeemScript } : {}),
    ...("tapInternalKey" in pay ? { tapInternalKey: pay.tapInternalKey } : {}),
    ...(opts.sighash !== undefined ? { sighashType: opts.sighash } : {}),
  });
  tx.addOutput({ script: Uint8Array.of(0x6a), amount: 0n });
  tx.sign(key, opts.sighash !== undefined ? [opts.sighash] : undefined);
  tx.finalize();
  return { tx, address: pay.address ?? "" };
}

const fullProof = (tx: Transaction) => base64.encode(tx.extract());
function simpleProof(tx: Transaction): string {
  const witness = tx.getInput(0).finalScriptWitness;
  if (!witness) throw new Error("no witness");
  return base64.encode(RawWitness.encode(witness));
}
const witnessOf = (signature: string) => RawWitness.decode(base64.decode(signature));
const encodeWitness = (items: Uint8Array[]) => base64.encode(RawWitness.encode(items));
const verify = (address: string, message: string, signature: string, extra = {}) =>
  verifyMessageSignature({ address, message, signature, ...extra });

/** Sighash the BIP vector's witness signature commits to. */
function vectorSighash(message: string): Uint8Array {
  const address = decodeAddress(VECTOR_ADDRESS);
  if (!address.ok) throw new Error("vector address");
  const toSpend = buildToSpendTx(address.script, message);
  const scriptCode = p2pkh(secp256k1.getPublicKey(VECTOR_KEY)).script;
  return buildToSignTx(toSpend.txid).preimageWitnessV0(0, scriptCode, SigHash.ALL, 0n);
}

/** Replaces the DER signature of the vector's witness, keeping its pubkey. */
function withDer(der: Uint8Array, hashType = 0x01): string {
  const [, pubkey] = witnessOf(SIG_HELLO);
  if (!pubkey) throw new Error("pubkey");
  return encodeWitness([Uint8Array.of(...der, hashType), pubkey]);
}

describe("BIP-322 known answers", () => {
  it("tagged message hashes", () => {
    expect(hex.encode(bip322MessageHash(""))).toBe("c90c269c4f8fcbe6880f72a721ddfbf1914268a794cbb21cfafee13770ae19f1");
    expect(hex.encode(bip322MessageHash("Hello World"))).toBe(
      "f0eb03b1a75ac6d9847f55c624a99169b5dccba2a31f5b23bea77ba270de0a7a",
    );
  });

  it.each([
    [
      "",
      "c5680aa69bb8d860bf82d4e9cd3504b55dde018de765a91bb566283c545a99a7",
      "1e9654e951a5ba44c8604c4de6c67fd78a27e81dcadcfe1edf638ba3aaebaed6",
    ],
    [
      "Hello World",
      "b79d196740ad5217771c1098fc4a4b51e0535c32236c71f1ea4d61a2d603352b",
      "88737ae86f2077145f93cc4b153ae9a1cb8d56afa511988c149c5c8c9d93bddf",
    ],
  ])("to_spend / to_sign txids for %j", (message, toSpendId, toSignId) => {
    const address = decodeAddress(VECTOR_ADDRESS);
    if (!address.ok) throw new Error("vector address");
    const toSpend = buildToSpendTx(address.script, message);
    expect(hex.encode(toSpend.txid)).toBe(toSpendId);
    // The verifier's own hash of to_spend is the same txid in internal byte order.
    expect(hex.encode(toSpendHash(address.script, message).reverse())).toBe(toSpendId);
    expect(buildToSignTx(toSpend.txid).id).toBe(toSignId);
  });

  it.each([
    ["Hello World", SIG_HELLO],
    ["", SIG_EMPTY],
    ["Hello World", SIG_HELLO_HIGH_R],
    ["", SIG_EMPTY_HIGH_R],
  ])("P2WPKH vector %j verifies", (message, signature) => {
    expect(verify(VECTOR_ADDRESS, message, signature)).toEqual(OK_BIP322);
  });

  it("P2TR vector (BIP-322 'Hello World', SIGHASH_ALL) verifies", () => {
    const signature = "AUHd69PrJQEv+oKTfZ8l+WROBHuy9HKrbFCJu7U1iK2iiEy1vMU5EfMtjc+VSHM7aU0SDbak5IUZRVno2P5mjSafAQ==";
    const address = "bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3";
    expect(verify(address, "Hello World", signature)).toEqual(OK_BIP322);
    expect(verify(address, "Hello World!", signature)).toEqual(fail("sig_invalid"));
  });

  it("rejects the vector signature for another message, and swapped signatures", () => {
    expect(verify(VECTOR_ADDRESS, "Hello World!", SIG_HELLO)).toEqual(fail("sig_invalid"));
    expect(verify(VECTOR_ADDRESS, "", SIG_HELLO)).toEqual(fail("sig_invalid"));
    expect(verify(VECTOR_ADDRESS, "Hello World", SIG_EMPTY)).toEqual(fail("sig_invalid"));
  });

  it("accepts a hex-encoded signature (as the OrangeCheck SDK sends)", () => {
    const asHex = hex.encode(base64.decode(SIG_HELLO));
    expect(verify(VECTOR_ADDRESS, "Hello World", asHex)).toEqual(OK_BIP322);
    expect(verify(VECTOR_ADDRESS, "Hello World", asHex.toUpperCase())).toEqual(OK_BIP322);
  });
});

describe("noble v2 misuse guard", () => {
  it("the vector only verifies with prehash: false", () => {
    const [sig] = witnessOf(SIG_HELLO);
    const pubkey = secp256k1.getPublicKey(VECTOR_KEY);
    if (!sig) throw new Error("sig");
    const der = sig.subarray(0, -1);
    const sighash = vectorSighash("Hello World");
    // Default options hash the sighash once more (prehash: true) and must fail.
    expect(secp256k1.verify(der, sighash, pubkey, { format: "der" })).toBe(false);
    expect(secp256k1.verify(der, sighash, pubkey, { format: "der", prehash: false })).toBe(true);
  });
});

describe("ECDSA strictness (BIP-322 required rules)", () => {
  const [vectorSig] = witnessOf(SIG_HELLO);
  if (!vectorSig) throw new Error("sig");
  const parsed = secp256k1.Signature.fromBytes(vectorSig.subarray(0, -1), "der");

  it("rejects the high-S twin of a valid signature", () => {
    const highS = new secp256k1.Signature(parsed.r, N - parsed.s);
    const pubkey = secp256k1.getPublicKey(VECTOR_KEY);
    // The twin is a mathematically valid signature: only the low-S rule rejects it.
    const ok = secp256k1.verify(highS.toBytes("compact"), vectorSighash("Hello World"), pubkey, {
      prehash: false,
      lowS: false,
    });
    expect(ok).toBe(true);
    expect(verify(VECTOR_ADDRESS, "Hello World", withDer(highS.toBytes("der")))).toEqual(fail("sig_invalid"));
  });

  it.each([
    ["NONE", SigHash.NONE],
    ["SINGLE", SigHash.SINGLE],
    ["ALL|ANYONECANPAY", SigHash.ALL_ANYONECANPAY],
  ])("rejects a properly signed SIGHASH_%s proof", (_name, sighash) => {
    for (const kind of ["p2wpkh", "p2sh-p2wpkh", "p2pkh"] as const) {
      const { tx, address } = signProof(kind, VECTOR_KEY, "Hello World", { sighash });
      const proof = kind === "p2pkh" ? fullProof(tx) : simpleProof(tx);
      expect(verify(address, "Hello World", proof)).toEqual(fail("sig_invalid"));
    }
  });

  it("rejects the vector with its sighash byte changed to 0x02, 0x03 or 0x81", () => {
    for (const hashType of [0x02, 0x03, 0x81, 0x00]) {
      expect(verify(VECTOR_ADDRESS, "Hello World", withDer(parsed.toBytes("der"), hashType))).toEqual(
        fail("sig_invalid"),
      );
    }
  });

  it("rejects r = 0, s = 0, r = n and s = n", () => {
    const cases = [
      hex.decode("3006020100020101"),
      hex.decode("3006020101020100"),
      hex.decode(`3026022100${N.toString(16)}020101`),
      hex.decode(`3026020101022100${N.toString(16)}`),
    ];
    for (const der of cases) {
      expect(verify(VECTOR_ADDRESS, "Hello World", withDer(der))).toEqual(fail("sig_invalid"));
    }
  });

  it("rejects non-strict DER encodings of a valid signature", () => {
    const der = parsed.toBytes("der");
    const lenR = der[3] ?? 0;
    const r = der.subarray(4, 4 + lenR);
    const rest = der.subarray(4 + lenR);
    const variants = [
      // r padded with a superfluous 0x00
      Uint8Array.of(0x30, (der[1] ?? 0) + 1, 0x02, lenR + 1, 0x00, ...r, ...rest),
      // BER long-form sequence length
      Uint8Array.of(0x30, 0x81, ...der.subarray(1)),
      // wrong sequence length
      Uint8Array.of(0x30, (der[1] ?? 0) + 1, ...der.subarray(2)),
      // trailing garbage inside the signature
      Uint8Array.of(...der, 0x00),
      // wrong integer tag
      Uint8Array.of(0x30, der[1] ?? 0, 0x03, ...der.subarray(3)),
    ];
    for (const variant of variants) {
      expect(verify(VECTOR_ADDRESS, "Hello World", withDer(variant))).toEqual(fail("sig_invalid"));
    }
  });

  it("requires the witness pubkey to match the address and the stack to have exactly 2 items", () => {
    const [sig, pubkey] = witnessOf(SIG_HELLO);
    if (!sig || !pubkey) throw new Error("witness");
    const otherKey = secp256k1.getPublicKey(hex.decode("22".repeat(32)));
    expect(verify(VECTOR_ADDRESS, "Hello World", encodeWitness([sig, otherKey]))).toEqual(fail("sig_invalid"));
    expect(verify(VECTOR_ADDRESS, "Hello World", encodeWitness([sig, pubkey, pubkey]))).toEqual(fail("sig_invalid"));
    expect(verify(VECTOR_ADDRESS, "Hello World", encodeWitness([sig]))).toEqual(fail("sig_invalid"));
    expect(verify(VECTOR_ADDRESS, "Hello World", encodeWitness([]))).toEqual(fail("sig_invalid"));
  });
});

describe("simple and full formats for every supported type", () => {
  const key = hex.decode("0f".repeat(32));
  const kinds = ["p2wpkh", "p2sh-p2wpkh", "p2tr"] as const;

  it.each(kinds)("%s simple and full proofs verify", (kind) => {
    const { tx, address } = signProof(kind, key, "msg");
    expect(verify(address, "msg", simpleProof(tx))).toEqual(OK_BIP322);
    expect(verify(address, "msg", fullProof(tx))).toEqual(OK_BIP322);
    expect(verify(address, "msg2", simpleProof(tx))).toEqual(fail("sig_invalid"));
    expect(verify(address, "msg2", fullProof(tx))).toEqual(fail("sig_invalid"));
  });

  it("P2PKH full proofs verify (version 0 and 2); a witness-only proof does not", () => {
    for (const version of [0, 2]) {
      const { tx, address } = signProof("p2pkh", key, "msg", { version });
      expect(verify(address, "msg", fullProof(tx))).toEqual(OK_BIP322);
      expect(verify(address, "msg!", fullProof(tx))).toEqual(fail("sig_invalid"));
    }
    const { address } = signProof("p2pkh", key, "msg");
    expect(verify(address, "msg", SIG_HELLO)).toEqual(fail("sig_invalid"));
  });

  it("P2PKH full proof with an uncompressed key", () => {
    const pubkey = secp256k1.getPublicKey(key, false);
    const pay = p2pkh(pubkey);
    const toSpend = buildToSpendTx(pay.script, "msg");
    const sighash = legacySighash(toSpendHash(pay.script, "msg"), SIMPLE_TO_SIGN, pay.script);
    const der = secp256k1.sign(sighash, key, { prehash: false, format: "der" });
    const scriptSig = Uint8Array.of(der.length + 1, ...der, 0x01, pubkey.length, ...pubkey);
    const raw = RawTx.encode({
      version: 0,
      segwitFlag: false,
      inputs: [{ txid: toSpend.txid, index: 0, finalScriptSig: scriptSig, sequence: 0 }],
      outputs: [{ amount: 0n, script: Uint8Array.of(0x6a) }],
      lockTime: 0,
    });
    expect(verify(pay.address ?? "", "msg", base64.encode(raw))).toEqual(OK_BIP322);
    // Same key, compressed-key address: hash160 differs.
    expect(verify(payment("p2pkh", key).address ?? "", "msg", base64.encode(raw))).toEqual(fail("sig_invalid"));
  });

  it.each(["p2pkh", "p2wpkh", "p2tr"] as const)("%s: time locks and odd versions are inconclusive", (kind) => {
    for (const opts of [{ lockTime: 1 }, { sequence: 1 }, { sequence: 0xffffffff }, { version: 1 }, { version: 3 }]) {
      const { tx, address } = signProof(kind, key, "msg", opts);
      expect(verify(address, "msg", fullProof(tx))).toEqual(fail("inconclusive"));
    }
    // Invalid signatures stay invalid whatever the upgradeable fields say.
    const { tx, address } = signProof(kind, key, "msg", { version: 1 });
    expect(verify(address, "other", fullProof(tx))).toEqual(fail("sig_invalid"));
  });

  it("checks the full to_sign's shape", () => {
    const { tx, address } = signProof("p2wpkh", key, "msg");
    const raw = RawTx.decode(tx.extract());
    const reencode = (patch: Partial<typeof raw>) => base64.encode(RawTx.encode({ ...raw, ...patch }));
    const input = raw.inputs[0];
    if (!input) throw new Error("input");
    expect(reencode({})).toBe(fullProof(tx));
    expect(verify(address, "msg", reencode({ outputs: [{ amount: 1n, script: Uint8Array.of(0x6a) }] }))).toEqual(
      fail("sig_invalid"),
    );
    expect(verify(address, "msg", reencode({ outputs: [{ amount: 0n, script: Uint8Array.of(0x51) }] }))).toEqual(
      fail("sig_invalid"),
    );
    expect(verify(address, "msg", reencode({ inputs: [{ ...input, index: 1 }] }))).toEqual(fail("sig_invalid"));
    expect(
      verify(
        address,
        "msg",
        reencode({ inputs: [input, { ...input, index: 1 }], witnesses: [raw.witnesses?.[0] ?? [], []] }),
      ),
    ).toEqual(fail("inconclusive"));
    expect(verify(address, "msg", reencode({ inputs: [{ ...input, finalScriptSig: Uint8Array.of(0x51) }] }))).toEqual(
      fail("sig_invalid"),
    );
  });
});

describe("taproot key path", () => {
  const key = hex.decode("1f".repeat(32));

  it("accepts 64-byte SIGHASH_DEFAULT and 65-byte SIGHASH_ALL signatures only", () => {
    const dflt = signProof("p2tr", key, "msg");
    const [sig64] = witnessOf(simpleProof(dflt.tx));
    expect(sig64?.length).toBe(64);
    expect(verify(dflt.address, "msg", simpleProof(dflt.tx))).toEqual(OK_BIP322);
    const all = signProof("p2tr", key, "msg", { sighash: SigHash.ALL });
    expect(verify(all.address, "msg", simpleProof(all.tx))).toEqual(OK_BIP322);
    if (!sig64) throw new Error("sig");
    // An explicit 0x00 hash type byte is invalid under BIP-341, and so is any other length.
    expect(verify(dflt.address, "msg", encodeWitness([Uint8Array.of(...sig64, 0x00)]))).toEqual(fail("sig_invalid"));
    expect(verify(dflt.address, "msg", encodeWitness([sig64.subarray(0, 63)]))).toEqual(fail("sig_invalid"));
    for (const sighash of [SigHash.NONE, SigHash.SINGLE, SigHash.ALL_ANYONECANPAY]) {
      const other = signProof("p2tr", key, "msg", { sighash });
      expect(verify(other.address, "msg", simpleProof(other.tx))).toEqual(fail("sig_invalid"));
    }
  });

  it("never accepts an annex or a script-path shaped witness", () => {
    const { tx, address } = signProof("p2tr", key, "msg");
    const [sig] = witnessOf(simpleProof(tx));
    if (!sig) throw new Error("sig");
    const annex = Uint8Array.of(0x50, 0x01);
    const controlBlock = Uint8Array.of(0xc0, ...schnorr.getPublicKey(key));
    expect(verify(address, "msg", encodeWitness([sig, annex]))).toEqual(fail("inconclusive"));
    expect(verify(address, "msg", encodeWitness([sig, Uint8Array.of(0x51), controlBlock]))).toEqual(
      fail("inconclusive"),
    );
  });

  it("rejects a signature by the untweaked internal key", () => {
    const { address } = signProof("p2tr", key, "msg");
    const decoded = decodeAddress(address);
    if (!decoded.ok) throw new Error("address");
    const toSpend = buildToSpendTx(decoded.script, "msg");
    const sighash = buildToSignTx(toSpend.txid).preimageWitnessV1(0, [decoded.script], SigHash.DEFAULT, [0n]);
    const untweaked = schnorr.sign(sighash, key);
    expect(verify(address, "msg", encodeWitness([untweaked]))).toEqual(fail("sig_invalid"));
  });
});

describe("legacy BIP-137", () => {
  const key = hex.decode("2f".repeat(32));
  function legacySign(message: string, compressed: boolean, headerBase = compressed ? 31 : 27): string {
    const sig = secp256k1.sign(legacyMessageHash(message), key, { prehash: false, format: "recovered" });
    return base64.encode(Uint8Array.of(headerBase + (sig[0] ?? 0), ...sig.subarray(1)));
  }
  const compressedAddress = p2pkh(secp256k1.getPublicKey(key, true)).address ?? "";
  const uncompressedAddress = p2pkh(secp256k1.getPublicKey(key, false)).address ?? "";

  it("verifies compressed and uncompressed P2PKH signatures", () => {
    expect(verify(compressedAddress, "hi", legacySign("hi", true))).toEqual(OK_LEGACY);
    expect(verify(uncompressedAddress, "hi", legacySign("hi", false))).toEqual(OK_LEGACY);
    expect(verify(compressedAddress, "hi", legacySign("hi", true), { scheme: "legacy" })).toEqual(OK_LEGACY);
    expect(verify(compressedAddress, "hi", legacySign("hi", true), { scheme: "bip322" })).toEqual(OK_LEGACY);
    expect(verify(compressedAddress, "ho", legacySign("hi", true))).toEqual(fail("sig_invalid"));
  });

  it("binds the header's compression flag and rejects segwit header flags for P2PKH", () => {
    expect(verify(compressedAddress, "hi", legacySign("hi", true, 27))).toEqual(fail("sig_invalid"));
    expect(verify(uncompressedAddress, "hi", legacySign("hi", false, 31))).toEqual(fail("sig_invalid"));
    expect(verify(compressedAddress, "hi", legacySign("hi", true, 35))).toEqual(fail("sig_invalid"));
    expect(verify(compressedAddress, "hi", legacySign("hi", true, 39))).toEqual(fail("sig_invalid"));
  });

  it("refuses legacy signatures for every non-P2PKH address", () => {
    for (const kind of ["p2wpkh", "p2sh-p2wpkh", "p2tr"] as const) {
      const address = payment(kind, key).address ?? "";
      expect(verify(address, "hi", legacySign("hi", true))).toEqual(fail("sig_unsupported_script"));
      expect(verify(address, "hi", legacySign("hi", true, 39))).toEqual(fail("sig_unsupported_script"));
      expect(verify(address, "hi", "x", { scheme: "legacy" })).toEqual(fail("sig_unsupported_script"));
    }
  });

  it("scheme legacy with a BIP-322 proof is a malformed signature", () => {
    const { tx, address } = signProof("p2pkh", key, "hi");
    expect(verify(address, "hi", fullProof(tx), { scheme: "legacy" })).toEqual(fail("malformed_signature"));
    expect(verify(address, "hi", fullProof(tx))).toEqual(OK_BIP322);
  });
});

describe("addresses and networks", () => {
  it("network mismatch", () => {
    const key = hex.decode("3f".repeat(32));
    const { tx, address } = signProof("p2wpkh", key, "msg", { network: TEST_NETWORK });
    expect(verify(address, "msg", simpleProof(tx), { network: "mainnet" })).toEqual(fail("network_mismatch"));
    expect(verify(address, "msg", simpleProof(tx), { network: "testnet" })).toEqual(OK_BIP322);
    expect(verify(VECTOR_ADDRESS, "Hello World", SIG_HELLO, { network: "testnet" })).toEqual(fail("network_mismatch"));
    expect(verify(VECTOR_ADDRESS, "Hello World", SIG_HELLO, { network: "regtest" })).toEqual(fail("network_mismatch"));
    expect(verify(VECTOR_ADDRESS, "Hello World", SIG_HELLO, { network: "mainnet" })).toEqual(OK_BIP322);
  });

  it("malformed and bad-checksum addresses", () => {
    for (const address of [
      "",
      "bc1qnotanaddress",
      "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0m",
      "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3",
    ]) {
      expect(verify(address, "Hello World", SIG_HELLO)).toEqual(fail("malformed_address"));
    }
  });

  it("P2WSH and segwit v2+ addresses are unsupported", () => {
    const wsh = p2wsh(p2pkh(secp256k1.getPublicKey(VECTOR_KEY))).address ?? "";
    expect(verify(wsh, "Hello World", SIG_HELLO)).toEqual(fail("unsupported_address"));
    expect(verify("bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "Hello World", SIG_HELLO)).toEqual(
      fail("unsupported_address"),
    );
    expect(
      verify("bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", "x", SIG_HELLO),
    ).toEqual(fail("unsupported_address"));
  });
});

describe("malformed signatures", () => {
  it.each([
    ["empty", ""],
    ["garbage", "this is not a signature"],
    ["non-base64 characters", "AkcwRAIg$$$$"],
    ["truncated base64 (bad length)", SIG_HELLO.slice(0, -1)],
    ["truncated witness", SIG_HELLO.slice(0, 40)],
    ["odd-length hex", "abc"],
    ["base64url alphabet", SIG_HELLO.replaceAll("/", "_")],
    ["oversized", "A".repeat(10_000)],
  ])("%s", (_label, signature) => {
    expect(verify(VECTOR_ADDRESS, "Hello World", signature)).toEqual(fail("malformed_signature"));
  });

  it("never throws on hostile runtime input", () => {
    const hostile = [
      { address: undefined, message: "m", signature: SIG_HELLO },
      { address: VECTOR_ADDRESS, message: undefined, signature: SIG_HELLO },
      { address: VECTOR_ADDRESS, message: "m", signature: null },
      { address: 42, message: {}, signature: [] },
    ];
    for (const input of hostile) {
      const verdict = verifyMessageSignature(input as unknown as Parameters<typeof verifyMessageSignature>[0]);
      expect(verdict.ok).toBe(false);
    }
  });
});
