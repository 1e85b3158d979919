// The pledge envelope (oc-wire-formats §4.2): parse a received one, or build one from canonical inputs.
// Agent-delegated pledges carry `via_delegation` + `agent_address`, which are outside the signed message.
import { canonicalJson, type JsonValue } from "../canonical-json";
import { messageId, pledgeMessage } from "./canonical";
import { HEX_64, isAddress } from "./grammar";
import { bip322Problem, type EnvelopeSpec, parseWith } from "./parse";
import { type Shape, SIG_SHAPE } from "./shape";
import type { ParsedPledge, ParseResult, PledgeEnvelope, PledgeInput } from "./types";

const PLEDGE_SHAPE: Shape = {
  v: "number",
  kind: "string",
  id: "string",
  swearer: { shape: { address: "string", alg: "string" } },
  proposition: "string",
  resolution: { shape: { mechanism: "string", query: "string" } },
  resolves_at: { shape: { "time?": "string", "block?": "number" } },
  expires_at: "string",
  bond: { shape: { attestation_id: "string", min_sats: "number", min_days: "number" } },
  counterparty: "string|null",
  dispute: { shape: { mechanism: "string|null", params: "string|null" } },
  remediation: "string",
  sworn_at: "string",
  nonce: "string",
  "via_delegation?": "string",
  "agent_address?": "string",
  sig: { shape: SIG_SHAPE },
};

function agentProblem(envelope: PledgeEnvelope): string | undefined {
  const { via_delegation: via, agent_address: agent, swearer, sig } = envelope;
  if (via === undefined) {
    if (agent !== undefined) return "agent_address needs via_delegation";
    return sig.pubkey === swearer.address ? undefined : "sig.pubkey must be the swearer's address";
  }
  if (!HEX_64.test(via)) return "via_delegation must be a 64 lowercase hex delegation id";
  if (agent === undefined || !isAddress(agent)) return "via_delegation needs agent_address";
  if (agent === swearer.address) return "agent_address must differ from the swearer";
  // Discrepancy 15: SPEC §3.6 wants the agent here, vector v08 has the swearer; the signature is checked under
  // agent_address either way.
  return sig.pubkey === agent || sig.pubkey === swearer.address
    ? undefined
    : "sig.pubkey must be agent_address or the swearer";
}

const PLEDGE_SPEC: EnvelopeSpec<PledgeInput> = {
  kind: "pledge",
  shape: PLEDGE_SHAPE,
  malformed: "E_PLEDGE_MALFORMED",
  badId: "E_PLEDGE_BAD_ID",
  structure(raw) {
    const envelope = raw as unknown as PledgeEnvelope;
    const detail =
      bip322Problem(envelope.swearer, "swearer") ?? bip322Problem(envelope.sig, "sig") ?? agentProblem(envelope);
    return detail === undefined ? undefined : { code: "E_PLEDGE_MALFORMED", detail };
  },
  input(raw) {
    const { swearer, ...rest } = raw as unknown as PledgeEnvelope;
    return { ...rest, swearer: swearer.address };
  },
  message: pledgeMessage,
};

/** Checks a received pledge envelope and recomputes its id; the signature is verifyPledgeSignature's job. */
export async function parsePledgeEnvelope(json: unknown): Promise<ParseResult<ParsedPledge>> {
  const parsed = await parseWith(json, PLEDGE_SPEC);
  if (!("envelope" in parsed)) return parsed;
  return { ok: true, kind: "pledge", ...parsed, envelope: parsed.envelope as unknown as PledgeEnvelope };
}

export interface PledgeSigner {
  address: string;
  sign(message: string): string;
}

/**
 * Builds and signs a pledge from its canonical inputs (for fixtures and clients). `agent` makes it
 * agent-delegated: the agent signs and `sig.pubkey` is the agent (SPEC §3.6). Throws on invalid inputs.
 */
export async function createPledgeEnvelope(
  input: PledgeInput,
  signer: PledgeSigner,
  agent?: { delegationId: string },
): Promise<ParsedPledge> {
  const built = pledgeMessage(input);
  if (!built.ok) throw new RangeError(`${built.code}: ${built.detail}`);
  const id = await messageId(built.message);
  const envelope: PledgeEnvelope = {
    v: 1,
    kind: "pledge",
    id,
    swearer: { address: input.swearer, alg: "bip322" },
    proposition: input.proposition,
    resolution: input.resolution,
    resolves_at: input.resolves_at,
    expires_at: input.expires_at,
    bond: input.bond,
    counterparty: input.counterparty,
    dispute: input.dispute,
    remediation: input.remediation,
    sworn_at: input.sworn_at,
    nonce: input.nonce,
    ...(agent && { via_delegation: agent.delegationId, agent_address: signer.address }),
    sig: { alg: "bip322", pubkey: signer.address, value: signer.sign(id) },
  };
  const text = canonicalJson(envelope as unknown as JsonValue);
  return { ok: true, kind: "pledge", envelope, message: built.message, id, canonicalJson: text };
}
