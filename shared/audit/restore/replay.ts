// A project's registrations replayed in its log's order, without a database: each envelope's row as its
// registration wrote it (stored-fields.ts, the function the fleet's routes use), then the state change the
// registration made to earlier rows: a revocation revokes its grant and every sub-delegation below it (rules.ts
// `cascade`, the rule the fleet's recursive query states), an outcome or abandonment moves its pledge out of pending
// (state.ts `nextPledgeStatus`). The log's order is a replay order (docs/log.md), so a reference to something not
// yet seen means the order or the bundle is not the log's: refused, never guessed. Pure; `oc restore` builds on it.
import { bytesToHex } from "@noble/hashes/utils.js";
import { utf8 } from "../../crypto/digest";
import { cascade } from "../../envelopes/agent";
import { parseStored } from "../../envelopes/parse-stored";
import { nextPledgeStatus, type PledgeEvent, type PledgeStatus } from "../../envelopes/pledge";
import { type StoredFields, storedFields } from "../../envelopes/stored-fields";
import { leafHash } from "../../tlog/merkle";

/** One envelope as the log holds it: its kind, id and stored bytes. */
export interface LogEntry {
  kind: string;
  id: string;
  body: string;
}

/** An envelope's row as the registry holds it after the whole replay, with its leaf hash (hex). */
export interface ReplayedRow extends StoredFields {
  id: string;
  body: string;
  leafHash: string;
}

export type Replay = { ok: true; rows: ReplayedRow[] } | { ok: false; detail: string };

const GRANTS = new Set(["delegation", "subdelegation"]);

class Refused extends Error {}

/** The earlier row `id` of one of `kinds`, or a refusal naming what cited it. */
function earlier(rows: Map<string, ReplayedRow>, id: string, kinds: Set<string>, citedBy: string): ReplayedRow {
  const row = rows.get(id);
  if (!row || !kinds.has(row.kind)) throw new Refused(`${citedBy} cites ${id}, which the log does not hold before it`);
  return row;
}

/** Replays `entries` (in the log's order); each must parse as its kind to its own id. */
export async function replay(entries: readonly LogEntry[]): Promise<Replay> {
  const rows = new Map<string, ReplayedRow>();
  const subdelegations: { id: string; parent_id: string }[] = [];
  try {
    for (const entry of entries) {
      const name = `${entry.kind} ${entry.id}`;
      const read = await parseStored(entry.kind, JSON.parse(entry.body));
      if (!read.ok) throw new Refused(`${name}: ${read.detail}`);
      const parsed = read.parsed;
      if (parsed.id !== entry.id) throw new Refused(`${name} hashes to ${parsed.id}`);
      if (rows.has(entry.id)) throw new Refused(`${name} is in the log twice`);
      let depth: number | undefined;
      if (parsed.kind === "subdelegation") {
        depth = (earlier(rows, parsed.envelope.parent_id, GRANTS, name).depth ?? 0) + 1;
        subdelegations.push({ id: parsed.id, parent_id: parsed.envelope.parent_id });
      }
      if (parsed.kind === "action") earlier(rows, parsed.envelope.delegation_id, GRANTS, name);
      if (parsed.kind === "pledge" && parsed.envelope.via_delegation) {
        earlier(rows, parsed.envelope.via_delegation, GRANTS, name);
      }
      if (parsed.kind === "revocation") {
        const target = earlier(rows, parsed.envelope.delegation_id, GRANTS, name);
        for (const id of [target.id, ...cascade(target.id, subdelegations)]) {
          const grant = rows.get(id);
          if (grant) grant.status = "revoked";
        }
      }
      if (parsed.kind === "pledge-outcome" || parsed.kind === "pledge-abandonment") {
        const pledge = earlier(rows, parsed.envelope.pledge_id, new Set(["pledge"]), name);
        const event: PledgeEvent =
          parsed.kind === "pledge-outcome"
            ? { type: "outcome", outcome: parsed.envelope.outcome }
            : { type: "abandonment" };
        const next = nextPledgeStatus(pledge.status as PledgeStatus, event);
        if (!next.ok) throw new Refused(`${name}: ${next.detail}`);
        pledge.status = next.status;
      }
      const fields = storedFields(parsed, { depth });
      rows.set(entry.id, {
        ...fields,
        id: entry.id,
        body: entry.body,
        leafHash: bytesToHex(leafHash(utf8(entry.body))),
      });
    }
  } catch (err) {
    if (err instanceof Refused) return { ok: false, detail: err.message };
    if (err instanceof SyntaxError) return { ok: false, detail: `an envelope is not JSON: ${err.message}` };
    throw err;
  }
  return { ok: true, rows: [...rows.values()] };
}
