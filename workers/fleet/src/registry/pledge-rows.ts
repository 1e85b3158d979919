// The conditions that select pledges, their resolutions and actions, written as SQL literals: the partial indexes on
// them (envelopes_pledge_id, _pledges_pending, _resolutions, d1-migrations/0013; envelopes_delegation, which holds
// actions only since 0021) serve a query only when its WHERE holds
// the index's own terms, and a bound parameter (`kind = ?`, which `eq()` writes) is not one.
// test/fleet/registry-query-plans.test.ts holds every such read to an index.
import { sql } from "drizzle-orm";
import { envelopes } from "../../../../shared/db/schema";

export const isPledge = sql`${envelopes.kind} = 'pledge'`;
export const isPendingPledge = sql`${envelopes.kind} = 'pledge' AND ${envelopes.status} = 'pending'`;
export const isResolution = sql`${envelopes.kind} IN ('outcome', 'abandonment')`;
export const isAction = sql`${envelopes.kind} = 'action'`;
