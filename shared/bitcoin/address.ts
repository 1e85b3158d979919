// Bitcoin address decoding (base58check P2PKH/P2SH, BIP-173 bech32 and BIP-350 bech32m segwit)
// into type, network and scriptPubKey. Returns a result object; never throws for bad input.

import { bech32, bech32m, createBase58check } from "@scure/base";
import { sha256 } from "./hash";

export type AddressType = "p2pkh" | "p2sh" | "p2wpkh" | "p2wsh" | "p2tr" | "witness_unknown";
export type BitcoinNetwork = "mainnet" | "testnet" | "regtest";

export interface DecodedAddress {
  type: AddressType;
  /** Signet shares testnet's prefixes and is reported as "testnet". */
  network: BitcoinNetwork;
  encoding: "base58" | "bech32" | "bech32m";
  /** The address's scriptPubKey. */
  script: Uint8Array;
  /** hash160 for p2pkh/p2sh; the witness program for segwit addresses. */
  program: Uint8Array;
  /** Segwit version, or null for base58 addresses. */
  witnessVersion: number | null;
}

export type DecodeAddressResult = ({ ok: true } & DecodedAddress) | { ok: false; reason: "malformed_address" };

const MALFORMED = { ok: false, reason: "malformed_address" } as const;
// Longest valid address is a 90-char bech32 string; the cap also bounds base58's quadratic decode.
const MAX_ADDRESS_LENGTH = 90;

const BECH32_HRP = new Map<string, BitcoinNetwork>([
  ["bc", "mainnet"],
  ["tb", "testnet"],
  ["bcrt", "regtest"],
]);

// Regtest uses testnet's base58 version bytes, so base58 test addresses report "testnet".
const BASE58_VERSIONS = new Map<number, { type: "p2pkh" | "p2sh"; network: BitcoinNetwork }>([
  [0x00, { type: "p2pkh", network: "mainnet" }],
  [0x05, { type: "p2sh", network: "mainnet" }],
  [0x6f, { type: "p2pkh", network: "testnet" }],
  [0xc4, { type: "p2sh", network: "testnet" }],
]);

/** A BECH32_HRP then the separator, in either case. */
const SEGWIT_PREFIX = /^(bc|tb|bcrt)1/i;

// Through hash.ts's sha256 on each call (not a reference taken now): libsecp256k1's once the module is up.
const base58check = createBase58check((data: Uint8Array) => sha256(data));

export function decodeAddress(address: string): DecodeAddressResult {
  if (typeof address !== "string" || address.length === 0 || address.length > MAX_ADDRESS_LENGTH) {
    return MALFORMED;
  }
  const looksSegwit = SEGWIT_PREFIX.test(address);
  try {
    return looksSegwit ? decodeSegwit(address) : decodeBase58(address);
  } catch {
    return MALFORMED;
  }
}

/**
 * True when the address is usable on `network`. Base58 test addresses are shared by testnet,
 * signet and regtest, so they also match "regtest"; bech32 HRPs must match exactly.
 */
export function isAddressOnNetwork(address: DecodedAddress, network: BitcoinNetwork): boolean {
  if (address.network === network) return true;
  return network === "regtest" && address.encoding === "base58" && address.network === "testnet";
}

function decodeBase58(address: string): DecodeAddressResult {
  const payload = base58check.decode(address);
  if (payload.length !== 21) return MALFORMED;
  const kind = BASE58_VERSIONS.get(payload[0] ?? -1);
  if (!kind) return MALFORMED;
  const hash = payload.slice(1);
  // OP_DUP OP_HASH160 PUSH20 OP_EQUALVERIFY OP_CHECKSIG, or OP_HASH160 PUSH20 OP_EQUAL (built directly: scure's
  // general script coder costs milliseconds of first-use compilation in a fresh isolate).
  const script =
    kind.type === "p2pkh"
      ? Uint8Array.of(0x76, 0xa9, 0x14, ...hash, 0x88, 0xac)
      : Uint8Array.of(0xa9, 0x14, ...hash, 0x87);
  return { ok: true, ...kind, encoding: "base58", script, program: hash, witnessVersion: null };
}

function decodeSegwit(address: string): DecodeAddressResult {
  const asBech32 = bech32.decodeUnsafe(address);
  const asBech32m = asBech32 ? undefined : bech32m.decodeUnsafe(address);
  const decoded = asBech32 ?? asBech32m;
  if (!decoded) return MALFORMED;
  const network = BECH32_HRP.get(decoded.prefix);
  const [version, ...data] = decoded.words;
  if (!network || version === undefined || version > 16) return MALFORMED;
  // BIP-350: v0 must use the bech32 checksum, v1+ must use bech32m.
  if ((version === 0) !== (asBech32 !== undefined)) return MALFORMED;
  const program = bech32.fromWordsUnsafe(data);
  if (!program || program.length < 2 || program.length > 40) return MALFORMED;
  if (version === 0 && program.length !== 20 && program.length !== 32) return MALFORMED;
  return {
    ok: true,
    type: segwitType(version, program.length),
    network,
    encoding: asBech32 ? "bech32" : "bech32m",
    script: witnessScript(version, program),
    program,
    witnessVersion: version,
  };
}

function segwitType(version: number, programLength: number): AddressType {
  if (version === 0) return programLength === 20 ? "p2wpkh" : "p2wsh";
  if (version === 1 && programLength === 32) return "p2tr";
  return "witness_unknown";
}

/** scriptPubKey of a witness output: OP_0 or OP_1..OP_16, then a direct push of the program. */
function witnessScript(version: number, program: Uint8Array): Uint8Array {
  const opcode = version === 0 ? 0x00 : 0x50 + version;
  return Uint8Array.of(opcode, program.length, ...program);
}
