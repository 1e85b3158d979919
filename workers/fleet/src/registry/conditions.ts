// What a registration's write is conditional on. Each condition is an SQL truth the batch re-checks inside its own
// transaction (so a revocation, an archive or a demotion that lands between the request's checks and its write
// still wins), with the reason to answer when it does not hold. Reading which one failed costs a round trip, taken
// only when nothing was written.
//
// The truths are D1's own terms (text with `?` and its values), not drizzle's `sql` fragments: every registration
// builds four or more of them, and building them through drizzle's template tag was ~130 µs of a registration's
// CPU in the bench's profile (issue 19). The texts are constants; only the values change per request.
import type { Db } from "../../../../shared/db/client";
import { AppError, type Reason } from "../../../../shared/errors";

/** An SQL truth: its text, with a `?` for each of `params` in order. */
export interface Truth {
  text: string;
  params: unknown[];
}

export interface Condition {
  holds: Truth;
  reason: Reason;
  detail?: string;
  /** Called when this is the condition that failed (a cache forgets what it guessed). */
  onFail?: () => void;
}

const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

const PROJECT_WRITABLE = "exists (select 1 from projects where id = ? and archived_at is null)";
const TOKEN_LIVE = `exists (select 1 from api_tokens join members on members.project_id = api_tokens.project_id
  and members.address = api_tokens.created_by and members.role = 'owner'
  where api_tokens.id = ? and api_tokens.token_hash = ? and api_tokens.created_by = ?
  and api_tokens.revoked_at is null and api_tokens.expires_at > ?)`;
const NOT_REGISTERED = "not exists (select 1 from envelopes where project_id = ? and id = ?)";

/** The project exists and is not archived (archived projects are readable, not writable: 404 like any miss). */
export function projectWritable(projectId: string): Condition {
  return { holds: { text: PROJECT_WRITABLE, params: [projectId] }, reason: "not_found" };
}

/** What a registration knows of its token: from a read, or kept by this isolate (caller.ts). */
export interface TokenSeen {
  tokenId: string;
  tokenHash: string;
  /** The owner the token acts as: the registration's session address (DECISIONS 28) was judged with it. */
  address: string;
}

/**
 * The token is the one the caller presented and acts as the same owner as when it was read (issue 26: a kept token
 * must not act as a creator it no longer has), unrevoked, unexpired, and that owner still owns the token's project
 * (DECISIONS 12).
 */
export function tokenLive(token: TokenSeen, now: number): Condition {
  return {
    holds: { text: TOKEN_LIVE, params: [token.tokenId, token.tokenHash, token.address, now] },
    reason: "unauthenticated",
    detail: "API token unknown, revoked or expired",
  };
}

/** The address is still a member of the project in one of `roles`. */
export function memberIn(projectId: string, address: string, roles: readonly string[]): Condition {
  return {
    holds: {
      text: `exists (select 1 from members where project_id = ? and address = ? and role in (${marks(roles.length)}))`,
      params: [projectId, address, ...roles],
    },
    reason: "not_found",
  };
}

/** The stored envelope `id` of `kinds` in the project is still in `status`. */
export function envelopeIn(
  projectId: string,
  id: string,
  kinds: readonly string[],
  status: string,
  reason: Reason,
): Condition {
  return {
    holds: {
      text: `exists (select 1 from envelopes where project_id = ? and id = ? and kind in (${marks(kinds.length)}) and status = ?)`,
      params: [projectId, id, ...kinds, status],
    },
    reason,
    detail: `${id} is no longer ${status}`,
  };
}

/** The envelope is not registered in the project yet. */
export function notRegistered(projectId: string, id: string): Condition {
  return {
    holds: { text: NOT_REGISTERED, params: [projectId, id] },
    reason: "already_registered",
    detail: `${id} is registered`,
  };
}

/** Every condition at once, as one truth. */
export function allHold(conditions: readonly Condition[]): Truth {
  return {
    text: conditions.map((c) => `(${c.holds.text})`).join(" and "),
    params: conditions.flatMap((c) => c.holds.params),
  };
}

/** One read: the first condition that does not hold now, in the order given. */
export async function firstFailing(db: Db, conditions: readonly Condition[]): Promise<Condition | undefined> {
  if (conditions.length === 0) return undefined;
  const columns = conditions.map((c) => `(${c.holds.text})`).join(", ");
  const params = conditions.flatMap((c) => c.holds.params);
  const [values] = await db.$client
    .prepare(`select ${columns}`)
    .bind(...params)
    .raw<number[]>();
  return conditions.find((_, i) => !values?.[i]);
}

/** Throws the reason of the first failing condition; returns when every one holds again. */
export async function refuseFailing(db: Db, conditions: readonly Condition[]): Promise<void> {
  const failing = await firstFailing(db, conditions);
  failing?.onFail?.();
  if (failing) throw new AppError(failing.reason, failing.detail ? { detail: failing.detail } : {});
}
