// Building and signing every OC Agent and OC Pledge envelope for an agent or a client (issue 8, part 2): thin
// defaults (signer's address, now, 24 h, a random nonce) over the project's own builders in shared/envelopes, so
// the canonical messages and ids are the ones the registry and the published vectors compute. Field names are the
// vectors' `inputs`; anything given is used verbatim.
import { randomHex, sha256Hex, utf8 } from "../../crypto/digest";
import {
  type ActionFields,
  buildAction,
  buildDelegation,
  buildRevocation,
  buildSubdelegation,
  type DelegationFields,
  type RevocationFields,
  type RevocationOptions,
  type SubdelegationFields,
} from "../../envelopes/agent";
import type {
  ActionEnvelope,
  DelegationEnvelope,
  RevocationEnvelope,
  SubdelegationEnvelope,
} from "../../envelopes/agent/types";
import {
  type AbandonmentEnvelope,
  type AbandonmentInput,
  createAbandonmentEnvelope,
  createOutcomeEnvelope,
  createPledgeEnvelope,
  type OutcomeEnvelope,
  type OutcomeInput,
  type PledgeEnvelope,
  type PledgeInput,
} from "../../envelopes/pledge";
import { HOUR, isoSeconds } from "../../time";

/** Anything that signs the hex id with BIP-322 under an address: a BitcoinKey, a wallet bridge, a hardware signer. */
export interface EnvelopeSigner {
  address: string;
  sign(message: string): string;
}

export interface BuiltEnvelope<E> {
  envelope: E;
  id: string;
  /** The canonical message whose sha256 is the id. */
  message: string;
}

/** Defaults' clock, epoch ms; fixed in tests. */
export interface BuildOptions {
  now?: number;
}

type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

const DEFAULT_LIFETIME_MS = 24 * HOUR;
/** A sub-delegation must not outlive its parent, whose end the kit does not know: half the default. */
const DEFAULT_SUB_LIFETIME_MS = 12 * HOUR;
/** issued_at a minute back, so a registry whose clock is slightly behind never sees a grant from the future. */
const ISSUED_BACK_MS = 60_000;
const sign = (signer: EnvelopeSigner) => (idHex: string) => signer.sign(idHex);
const clock = (options: BuildOptions) => options.now ?? Date.now();

export type DelegationInput = Optional<DelegationFields, "principal" | "bond" | "issued_at" | "expires_at" | "nonce"> &
  RevocationOptions;

/** A delegation signed by the principal (the signer); the agent is an address. */
export function delegation(
  fields: DelegationInput,
  principal: EnvelopeSigner,
  options: BuildOptions = {},
): Promise<BuiltEnvelope<DelegationEnvelope>> {
  const now = clock(options);
  return buildDelegation(
    {
      principal: principal.address,
      bond: null,
      issued_at: isoSeconds(now - ISSUED_BACK_MS),
      expires_at: isoSeconds(now + DEFAULT_LIFETIME_MS),
      nonce: randomHex(16),
      ...fields,
    },
    sign(principal),
  );
}

export type SubdelegationInput = Optional<SubdelegationFields, "principal" | "issued_at" | "expires_at" | "nonce"> &
  RevocationOptions;

/** A sub-delegation signed by the parent's agent (the signer), narrowing the parent to another agent. */
export function subdelegation(
  fields: SubdelegationInput,
  parentAgent: EnvelopeSigner,
  options: BuildOptions = {},
): Promise<BuiltEnvelope<SubdelegationEnvelope>> {
  const now = clock(options);
  return buildSubdelegation(
    {
      principal: parentAgent.address,
      issued_at: isoSeconds(now - ISSUED_BACK_MS),
      expires_at: isoSeconds(now + DEFAULT_SUB_LIFETIME_MS),
      nonce: randomHex(16),
      ...fields,
    },
    sign(parentAgent),
  );
}

export type ActionInput = Optional<
  ActionFields,
  "address" | "content_hash" | "content_length" | "content_mime" | "signed_at"
