// OC Attest verification without I/O (oc-wire-formats §1.7), in the reference SDK's order: required fields →
// parse → id → address line → network → aud → expires → signature. The caller then fetches UTXOs and finishes.
import { base64, base64urlnopad, hex } from "@scure/base";
import { type BitcoinNetwork, decodeAddress, isAddressOnNetwork } from "../bitcoin/address";
import { verifyMessageSignature } from "../bitcoin/bip322";
import { ATTEST_HEADER } from "./canonical";
import type { AttestScheme } from "./envelope";
import { attestationId } from "./id";
import type { Identity } from "./identities";
import type { BondMetrics } from "./metrics";
import { type AttestNetwork, type ParsedAttestation, parseAttestationMessage } from "./parse";
import { scoreV0 } from "./score";

export type AttestCode =
  | "sig_ok_bip322"
  | "sig_ok_legacy"
  | "sig_invalid"
  | "sig_unsupported_script"
  | "invalid_scheme"
  | "decode_error"
  | "invalid_attestation_id"
  | "bond_confirmed"
  | "bond_zero"
  | "bond_pending"
  | "bond_insufficient"
  | "below_min_sats"
  | "below_min_days"
  | "aud_mismatch"
  | "expired"
  | "network_testmode"
  | "bad_request";

export interface PreVerifyInput {
  addr: string;
  /** The canonical text, or its base64url (padding optional). */
  msg: string;
  /** base64, or hex of even length. */
  sig: string;
  /** "bip322" | "legacy"; absent or empty → auto-detect (§1.5). */
  scheme?: string;
  claimedId?: string;
  expectedAudience?: string;
  allowTestNetworks: boolean;
  now: number;
}

export interface PreVerifyResult {
  codes: AttestCode[];
  attestationId?: string;
  /** The decoded canonical text (what was hashed and signed). */
  message?: string;
  parsed?: ParsedAttestation;
  network: AttestNetwork;
  identities: Identity[];
  signatureOk: boolean;
  /** The scheme that verified, else the one requested or detected. */
  scheme?: AttestScheme;
  /** Signature verified and nothing failed: fetch UTXOs, then call finishVerification. */
  continueToChain: boolean;
}

const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const HEX_TEXT = /^[0-9a-fA-F]+$/;

function decodeMessage(msg: string): string | undefined {
  if (msg.startsWith(`${ATTEST_HEADER}\n`)) return msg;
  try {
    return utf8Strict.decode(base64urlnopad.decode(msg.replace(/={1,2}$/, "")));
  } catch {
    return undefined;
  }
}

/** §1.5: segwit → bip322; an 88-char base64 signature starting I, H or G → legacy; otherwise bip322. */
export function detectScheme(addr: string, sig: string): AttestScheme {
  const lower = addr.toLowerCase();
  if (lower.startsWith("bc1") || lower.startsWith("tb1")) return "bip322";
  const text = sig.length % 2 === 0 && HEX_TEXT.test(sig) ? base64.encode(hex.decode(sig.toLowerCase())) : sig;
  return text.length === 88 && /^[IHG]/.test(text) ? "legacy" : "bip322";
}

function resolveScheme(scheme: string | undefined, addr: string, sig: string): AttestScheme | undefined {
  if (scheme === undefined || scheme === "") return detectScheme(addr, sig);
  return scheme === "bip322" || scheme === "legacy" ? scheme : undefined;
}

