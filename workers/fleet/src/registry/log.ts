// Reading a project's transparency log (issue 18): its leaf hashes in order, from `log_leaves`, which registrations
// append in their own statement (the insert's trigger, d1-migrations/0009). A leaf is written without its hash
// (SQLite has no SHA-256), as were the rows from before the log: it is derived here from the envelope's stored
// bytes on the first read that meets it, once, and written back.
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { and, asc, eq, inArray } from "drizzle-orm";
import { utf8 } from "../../../../shared/crypto/digest";
import type { Db } from "../../../../shared/db/client";
import { envelopes, logLeaves } from "../../../../shared/db/schema";
import { type Hash, leafHash } from "../../../../shared/tlog/merkle";

export interface ProjectLog {
  /** Envelope ids, in leaf order. */
  ids: string[];
  hashes: Hash[];
}

/** D1 binds at most 100 parameters per statement: ids are looked up this many at a time. */
const CHUNK = 90;

export async function projectLog(db: Db, projectId: string): Promise<ProjectLog> {
  const rows = await db
    .select({ idx: logLeaves.idx, envelopeId: logLeaves.envelopeId, hash: logLeaves.hash })
    .from(logLeaves)
    .where(eq(logLeaves.projectId, projectId))
    .orderBy(asc(logLeaves.idx))
    .all();
  const missing = rows.filter((r) => r.hash === null).map((r) => r.envelopeId);
  const derived = new Map<string, string>();
  for (let i = 0; i < missing.length; i += CHUNK) {
    const bodies = await db
      .select({ id: envelopes.id, body: envelopes.body })
      .from(envelopes)
      .where(and(eq(envelopes.projectId, projectId), inArray(envelopes.id, missing.slice(i, i + CHUNK))))
      .all();
    for (const b of bodies) derived.set(b.id, bytesToHex(leafHash(utf8(b.body))));
  }
  if (derived.size > 0) {
    const updates = [...derived].map(([id, hash]) =>
      db
        .update(logLeaves)
        .set({ hash })
        .where(and(eq(logLeaves.projectId, projectId), eq(logLeaves.envelopeId, id))),
    );
    for (let i = 0; i < updates.length; i += CHUNK) {
      const [first, ...rest] = updates.slice(i, i + CHUNK);
      if (first) await db.batch([first, ...rest]);
    }
  }
  return {
    ids: rows.map((r) => r.envelopeId),
    hashes: rows.map((r) => hexToBytes(r.hash ?? derived.get(r.envelopeId) ?? "")),
  };
}
