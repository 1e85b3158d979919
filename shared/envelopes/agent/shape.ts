// Shape checks of the four envelope kinds (oc-wire-formats §3.6, agent-core's shape rules): each reader throws
// `invalid_body` at the first problem, so that what reaches the message builder is well-typed.
import { refusal } from "./codes";
import {
  ADDRESS,
  array,
  at,
  HEX64,
  integer,
  isoMillis,
  type JsonRecord,
  literal,
  malformed,
  millis,
  NONCE,
  nullableText,
  present,
  record,
  text,
  timestamp,
} from "./fields";
import { checkScopesEncrypted } from "./private-scope";
import { canonicalizeScopes } from "./scope";
import { type AgentKind, type BipActor, ENVELOPE_KIND } from "./types";

const CONTENT_HASH = /^sha256:[0-9a-f]{64}$/;
// type/subtype, then optional parameters; printable ASCII only, so it stays on its message line.
const MIME = /^[\x21-\x7e]+\/[\x21-\x7e]+(?:;[\x20-\x7e]*)?$/;
const CONTROL = /\p{Cc}/u;
const MAX_REASON_BYTES = 128;
const HOLDERS = new Set(["principal", "agent"]);

/** `v` (E_UNSUPPORTED_VERSION), the kind literal and the id's form. */
export function readHeader(json: unknown, kind: AgentKind): JsonRecord {
  const env = record(json, "");
  if (env.v !== 1)
    throw malformed("v", `unsupported version ${JSON.stringify(env.v ?? null)}`, "E_UNSUPPORTED_VERSION");
  literal(env, "kind", "", ENVELOPE_KIND[kind]);
  text(env, "id", "", HEX64);
  return env;
}

export function readActor(obj: JsonRecord, key: string): BipActor {
  const actor = record(obj[key], key);
  text(actor, "address", key, ADDRESS);
  literal(actor, "alg", key, "bip322");
  return actor as unknown as BipActor;
}

/** A single-address `sig`, whose pubkey must be the §3.7 signer. */
export function readBipSig(env: JsonRecord, signer: string): void {
  const sig = record(env.sig, "sig");
  literal(sig, "alg", "sig", "bip322");
  text(sig, "pubkey", "sig");
  text(sig, "value", "sig");
  if (sig.pubkey !== signer) throw malformed("sig.pubkey", "must equal the signer's address (§3.7)");
}

/** agent, window, nonce and revocation policy: what delegations and sub-delegations share. */
export function readGrant(env: JsonRecord): void {
  readActor(env, "agent");
  const issued = timestamp(env, "issued_at", "");
  const expires = timestamp(env, "expires_at", "");
  if (millis(expires) <= millis(issued)) throw malformed("expires_at", "must be after issued_at");
  text(env, "nonce", "", NONCE);
  if (!present(env, "revocation")) return;
  const policy = record(env.revocation, "revocation");
  array(policy, "holders", "revocation").forEach((holder, index) => {
    if (typeof holder !== "string" || !HOLDERS.has(holder)) {
      throw malformed(`revocation.holders[${index}]`, 'must be "principal" or "agent"');
    }
  });
  nullableText(policy, "ref", "revocation");
}

/**
 * Exactly one of `scopes` / `scopes_encrypted`. Public scopes must already be canonical and sorted (§3.14).
 * Private ones are refused after their shape check: the id covers the plaintext, which the service cannot read.
 */
export function readScopes(env: JsonRecord, principalAddress: string): string[] {
  const hasPublic = present(env, "scopes");
  const hasPrivate = present(env, "scopes_encrypted");
  if (hasPublic && hasPrivate)
    throw malformed("scopes", "scopes and scopes_encrypted are exclusive", "E_SCOPES_BOTH_PROVIDED");
  if (!hasPublic && !hasPrivate)
    throw malformed("scopes", "required (or scopes_encrypted)", "E_SCOPES_NEITHER_PROVIDED");
  if (hasPrivate) {
    checkScopesEncrypted(env.scopes_encrypted, "scopes_encrypted", principalAddress);
    throw refusal(
      "canonicalization_failed",
      "E_SCOPES_UNREADABLE",
      "private-scope envelope: its id covers the plaintext scopes, which only a recipient device key can decrypt",
    );
  }
  const scopes = array(env, "scopes", "");
  if (scopes.length === 0) throw malformed("scopes", "must not be empty");
  scopes.forEach((scope, index) => {
    if (typeof scope !== "string") throw malformed(`scopes[${index}]`, "must be a string");
  });
  const canonical = canonicalizeScopes(scopes);
  if (!canonical.ok) throw refusal("canonicalization_failed", "E_BAD_SCOPE_GRAMMAR", canonical.detail);
  const index = canonical.scopes.findIndex((scope, i) => scope !== scopes[i]);
  if (index >= 0) {
    throw refusal(
      "canonicalization_failed",
      "E_BAD_SCOPE_GRAMMAR",
      `scopes[${index}] is not in canonical form and order; expected ${canonical.scopes[index]}`,
    );
  }
  return canonical.scopes;
}

export function readBond(env: JsonRecord): void {
  if (env.bond === null) return;
  const bond = record(env.bond, "bond");
  integer(bond, "sats", "bond");
  text(bond, "attestation_id", "bond", HEX64);
}

export function readAction(env: JsonRecord): void {
  const content = record(env.content, "content");
  text(content, "hash", "content", CONTENT_HASH);
  integer(content, "length", "content");
  text(content, "mime", "content", MIME);
  nullableText(content, "ref", "content");
  const signer = readActor(env, "signer");
  timestamp(env, "signed_at", "");
  text(env, "delegation_id", "", HEX64);
  text(env, "scope_exercised", "");
  readOts(env);
  readBipSig(env, signer.address);
}

/** delegation_id, reason, signed_at and ots; the signer and sig depend on single-address vs federation. */
export function readRevocationBody(env: JsonRecord): void {
  text(env, "delegation_id", "", HEX64);
  const reason = text(env, "reason", "");
  if (CONTROL.test(reason)) throw malformed("reason", "must not contain control characters");
  if (new TextEncoder().encode(reason).length > MAX_REASON_BYTES)
    throw malformed("reason", "must be at most 128 bytes");
  timestamp(env, "signed_at", "");
  readOts(env);
}

function readOts(env: JsonRecord): void {
  if (env.ots === null || env.ots === undefined) return;
  const ots = record(env.ots, "ots");
  const status = text(ots, "status", "ots");
  if (status !== "pending" && status !== "confirmed") throw malformed("ots.status", 'must be "pending" or "confirmed"');
  text(ots, "proof", "ots");
  array(ots, "calendars", "ots").forEach((url, index) => {
    if (typeof url !== "string") throw malformed(at("ots.calendars", index), "must be a string");
  });
  const height = ots.block_height ?? null;
  if (height !== null) integer(ots, "block_height", "ots");
  const hash = nullableText(ots, "block_hash", "ots", HEX64);
  const upgraded = nullableText(ots, "upgraded_at", "ots");
  if (upgraded !== null && isoMillis(upgraded) === null) throw malformed("ots.upgraded_at", "must be ISO 8601 UTC");
  if (status === "confirmed" && (height === null || hash === null)) {
    throw malformed("ots", "a confirmed proof needs block_height and block_hash");
  }
}
