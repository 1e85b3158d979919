// Resolution mechanisms and their query grammar (PLG SPEC §3.4, oc-wire-formats §4.3), and the dispute
// mechanisms (REGISTRY §2). Accepts what pledge-core's regexes accept (v01's `utxo_count >= 1` included,
// discrepancy 16), since any envelope a conforming tool makes must be accepted.
import { isAddress } from "./grammar";
import { type DisputeMechanism, MECHANISMS, type Mechanism, type PledgeCode } from "./types";

/** Named and refused by SPEC §3.4.8 and REGISTRY: not deterministic from public state. */
const REFUSED_MECHANISMS: ReadonlySet<string> = new Set([
  "self_proof",
  "arbiter_decides",
  "oracle_feed",
  "kleros_court",
  "escrow_release",
]);
const REFUSED_DISPUTE_MECHANISMS: ReadonlySet<string> = new Set(["trust_score", "juror_lottery", "auction_resolution"]);

const ISO = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`;
const ADDR = "[A-Za-z0-9]+";
const COMPARE = String.raw`\s*(?:>=|<=|<|>|==)\s*\d+`;
const CHAIN_ATOM = new RegExp(
  `^(?:${[
    String.raw`block\(\d+\)\.hash\.startsWith\([0-9a-fA-F]+\)`,
    String.raw`block\(\d+\)\.exists`,
    String.raw`tx\([0-9a-fA-F]{64}\)\.confirmed`,
    String.raw`tx\([0-9a-fA-F]{64}\)\.confirmations\s*>=\s*\d+`,
    String.raw`address\(${ADDR}\)\.balance${COMPARE}(?:\s+AT\s+block\(\d+\))?`,
    String.raw`address\(${ADDR}\)\.utxo_count${COMPARE}`,
  ].join("|")})$`,
);
const QUERY: Record<Exclude<Mechanism, "chain_state">, RegExp> = {
  counterparty_signs: new RegExp(String.raw`^counterparty\(${ADDR}\)\s+signs\s+outcome\s+over\s+pledge_id$`),
  nostr_event_exists: new RegExp(
    String.raw`^kind=\d+\s+author=\S+(?:\s+tag\([^)]+\)=\S+)?\s+created_at_before=${ISO}$`,
  ),
  stamp_published: /^stamp\(content_hash=sha256:[0-9a-f]{64},\s*signer=\S+\)$/,
  http_get_hash: /^GET\s+https:\/\/\S+\s+body_sha256\s*==\s*[0-9a-f]{64}$/,
  dns_record: /^(?:A|AAAA|TXT|CAA|MX|CNAME)\s+\S+\s*==\s*\S.*$/,
  vote_resolves: /^poll_id=[0-9a-f]{64}\s+option=\S+\s+threshold=(?:0(?:\.\d+)?|1(?:\.0+)?)$/,
};

export type ResolutionProblem = { code: PledgeCode; detail: string };

export function isMechanism(value: string): value is Mechanism {
  return (MECHANISMS as readonly string[]).includes(value);
}

/** The mechanism's own problem: refused ones are nondeterministic, anything else outside the seven is unknown. */
export function mechanismProblem(mechanism: string): ResolutionProblem | undefined {
  if (REFUSED_MECHANISMS.has(mechanism)) {
    return { code: "E_RESOLUTION_NONDETERMINISTIC", detail: `mechanism ${mechanism} is refused (SPEC §3.4.8)` };
  }
  if (!isMechanism(mechanism)) return { code: "E_RESOLUTION_UNKNOWN", detail: `unknown mechanism ${mechanism}` };
  return undefined;
}

/** A query outside its mechanism's grammar cannot be evaluated deterministically (SPEC §10). */
export function queryProblem(mechanism: Mechanism, query: string): ResolutionProblem | undefined {
  const ok =
    mechanism === "chain_state"
      ? query.split(/\s+AND\s+/).every((atom) => CHAIN_ATOM.test(atom.trim()))
      : QUERY[mechanism].test(query);
  return ok
    ? undefined
    : { code: "E_RESOLUTION_NONDETERMINISTIC", detail: `resolution.query is not in the ${mechanism} grammar` };
}

export function disputeMechanismProblem(mechanism: string | null): string | undefined {
  if (mechanism === null || mechanism === "vote_resolves" || mechanism === "named_oracle") return undefined;
  return REFUSED_DISPUTE_MECHANISMS.has(mechanism)
    ? `dispute.mechanism ${mechanism} is refused (REGISTRY §2)`
    : "dispute.mechanism must be null, vote_resolves or named_oracle";
}

/** The oracle a `named_oracle` dispute names in `oracle=<address>`, when its params say so. */
export function namedOracle(dispute: { mechanism: string | null; params: string | null }): string | undefined {
  if ((dispute.mechanism as DisputeMechanism | null) !== "named_oracle" || dispute.params === null) return undefined;
  const match = /^oracle=(\S+)$/.exec(dispute.params);
  return match?.[1] !== undefined && isAddress(match[1]) ? match[1] : undefined;
}