export async function preVerifyAttestation(input: PreVerifyInput): Promise<PreVerifyResult> {
  let result: PreVerifyResult = {
    codes: [],
    network: "mainnet",
    identities: [],
    signatureOk: false,
    continueToChain: false,
  };
  const stop = (code: AttestCode): PreVerifyResult => ({ ...result, codes: [code] });
  const { addr, msg, sig } = input;
  if (![addr, msg, sig].every((field) => typeof field === "string" && field !== "")) return stop("bad_request");

  const message = decodeMessage(msg);
  if (message === undefined) return stop("decode_error");
  const id = await attestationId(message);
  result = { ...result, message, attestationId: id };
  const parse = parseAttestationMessage(message);
  if (!parse.ok) return stop("decode_error");
  const parsed = parse.message;
  result = { ...result, parsed, network: parsed.network, identities: parsed.identities };
  if (input.claimedId !== undefined && input.claimedId.toLowerCase() !== id) return stop("invalid_attestation_id");
  if (parsed.address !== addr) return stop("bad_request");

  if (parsed.network !== "mainnet" && !input.allowTestNetworks) return stop("network_testmode");
  // Signet shares testnet's address prefixes; regtest is not an attestation network.
  const chain: BitcoinNetwork = parsed.network === "mainnet" ? "mainnet" : "testnet";
  const decoded = decodeAddress(addr);
  // The signed message contradicts itself (its address is not on its declared network): malformed content.
  if (!decoded.ok || !isAddressOnNetwork(decoded, chain)) return stop("decode_error");

  if (input.expectedAudience && parsed.aud !== input.expectedAudience) return stop("aud_mismatch");
  if (parsed.expires !== undefined && parsed.expires < input.now) return stop("expired");

  const scheme = resolveScheme(input.scheme, addr, sig);
  if (scheme === undefined) return stop("invalid_scheme");
  result = { ...result, scheme };
  const verdict = verifyMessageSignature({ address: addr, message, signature: sig, network: chain, scheme });
  if (!verdict.ok) return stop(verdict.reason === "sig_unsupported_script" ? "sig_unsupported_script" : "sig_invalid");
  const code: AttestCode = verdict.scheme === "legacy" ? "sig_ok_legacy" : "sig_ok_bip322";
  return { ...result, codes: [code], scheme: verdict.scheme, signatureOk: true, continueToChain: true };
}

export interface VerificationMetrics {
  sats_bonded: number;
  days_unspent: number;
  score: number;
}

export interface VerificationResult {
  ok: boolean;
  codes: AttestCode[];
  metrics: VerificationMetrics;
}

const NO_METRICS: VerificationMetrics = { sats_bonded: 0, days_unspent: 0, score: 0 };
const PASSING: ReadonlySet<AttestCode> = new Set(["sig_ok_bip322", "sig_ok_legacy", "bond_confirmed"]);

function isOk(codes: readonly AttestCode[]): boolean {
  const signed = codes.includes("sig_ok_bip322") || codes.includes("sig_ok_legacy");
  return signed && codes.includes("bond_confirmed") && codes.every((code) => PASSING.has(code));
}

/** SPEC §1.7: ok only with sig_ok_* and bond_confirmed; a zero, pending or insufficient bond is ok false. */
export function finishVerification(pre: PreVerifyResult, metrics: BondMetrics): VerificationResult {
  if (!pre.continueToChain) return { ok: false, codes: [...pre.codes], metrics: { ...NO_METRICS } };
  const codes: AttestCode[] = [...pre.codes, metrics.code];
  if (metrics.code === "bond_zero" && metrics.pending) codes.push("bond_pending");
  const { sats_bonded, days_unspent } = metrics;
  return { ok: isOk(codes), codes, metrics: { sats_bonded, days_unspent, score: scoreV0(sats_bonded, days_unspent) } };
}

/** /api/check thresholds: met when the value is at least the minimum. */
export function applyThresholds<T extends VerificationResult>(
  result: T,
  thresholds: { minSats?: number; minDays?: number },
): T {
  const codes = [...result.codes];
  if (result.metrics.sats_bonded < (thresholds.minSats ?? 0)) codes.push("below_min_sats");
  if (result.metrics.days_unspent < (thresholds.minDays ?? 0)) codes.push("below_min_days");
  return { ...result, codes, ok: result.ok && codes.length === result.codes.length };
}
