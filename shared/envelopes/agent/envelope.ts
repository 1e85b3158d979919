// Parsing a received OC Agent envelope: shape → canonical scopes → canonical message → id (service-spec
// registration rule 1), and the federation checks of rule 7. Signatures are a separate step (signature.ts).
import { CanonicalJsonError, canonicalJson, type JsonValue } from "../canonical-json";
import { AgentCanonicalError, canonicalMessage, envelopeId, type MessageFields } from "./canonical";
import { type AgentFailure, Refusal, refusal, refuse } from "./codes";
import {
  checkFederation,
  FEDERATION_PREFIX,
  type FederationInfo,
  isFederationPrincipal,
  readFederationPrincipal,
  readFederationSig,
} from "./federation";
import { HEX64, type JsonRecord, malformed, text } from "./fields";
import { canonicalizeScopes } from "./scope";
import {
  readAction,
  readActor,
  readBipSig,
  readBond,
  readGrant,
  readHeader,
  readRevocationBody,
  readScopes,
} from "./shape";
import type { AgentKind, EnvelopeByKind } from "./types";

interface ParsedBase<K extends AgentKind> {
  kind: K;
  envelope: EnvelopeByKind[K];
  /** The canonical message the id was recomputed from. */
  message: string;
  id: string;
  /** RFC 8785 form of the envelope as received (unknown top-level fields kept), without the final LF. */
  canonicalJson: string;
  /** The §3.7 signer: a BTC address, or `federation:<descriptor_id>`. */
  signer: string;
  /** Set for federation delegations and revocations. */
  federation: FederationInfo | null;
}

export type ParsedDelegation = ParsedBase<"delegation">;
export type ParsedSubdelegation = ParsedBase<"subdelegation"> & { federation: null };
export type ParsedAction = ParsedBase<"action"> & { federation: null };
export type ParsedRevocation = ParsedBase<"revocation">;
export interface ParsedByKind {
  delegation: ParsedDelegation;
  subdelegation: ParsedSubdelegation;
  action: ParsedAction;
  revocation: ParsedRevocation;
}
export type ParsedEnvelope = ParsedByKind[AgentKind];
/** A delegation or sub-delegation: what actions cite, sub-delegations extend and revocations target. */
export type ParsedGrant = ParsedDelegation | ParsedSubdelegation;
export type ParseResult<T> = ({ ok: true } & T) | AgentFailure;

// Unknown fields are arbitrary JSON: one nested deep enough to exhaust the stack is a bad body, not a crash.
function serialise(env: JsonRecord): string {
  try {
    return canonicalJson(env as JsonValue);
  } catch (err) {
    if (err instanceof CanonicalJsonError || err instanceof RangeError)
      throw malformed("", "not serialisable as canonical JSON");
    throw err;
  }
}

async function finish<K extends AgentKind>(kind: K, env: JsonRecord, fields: MessageFields[K], signer: string) {
  const message = canonicalMessage(kind, fields);
  const id = await envelopeId(message);
  if (id !== env.id)
    throw refusal("id_mismatch", "E_BAD_ID", `declared id ${String(env.id)}; the message hashes to ${id}`);
  return {
    kind,
    envelope: env as unknown as EnvelopeByKind[K],
    message,
    id,
    canonicalJson: serialise(env),
    signer,
    federation: null,
  };
}

function delegationFields(env: JsonRecord, principal: string, scopes: string[]): MessageFields["delegation"] {
  const { agent, bond, issued_at, expires_at, nonce } = env as unknown as EnvelopeByKind["delegation"];
  return { principal, agent: agent.address, scopes, bond, issued_at, expires_at, nonce };
}

function revocationFields(env: JsonRecord, address: string): MessageFields["revocation"] {
  const { delegation_id, reason, signed_at } = env as unknown as EnvelopeByKind["revocation"];
  return { address, delegation_id, reason, signed_at };
}

async function federationDelegation(env: JsonRecord): Promise<ParsedDelegation> {
  if (!isFederationPrincipal(env.principal)) throw malformed("principal.alg", 'must be "federation" on this route');
  const principal = readFederationPrincipal(env, "principal");
  const sig = readFederationSig(env);
  readBond(env);
  readGrant(env);
  const signer = `${FEDERATION_PREFIX}${principal.descriptor_id}`;
  // The id is rebuilt with the declared descriptor_id, so an inlined look-alike descriptor fails on its own (v23).
  const parsed = await finish("delegation", env, delegationFields(env, signer, readScopes(env, signer)), signer);
  return { ...parsed, federation: await checkFederation(principal, sig, "principal") };
}