> & {
  /** The content acted on: its sha256 and length fill content_hash and content_length. */
  content?: string | Uint8Array;
  content_ref?: string | null;
};

/** An action signed by the delegation's agent (the signer). Give `content`, or content_hash and content_length. */
export async function action(
  fields: ActionInput,
  agent: EnvelopeSigner,
  options: BuildOptions = {},
): Promise<BuiltEnvelope<ActionEnvelope>> {
  const { content, ...rest } = fields;
  const bytes = typeof content === "string" ? utf8(content) : content;
  if (!bytes && (rest.content_hash === undefined || rest.content_length === undefined)) {
    throw new TypeError("an action needs content, or content_hash and content_length");
  }
  return buildAction(
    {
      address: agent.address,
      content_mime: "text/plain",
      signed_at: isoSeconds(clock(options)),
      ...(bytes && { content_hash: `sha256:${await sha256Hex(bytes)}`, content_length: bytes.length }),
      ...rest,
    } as ActionFields & { content_ref?: string | null },
    sign(agent),
  );
}

export type RevocationInput = Optional<RevocationFields, "address" | "reason" | "signed_at">;

/** A revocation signed by a revocation holder (the principal, or the agent when the delegation lists it). */
export function revocation(
  fields: RevocationInput,
  holder: EnvelopeSigner,
  options: BuildOptions = {},
): Promise<BuiltEnvelope<RevocationEnvelope>> {
  return buildRevocation(
    { address: holder.address, reason: "", signed_at: isoSeconds(clock(options)), ...fields },
    sign(holder),
  );
}

export type PledgeBuildInput = Optional<
  PledgeInput,
  "swearer" | "counterparty" | "dispute" | "remediation" | "sworn_at" | "nonce"
>;

/**
 * A pledge signed by its swearer (the signer), or, with `viaDelegation`, by the swearer's agent (the signer; then
 * `swearer` is the principal's address and the pledge carries via_delegation and agent_address).
 */
export async function pledge(
  fields: PledgeBuildInput,
  signer: EnvelopeSigner,
  options: BuildOptions & { viaDelegation?: string } = {},
): Promise<BuiltEnvelope<PledgeEnvelope>> {
  const built = await createPledgeEnvelope(
    {
      swearer: signer.address,
      counterparty: null,
      dispute: { mechanism: null, params: null },
      remediation: "breach_recorded",
      sworn_at: isoSeconds(clock(options)),
      nonce: randomHex(16),
      ...fields,
    },
    signer,
    options.viaDelegation ? { delegationId: options.viaDelegation } : undefined,
  );
  return { envelope: built.envelope, id: built.id, message: built.message };
}

export type OutcomeBuildInput = Optional<OutcomeInput, "resolved_at" | "resolved_by" | "dispute_window_ends_at">;

/** An outcome signed by its resolver (the signer), e.g. the counterparty of a counterparty_signs pledge. */
export async function outcome(
  fields: OutcomeBuildInput,
  resolver: EnvelopeSigner,
  options: BuildOptions = {},
): Promise<BuiltEnvelope<OutcomeEnvelope>> {
  const at = fields.resolved_at ?? isoSeconds(clock(options));
  const built = await createOutcomeEnvelope(
    { resolved_by: resolver.address, resolved_at: at, dispute_window_ends_at: at, ...fields },
    resolver,
  );
  return { envelope: built.envelope, id: built.id, message: built.message };
}

export type AbandonmentBuildInput = Optional<AbandonmentInput, "abandoned_at" | "reason">;

/** An abandonment signed by the pledge's swearer (the signer). */
export async function abandonment(
  fields: AbandonmentBuildInput,
  swearer: EnvelopeSigner,
  options: BuildOptions = {},
): Promise<BuiltEnvelope<AbandonmentEnvelope>> {
  const built = await createAbandonmentEnvelope(
    { abandoned_at: isoSeconds(clock(options)), reason: "", ...fields },
    swearer,
  );
  return { envelope: built.envelope, id: built.id, message: built.message };
}
