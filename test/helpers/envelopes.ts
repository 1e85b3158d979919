// Signed OC Agent envelopes (and an OC Pledge) for registry tests, built with the library's builders and real BIP-322 signatures.

import { randomHex } from "../../shared/crypto/digest";
import { buildAction, buildDelegation, buildRevocation, buildSubdelegation } from "../../shared/envelopes/agent";
import { createOutcomeEnvelope, createPledgeEnvelope } from "../../shared/envelopes/pledge";
import { isoSeconds } from "../../shared/time";
import v03 from "../vectors/oc-pledge/v03-pledge-counterparty-signs-bilateral.json";
import type { Wallet } from "./wallet";

export const HOUR_MS = 3_600_000;
const sign = (w: Wallet) => (id: string) => w.sign(id);

export function delegation(
  principal: Wallet,
  agent: Wallet,
  options: { scopes?: string[]; expiresIn?: number; holders?: ("principal" | "agent")[] } = {},
) {
  const now = Date.now();
  return buildDelegation(
    {
      principal: principal.address,
      agent: agent.address,
      scopes: options.scopes ?? ["lock:seal(recipient=bc1qalice000000000000000000000000000000000)"],
      bond: null,
      issued_at: isoSeconds(now - HOUR_MS),
      expires_at: isoSeconds(now + (options.expiresIn ?? 24 * HOUR_MS)),
      nonce: randomHex(16),
      holders: options.holders,
    },
    sign(principal),
  );
}

export function subdelegation(
  parentId: string,
  principal: Wallet,
  agent: Wallet,
  options: { scopes?: string[]; expiresIn?: number } = {},
) {
  const now = Date.now();
  return buildSubdelegation(
    {
      parent_id: parentId,
      principal: principal.address,
      agent: agent.address,
      scopes: options.scopes ?? ["lock:seal(recipient=bc1qalice000000000000000000000000000000000)"],
      issued_at: isoSeconds(now - HOUR_MS / 2),
      expires_at: isoSeconds(now + (options.expiresIn ?? 12 * HOUR_MS)),
      nonce: randomHex(16),
    },
    sign(principal),
  );
}

export function action(delegationId: string, agent: Wallet, options: { scope?: string } = {}) {
  return buildAction(
    {
      address: agent.address,
      content_hash: `sha256:${randomHex(32)}`,
      content_length: 512,
      content_mime: "application/vnd.oc-lock+json",
      signed_at: isoSeconds(Date.now() - 60_000),
      delegation_id: delegationId,
      scope_exercised: options.scope ?? "lock:seal(recipient=bc1qalice000000000000000000000000000000000)",
    },
    sign(agent),
  );
}

export function revocation(delegationId: string, signer: Wallet, reason = "") {
  return buildRevocation(
    { address: signer.address, delegation_id: delegationId, reason, signed_at: isoSeconds(Date.now() - 1000) },
    sign(signer),
  );
}

/** A pledge by `swearer` in v03's shape (counterparty_signs), with times around now. */
export async function pledge(swearer: Wallet, counterparty: Wallet, options: { expiresIn?: number } = {}) {
  const now = Date.now();
  const inputs = v03.inputs as Record<string, unknown>;
  return createPledgeEnvelope(
    {
      ...(inputs as object),
      swearer: swearer.address,
      counterparty: counterparty.address,
      resolution: {
        mechanism: "counterparty_signs",
        query: `counterparty(${counterparty.address}) signs outcome over pledge_id`,
      },
      resolves_at: { time: isoSeconds(now + 30 * 60_000) },
      expires_at: isoSeconds(now + (options.expiresIn ?? 60 * 60_000)),
      sworn_at: isoSeconds(now - 60_000),
      nonce: randomHex(16),
    } as never,
    swearer,
  );
}

/** The counterparty's "kept" outcome of pledge `pledgeId`, resolved a second ago, disputable for a minute. */
export function keptOutcome(pledgeId: string, counterparty: Wallet) {
  return createOutcomeEnvelope(
    {
      pledge_id: pledgeId,
      outcome: "kept",
      resolved_at: isoSeconds(Date.now() - 1000),
      resolved_by: counterparty.address,
      evidence: { mechanism: "counterparty_signs", result: "kept", witness: "counterparty_sig=ok" },
      dispute_window_ends_at: isoSeconds(Date.now() + 60_000),
    },
    counterparty,
  );
}
