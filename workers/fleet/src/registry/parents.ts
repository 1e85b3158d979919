// The stored envelopes a registration builds on (the delegation of an action, the parent of a sub-delegation, the
// target of a revocation, the pledge of an outcome). Their bytes never change, so this isolate keeps them and a warm
// registration reads none. Their status can: `active` and `pending` move on, every other status is final. So a
// status served from here is exact when final, and otherwise a guess that the write re-checks in its own
// transaction (`stillIn`), which also forgets the entry when the guess was wrong.
import type { Db } from "../../../../shared/db/client";
import type { Reason } from "../../../../shared/errors";
import { type Condition, envelopeIn } from "./conditions";
import { type EnvelopeRow, findEnvelope } from "./store";

const MOVABLE = new Set(["active", "pending"]);
const MAX_ENTRIES = 4096;
const MAX_BYTES = 16 * 1024 * 1024;

const kept = new Map<string, EnvelopeRow>();
let bytes = 0;

const keyOf = (projectId: string, id: string) => `${projectId}\n${id}`;

function forget(key: string): void {
  const row = kept.get(key);
  if (!row) return;
  kept.delete(key);
  bytes -= row.body.length;
}

function keep(key: string, row: EnvelopeRow): void {
  forget(key);
  kept.set(key, row);
  bytes += row.body.length;
  for (const [oldest] of kept) {
    if (kept.size <= MAX_ENTRIES && bytes <= MAX_BYTES) break;
    forget(oldest);
  }
}

/** The stored envelope `id` of one of `kinds` in the project, from this isolate when it has it. */
export async function storedEnvelope(
  db: Db,
  projectId: string,
  id: string,
  kinds: readonly string[],
): Promise<EnvelopeRow | undefined> {
  const key = keyOf(projectId, id);
  const cached = kept.get(key);
  if (cached) {
    // Most recently used last.
    kept.delete(key);
    kept.set(key, cached);
    return kinds.includes(cached.kind) ? cached : undefined;
  }
  const row = await findEnvelope(db, projectId, id, kinds);
  if (row) keep(key, row);
  return row;
}

/**
 * The write's condition that `row` is still in the status read (nothing when that status is final): when it fails,
 * the registration answers `reason` and this isolate reads the row again next time.
 */
export function stillIn(row: EnvelopeRow, reason: Reason): Condition[] {
  const status = row.status;
  if (status === null || !MOVABLE.has(status)) return [];
  const condition = envelopeIn(row.projectId, row.id, [row.kind], status, reason);
  return [{ ...condition, onFail: () => forget(keyOf(row.projectId, row.id)) }];
}

/** For tests: empty this isolate's copy, as a fresh isolate would start. */
export function forgetAllParents(): void {
  kept.clear();
  bytes = 0;
}
