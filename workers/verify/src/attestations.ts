// Verification against the chain, and discovery on the relays with re-verification: the I/O around the pure
// OC Attest steps of shared/attest. Upstream failure is an error (502), never a pass and never a negative.
import {
  bondMetrics,
  type EnvelopeContent,
  finishVerification,
  type Identity,
  type PreVerifyInput,
  type PreVerifyResult,
  parseNostrAttestationEvent,
  preVerifyAttestation,
  sameIdentity,
  type VerificationResult,
} from "../../../shared/attest";
import { ChainError, type ChainTip } from "../../../shared/chain/esplora";
import { AppError } from "../../../shared/errors";
import { type NostrFilter, queryRelays } from "../../../shared/nostr/relay-pool";
import type { VerifyBindings } from "./env";
import { allowTestNetworks, chainFor, confirmationsFor, relaysFor } from "./upstreams";

export interface ChainVerification {
  pre: PreVerifyResult;
  result: VerificationResult;
  tip?: ChainTip;
}

const NOTHING_BONDED = {
  code: "bond_zero",
  pending: false,
  sats_bonded: 0,
  days_unspent: 0,
  confirmed_balance: 0,
} as const;

export function preVerify(env: VerifyBindings, input: Omit<PreVerifyInput, "allowTestNetworks" | "now">) {
  return preVerifyAttestation({ ...input, allowTestNetworks: allowTestNetworks(env), now: Date.now() });
}

/** Finishes a pre-verified attestation with the bond read from the chain (tip first, so depth is consistent). */
export async function withChain(env: VerifyBindings, pre: PreVerifyResult): Promise<ChainVerification> {
  if (!pre.continueToChain || !pre.parsed) return { pre, result: finishVerification(pre, NOTHING_BONDED) };
  const chain = chainFor(env);
  try {
    const tip = await chain.tip();
    const utxos = await chain.utxos(pre.parsed.address);
    const metrics = bondMetrics({
      utxos,
      tipHeight: tip.height,
      confirmations: confirmationsFor(env),
      bond: pre.parsed.bond,
      now: Date.now(),
    });
    return { pre, result: finishVerification(pre, metrics), tip };
  } catch (err) {
    if (err instanceof ChainError) throw new AppError("chain_unavailable", { detail: err.message });
    throw err;
  }
}

/** Distinct signatures tried per attestation id, so one id flooded with forgeries stays cheap. */
const MAX_COPIES = 4;

export interface Subject {
  addr?: string;
  id?: string;
  identity?: Identity;
}

export interface Found {
  envelope: EnvelopeContent;
  pre: PreVerifyResult;
}

function filtersFor(subject: Subject): NostrFilter[] {
  const kinds = [30078];
  if (subject.id) return [{ kinds, "#d": [subject.id, `orangecheck:${subject.id}`] }];
  if (subject.addr) return [{ kinds, "#t": [subject.addr] }];
  const { protocol, identifier } = subject.identity as Identity;
  const aliases = protocol === "x" || protocol === "twitter" ? ["x", "twitter"] : [protocol];
  return [{ kinds, "#i": aliases.map((p) => `${p}:${identifier}`) }];
}

function names(found: Found, subject: Subject): boolean {
  const parsed = found.pre.parsed;
  if (!parsed) return false;
  if (subject.id && found.pre.attestationId !== subject.id) return false;
  if (subject.addr && parsed.address !== subject.addr) return false;
  const wanted = subject.identity;
  return !wanted || parsed.identities.some((identity) => sameIdentity(identity, wanted));
}

/**
 * Every attestation the relays hold for the subject, de-duplicated by id, each re-verified (signature and
 * canonical form) and kept only when its signed message names the subject; most recent first.
 */
export async function discover(env: VerifyBindings, subject: Subject): Promise<{ total: number; found: Found[] }> {
  const answer = await queryRelays(relaysFor(env), filtersFor(subject));
  if (answer.answered.length === 0) {
    throw new AppError("relays_unavailable", { detail: `no relay answered (${answer.failed.length} tried)` });
  }
  // Grouped by id, every copy kept: a forged copy of a real attestation must not hide the real one.
  const copies = new Map<string, EnvelopeContent[]>();
  for (const event of answer.events) {
    const parsed = await parseNostrAttestationEvent(event, { attestationId: subject.id, address: subject.addr });
    if (!parsed.ok) continue;
    const list = copies.get(parsed.attestationId) ?? [];
    if (list.length < MAX_COPIES && !list.some((e) => e.signature === parsed.envelope.signature)) {
      list.push(parsed.envelope);
    }
    copies.set(parsed.attestationId, list);
  }
  const found: Found[] = [];
  for (const list of copies.values()) {
    for (const envelope of list) {
      const pre = await preVerify(env, {
        addr: envelope.address,
        msg: envelope.message,
        sig: envelope.signature,
        scheme: envelope.scheme,
      });
      const candidate = { envelope, pre };
      if (pre.signatureOk && names(candidate, subject)) {
        found.push(candidate);
        break;
      }
    }
  }
  found.sort((a, b) => (b.pre.parsed?.issuedAtMs ?? 0) - (a.pre.parsed?.issuedAtMs ?? 0));
  return { total: copies.size, found };
}
