// Cursor pagination for list routes (DECISIONS 24): `?limit=` (1-100, default 50) and an opaque `?cursor=`
// naming the last row of the previous page: by (created_at, id), or for envelopes by registration `seq`.

import { z } from "@hono/zod-openapi";
import { base64urlnopad } from "@scure/base";
import { and, eq, gt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { AppError } from "../../../shared/errors";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export const PageQuery = {
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "must be an integer")
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_LIMIT, `must be 1-${MAX_LIMIT}`)
    .optional(),
  cursor: z.string().max(200).optional(),
};

interface Position {
  createdAt: number;
  id: string;
}

export function encodeCursor(row: Position): string {
  return base64urlnopad.encode(new TextEncoder().encode(`${row.createdAt}:${row.id}`));
}

function decodeCursor(cursor: string): Position {
  try {
    const [at, id] = new TextDecoder().decode(base64urlnopad.decode(cursor)).split(":");
    if (!at || !id || !/^\d+$/.test(at)) throw new Error("bad cursor");
    return { createdAt: Number(at), id };
  } catch {
    throw new AppError("invalid_query", { detail: "cursor: not a cursor this API issued" });
  }
}

/** The WHERE clause for rows after the cursor, ordered by (created_at, id). */
export function afterCursor(cursor: string | undefined, createdAt: SQLiteColumn, id: SQLiteColumn): SQL | undefined {
  if (!cursor) return undefined;
  const pos = decodeCursor(cursor);
  return or(gt(createdAt, pos.createdAt), and(eq(createdAt, pos.createdAt), gt(id, pos.id)));
}

/** Registration order (the envelopes' `seq`): the cursor names the last seq of the page. */
export const encodeSeqCursor = (seq: number): string => base64urlnopad.encode(new TextEncoder().encode(String(seq)));

/** The seq a cursor names (0 without one: from the start). */
export function decodeSeqCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  let seq = Number.NaN;
  try {
    seq = Number(new TextDecoder().decode(base64urlnopad.decode(cursor)));
  } catch {}
  if (!Number.isInteger(seq) || seq < 0)
    throw new AppError("invalid_query", { detail: "cursor: not a cursor this API issued" });
  return seq;
}

/** Fetch limit+1 rows; this trims to the page and names the next cursor. */
export function page<T extends Position>(rows: T[], limit: number): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeCursor(last) : null };
}
