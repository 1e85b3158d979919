// Address decoding: BIP-173/BIP-350 vectors, base58check, networks and the malformed cases.
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, bech32m, createBase58check, hex } from "@scure/base";
import { NETWORK, p2pkh, p2sh, p2tr, p2wpkh, p2wsh, TEST_NETWORK } from "@scure/btc-signer";
import { describe, expect, it } from "vitest";
import { decodeAddress, isAddressOnNetwork } from "../../shared/bitcoin/address";

const PROGRAM_20 = "751e76e8199196d454941c45d1b3a323f1433bd6";

function decoded(address: string) {
  const result = decodeAddress(address);
  if (!result.ok) throw new Error(`expected ${address} to decode`);
  return { ...result, script: hex.encode(result.script), program: hex.encode(result.program) };
}

function segwit(hrp: string, version: number, program: Uint8Array, variant = version === 0 ? bech32 : bech32m) {
  return variant.encode(hrp, [version, ...bech32.toWords(program)]);
}

describe("decodeAddress: BIP-173 / BIP-350 valid vectors", () => {
  it.each([
    ["BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "p2wpkh", "mainnet", `0014${PROGRAM_20}`],
    [
      "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
      "p2wsh",
      "testnet",
      "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262",
    ],
    [
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
      "p2tr",
      "mainnet",
      "512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
    ],
    [
      "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
      "p2tr",
      "testnet",
      "5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433",
    ],
    [
      "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",
      "witness_unknown",
      "mainnet",
      `5128${PROGRAM_20}${PROGRAM_20}`,
    ],
    ["BC1SW50QGDZ25J", "witness_unknown", "mainnet", "6002751e"],
    ["bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "witness_unknown", "mainnet", "5210751e76e8199196d454941c45d1b3a323"],
  ])("%s", (address, type, network, script) => {
    expect(decoded(address)).toMatchObject({ type, network, script });
  });

  it("reports regtest for bcrt1 addresses", () => {
    const address = segwit("bcrt", 0, hex.decode(PROGRAM_20));
    expect(decoded(address)).toMatchObject({ type: "p2wpkh", network: "regtest", program: PROGRAM_20 });
  });
});

describe("decodeAddress: base58check", () => {
  it.each([
    ["1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "p2pkh", "mainnet"],
    ["3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", "p2sh", "mainnet"],
    ["mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", "p2pkh", "testnet"],
    ["2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc", "p2sh", "testnet"],
  ])("%s is %s on %s", (address, type, network) => {
    expect(decoded(address)).toMatchObject({ type, network, witnessVersion: null });
  });
});

describe("decodeAddress agrees with @scure/btc-signer's encoders", () => {
  const pub = secp256k1.getPublicKey(hex.decode("11".repeat(32)), true);
  const xonly = schnorr.getPublicKey(hex.decode("11".repeat(32)));
  for (const [label, net] of [
    ["mainnet", NETWORK],
    ["testnet", TEST_NETWORK],
  ] as const) {
    it.each([
      ["p2pkh", p2pkh(pub, net)],
      ["p2sh", p2sh(p2wpkh(pub), net)],
      ["p2wpkh", p2wpkh(pub, net)],
      ["p2wsh", p2wsh(p2pkh(pub), net)],
      ["p2tr", p2tr(xonly, undefined, net)],
    ])(`${label} %s`, (type, payment) => {
      if (!payment.address) throw new Error("no address");
      expect(decoded(payment.address)).toMatchObject({ type, network: label, script: hex.encode(payment.script) });
    });
  }
});

describe("decodeAddress: malformed input", () => {
  const program32 = hex.decode("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
  it.each([
    ["empty", ""],
    ["garbage", "not an address"],
    ["base58 bad checksum", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3"],
    ["bech32 bad checksum", "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0m"],
    ["unknown hrp", "tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut"],
    ["mixed case", "bc1Q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l"],
    ["v1 with bech32 checksum", segwit("bc", 1, program32, bech32)],
    ["v0 with bech32m checksum", segwit("bc", 0, program32, bech32m)],
    ["v0 with a 16-byte program", segwit("bc", 0, program32.slice(0, 16))],
    ["v1 with a 1-byte program", segwit("bc", 1, program32.slice(0, 1))],
    ["v1 with a 41-byte program", segwit("bc", 1, new Uint8Array(41))],
    ["witness version 17", bech32m.encode("bc", [17, ...bech32.toWords(program32)])],
    ["empty data", bech32m.encode("bc", [])],
    ["non-zero padding", bech32m.encode("bc", [1, ...bech32.toWords(program32).slice(0, -1), 1])],
    ["surrounding whitespace", " bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l"],
    ["too long", `1${"1".repeat(200)}`],
  ])("%s", (_label, address) => {
    expect(decodeAddress(address)).toEqual({ ok: false, reason: "malformed_address" });
  });

  it("rejects a base58 payload with an unknown version byte or wrong length", () => {
    const b58 = createBase58check(sha256);
    const hash = hex.decode(PROGRAM_20);
    expect(decodeAddress(b58.encode(Uint8Array.of(0x00, ...hash))).ok).toBe(true);
    // Litecoin's P2PKH version byte (0x30), a 20-byte and a 22-byte payload.
    expect(decodeAddress(b58.encode(Uint8Array.of(0x30, ...hash))).ok).toBe(false);
    expect(decodeAddress(b58.encode(hash)).ok).toBe(false);
    expect(decodeAddress(b58.encode(Uint8Array.of(0x00, ...hash, 0x00))).ok).toBe(false);
  });
});

describe("isAddressOnNetwork", () => {
  const on = (address: string, network: "mainnet" | "testnet" | "regtest") => {
    const result = decodeAddress(address);
    return result.ok && isAddressOnNetwork(result, network);
  };
  it("matches bech32 HRPs exactly and lets base58 test prefixes serve regtest", () => {
    expect(on("bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l", "mainnet")).toBe(true);
    expect(on("bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l", "testnet")).toBe(false);
    expect(on(segwit("bcrt", 0, hex.decode(PROGRAM_20)), "testnet")).toBe(false);
    expect(on(segwit("bcrt", 0, hex.decode(PROGRAM_20)), "regtest")).toBe(true);
    expect(on("mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", "regtest")).toBe(true);
    expect(on("mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", "mainnet")).toBe(false);
    expect(on("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "regtest")).toBe(false);
  });
});
