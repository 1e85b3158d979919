// The audit export's body (DECISIONS 16): every envelope of a project in replay order, then the signed manifest.
// Memory stays flat at any size: one chunk per page (a page is encoded once, not row by row), pages sized by bytes,
// the next page read while the current one drains (never more than two held), and the digest taken by the
// runtime's native SHA-256 stream instead of JavaScript hashing every byte.
import { bytesToHex } from "@noble/hashes/utils.js";
import { and, asc, eq, gt } from "drizzle-orm";
import {
  type AuditFormat,
  BUNDLE_FORMAT,
  bundleHead,
  bundleRow,
  bundleTail,
  type EnvelopeKind,
  encodeSignature,
  type Manifest,
  manifestBytes,
  REPLAY_ORDER,
} from "../../../../shared/audit/bundle-format";
import type { SigningKey } from "../../../../shared/crypto/signing-key";
import type { Db } from "../../../../shared/db/client";
import { auditBundles, envelopes } from "../../../../shared/db/schema";

/** Bytes of envelope a page aims at: large enough to amortise a query, small enough to hold two at once. */
export const PAGE_BYTES = 256 * 1024;
/** Rows per query, whatever their size: the first page's guess, and the bounds of every later one. */
export const PAGE_ROWS = { first: 200, min: 20, max: 2_000 } as const;

interface Cursor {
  kindIndex: number;
  afterSeq: number;
  rows: number;
}

interface Page {
  kind: EnvelopeKind;
  rows: { seq: number; id: string; body: string }[];
  next: Cursor | null;
}

/** How many rows the next page asks for, from the bytes per row the last page had. */
export function nextPageRows(lastRows: number, lastBytes: number): number {
  if (lastRows === 0 || lastBytes === 0) return PAGE_ROWS.first;
  const perRow = lastBytes / lastRows;
  return Math.max(PAGE_ROWS.min, Math.min(PAGE_ROWS.max, Math.floor(PAGE_BYTES / perRow)));
}

/** The next non-empty page from the cursor on, or null past the last kind. */
async function readPage(db: Db, projectId: string, cursor: Cursor): Promise<Page | null> {
  let { kindIndex, afterSeq } = cursor;
  while (kindIndex < REPLAY_ORDER.length) {
    const kind = REPLAY_ORDER[kindIndex] as EnvelopeKind;
    const rows = await db
      .select({ seq: envelopes.seq, id: envelopes.id, body: envelopes.body })
      .from(envelopes)
      .where(and(eq(envelopes.projectId, projectId), eq(envelopes.kind, kind), gt(envelopes.seq, afterSeq)))
      .orderBy(asc(envelopes.seq))
      .limit(cursor.rows);
    if (rows.length > 0) {
      const bytes = rows.reduce((n, r) => n + r.body.length, 0);
      const last = rows[rows.length - 1]?.seq ?? afterSeq;
      const rowsNext = nextPageRows(rows.length, bytes);
      return { kind, rows, next: { kindIndex, afterSeq: last, rows: rowsNext } };
    }
    kindIndex += 1;
    afterSeq = 0;
  }
  return null;
}

export function exportStream(db: Db, key: SigningKey, projectId: string, format: AuditFormat, bundleId: string) {
  const encoder = new TextEncoder();
  const digest = new crypto.DigestStream("SHA-256");
  const hasher = digest.getWriter();
  const counts = Object.fromEntries(REPLAY_ORDER.map((k) => [k, 0])) as Record<EnvelopeKind, number>;
  let first = true;
  let pending: Promise<Page | null> | null = readPage(db, projectId, {
    kindIndex: 0,
    afterSeq: 0,
    rows: PAGE_ROWS.first,
  });
  let head: string | null = bundleHead(format, projectId);

  async function emit(controller: ReadableStreamDefaultController<Uint8Array>, text: string) {
    const bytes = encoder.encode(text);
    await hasher.write(bytes);
    controller.enqueue(bytes);
  }

  async function finish(controller: ReadableStreamDefaultController<Uint8Array>) {
    if (head !== null) await emit(controller, head); // an empty project still opens its bundle
    await hasher.close();
    const manifest: Manifest = {
      format: BUNDLE_FORMAT,
      bundle_id: bundleId,
      project_id: projectId,
      generated_at: new Date().toISOString(),
      export_format: format,
      counts,
      total: Object.values(counts).reduce((a, b) => a + b, 0),
      sha256: bytesToHex(new Uint8Array(await digest.digest)),
      kid: key.kid,
      alg: "EdDSA",
    };
    const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", key.privateKey, manifestBytes(manifest)));
    controller.enqueue(encoder.encode(bundleTail(format, manifest, encodeSignature(signature))));
    await db.insert(auditBundles).values({
      id: bundleId,
      projectId,
      format,
      counts: JSON.stringify(counts),
      sha256: manifest.sha256,
      kid: key.kid,
      createdAt: Date.now(),
    });
    controller.close();
  }

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const page = pending ? await pending : null;
        // Read ahead while this page drains: at most this page and the next are held.
        pending = page?.next ? readPage(db, projectId, page.next) : null;
        if (!page) return finish(controller);
        let text = head ?? "";
        head = null;
        for (const row of page.rows) {
          text += bundleRow(format, { kind: page.kind, id: row.id, body: row.body }, first);
          first = false;
        }
        counts[page.kind] += page.rows.length;
        await emit(controller, text);
      },
    },
    // One page queued at a time: the consumer's pace bounds memory.
    { highWaterMark: 1 },
  );
}
