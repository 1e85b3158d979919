// Hashing the log leaves written without a hash (issue 26): rows given their index by 0007 and registrations made
// under 0009, before a registration carried its leaf hash (a leaf is its envelope's row since 0021). The cron hashes
// them in slices of bounded size, oldest first per project, each slice one read and one write, and stops after a
// bounded number of slices: progress is kept slice by slice, so a backlog of any size is worked off over successive
// runs and no run exceeds D1's per-invocation query limit. Until a project's leaves are all hashed, its log is the prefix that is (log.ts).
import { bytesToHex } from "@noble/hashes/utils.js";
import { utf8 } from "../../../../shared/crypto/digest";
import type { Db } from "../../../../shared/db/client";
import { leafHash } from "../../../../shared/tlog/merkle";

/** Leaves per slice: one read of their envelopes' bytes (each at most the 64 KiB body cap) and one write. */
export const LEAF_SLICE = 500;
/** Slices per cron run: 2 queries each, far below D1's 1,000 queries per invocation (50 on Free: 20 slices fit). */
export const LEAF_SLICES_PER_RUN = 20;

// The unhashed leaves in (project, index) order, through the partial index `envelopes_unhashed` (the WHERE says
// the index's own terms, so SQLite uses it), with the bytes.
const UNHASHED = `select project_id, leaf_idx, body from envelopes
  where leaf_hash IS NULL AND leaf_idx IS NOT NULL order by project_id, leaf_idx limit ?`;
// Every hash of the slice in one statement: its rows as one JSON parameter (D1 binds at most 100 parameters).
const WRITE = `update envelopes set leaf_hash = s.value ->> 'h' from json_each(?) s
  where envelopes.project_id = s.value ->> 'p' and envelopes.leaf_idx = s.value ->> 'i'
    and envelopes.leaf_hash is null`;

/** One slice: hashes up to `size` unhashed leaves. Returns how many it hashed. */
export async function hashLeafSlice(db: Db, size = LEAF_SLICE): Promise<number> {
  const d1 = db.$client;
  const rows = await d1.prepare(UNHASHED).bind(size).raw<[string, number, string]>();
  if (rows.length === 0) return 0;
  const slice = rows.map(([p, i, body]) => ({ p, i, h: bytesToHex(leafHash(utf8(body))) }));
  await d1.prepare(WRITE).bind(JSON.stringify(slice)).run();
  return rows.length;
}

/** Up to `slices` slices, stopping at the first that finds fewer than a full slice. Returns the leaves hashed. */
export async function hashLeaves(db: Db, slices = LEAF_SLICES_PER_RUN, size = LEAF_SLICE): Promise<number> {
  let hashed = 0;
  for (let i = 0; i < slices; i++) {
    const n = await hashLeafSlice(db, size);
    hashed += n;
    if (n < size) break;
  }
  return hashed;
}