async function federationRevocation(env: JsonRecord): Promise<ParsedRevocation> {
  if (!isFederationPrincipal(env.signer)) throw malformed("signer.alg", 'must be "federation"');
  const principal = readFederationPrincipal(env, "signer");
  const sig = readFederationSig(env);
  readRevocationBody(env);
  const signer = `${FEDERATION_PREFIX}${principal.descriptor_id}`;
  const parsed = await finish("revocation", env, revocationFields(env, signer), signer);
  return { ...parsed, federation: await checkFederation(principal, sig, "signer") };
}

const PARSERS: { [K in AgentKind]: (env: JsonRecord) => Promise<ParsedByKind[K]> } = {
  async delegation(env) {
    if (isFederationPrincipal(env.principal)) {
      throw refusal(
        "federation_principal_wrong_endpoint",
        null,
        "federation delegations go to /api/delegations/federation",
      );
    }
    const principal = readActor(env, "principal").address;
    readBipSig(env, principal);
    readBond(env);
    readGrant(env);
    return finish("delegation", env, delegationFields(env, principal, readScopes(env, principal)), principal);
  },
  async subdelegation(env) {
    if (isFederationPrincipal(env.principal)) {
      throw refusal("federation_not_yet_supported", null, "a sub-delegation cannot have a federation principal");
    }
    if (env.bond !== undefined) throw malformed("bond", "a sub-delegation must not carry a bond");
    const parent_id = text(env, "parent_id", "", HEX64);
    const principal = readActor(env, "principal").address;
    readBipSig(env, principal);
    readGrant(env);
    const { agent, issued_at, expires_at, nonce } = env as unknown as EnvelopeByKind["subdelegation"];
    const scopes = readScopes(env, principal);
    const fields = { parent_id, principal, agent: agent.address, scopes, issued_at, expires_at, nonce };
    return finish("subdelegation", env, fields, principal);
  },
  async action(env) {
    readAction(env);
    const { signer, content, signed_at, delegation_id, scope_exercised } = env as unknown as EnvelopeByKind["action"];
    const scope = canonicalizeScopes([scope_exercised]);
    if (!scope.ok) throw refusal("canonicalization_failed", "E_BAD_SCOPE_GRAMMAR", `scope_exercised: ${scope.detail}`);
    const fields = {
      address: signer.address,
      content_hash: content.hash,
      content_length: content.length,
      content_mime: content.mime,
      signed_at,
      delegation_id,
      scope_exercised,
    };
    return finish("action", env, fields, signer.address);
  },
  async revocation(env) {
    if (isFederationPrincipal(env.signer)) return federationRevocation(env);
    const signer = readActor(env, "signer").address;
    readRevocationBody(env);
    readBipSig(env, signer);
    return finish("revocation", env, revocationFields(env, signer), signer);
  },
};

async function settle<T>(work: () => Promise<T>): Promise<ParseResult<T>> {
  try {
    return { ok: true, ...(await work()) };
  } catch (err) {
    if (err instanceof Refusal) return err.failure;
    if (err instanceof AgentCanonicalError) return refuse("canonicalization_failed", err.code, err.message);
    throw err;
  }
}

/**
 * One envelope of `kind` as received. Refuses a federation principal with federation_principal_wrong_endpoint
 * (delegation) or federation_not_yet_supported (sub-delegation); accepts a federation revocation (rule 7 applies).
 */
export function parseAgentEnvelope<K extends AgentKind>(kind: K, json: unknown): Promise<ParseResult<ParsedByKind[K]>> {
  return settle(() => PARSERS[kind](readHeader(json, kind)));
}

/** A delegation for /api/delegations/federation: everything parseAgentEnvelope checks, then rule 7. */
export function parseFederationDelegation(json: unknown): Promise<ParseResult<ParsedDelegation>> {
  return settle(() => federationDelegation(readHeader(json, "delegation")));
}

/** A revocation signed by a federation principal (v25). */
export function parseFederationRevocation(json: unknown): Promise<ParseResult<ParsedRevocation>> {
  return settle(() => federationRevocation(readHeader(json, "revocation")));
}
