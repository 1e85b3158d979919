// Delegations and sub-delegations as the registry stores and reads them back: the row a grant is stored as, and a
// stored grant parsed again from its bytes with its status (DECISIONS 18). Parsing a stored grant is pure on bytes
// that never change, so it is done once per row this isolate keeps (parents.ts).
import type { Db } from "../../../../shared/db/client";
import {
  FEDERATION_PREFIX,
  type GrantStatus,
  type ParsedGrant,
  parseAgentEnvelope,
  parseFederationDelegation,
} from "../../../../shared/envelopes/agent";
import { storedFields } from "../../../../shared/envelopes/stored-fields";
import { AppError, type Reason } from "../../../../shared/errors";
import type { Condition } from "./conditions";
import { stillIn, storedEnvelope } from "./parents";
import type { EnvelopeRow } from "./store";

export const GRANT_KINDS = ["delegation", "subdelegation"] as const;

const parsedRows = new WeakMap<EnvelopeRow, ParsedGrant>();

async function parsedGrant(row: EnvelopeRow): Promise<ParsedGrant> {
  const known = parsedRows.get(row);
  if (known) return known;
  const parsed = row.principalAddress?.startsWith(FEDERATION_PREFIX)
    ? await parseFederationDelegation(JSON.parse(row.body))
    : await parseAgentEnvelope(row.kind as "delegation" | "subdelegation", JSON.parse(row.body));
  if (!parsed.ok) throw new Error(`stored envelope ${row.id} no longer parses: ${parsed.detail}`);
  parsedRows.set(row, parsed);
  return parsed;
}

export interface StoredGrant {
  row: EnvelopeRow;
  grant: ParsedGrant;
  status: GrantStatus;
  /** The registration's write holds only while the grant is still in `status` (answering `inactive` otherwise). */
  conditions: Condition[];
}

/** A stored grant of the project, or `missing`; `inactive` is the reason when it was revoked before the write. */
export async function loadGrant(
  db: Db,
  projectId: string,
  id: string,
  reasons: { missing: Reason; inactive: Reason },
): Promise<StoredGrant> {
  const row = await storedEnvelope(db, projectId, id, GRANT_KINDS);
  if (!row) throw new AppError(reasons.missing, { detail: `${id} is not registered in this project` });
  const status: GrantStatus = row.status === "revoked" ? "revoked" : "active";
  return { row, grant: await parsedGrant(row), status, conditions: stillIn(row, reasons.inactive) };
}

/** The row a delegation or sub-delegation is stored as, `depth` below its root (the columns: stored-fields.ts). */
export function grantRow(projectId: string, raw: string, parsed: ParsedGrant, depth: number) {
  return { projectId, id: parsed.id, body: raw, ...storedFields(parsed, { depth }) };
}
