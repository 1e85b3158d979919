// The billing ledger's writes. A processor event is applied in one D1 batch (one transaction): the event id is
// recorded first, and every later statement only acts when the row before it carries this batch's `apply_id`.
// So a redelivered event (same id) changes nothing, a payment becomes paid once however many events report it,
// the plan moves once per payment, and the admin log line exists exactly when the plan row changed.
// Over 250 lines on purpose: every write here is one of those guarded batches and they share the guard's builders
// (the apply-id chain, the event record, the plan move); split apart, each file would re-state the same invariant.
import { type SQL, sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { LIGHTNING_PERIOD_MS } from "../../../../shared/billing/plans";
import { randomHex } from "../../../../shared/crypto/digest";
import { orm } from "../../../../shared/db/client";
import { type LogInput, logEntryIf } from "../admin-log";

export type Processor = "card" | "lightning";

export interface ProcessorEvent {
  processor: Processor;
  id: string;
  type: string;
  /** When the processor created the event (ms): card subscription state only moves forward in this order. */
  createdAt: number;
}

/** Who the admin log names for a processor-driven change. */
export const PROCESSOR_ACTOR: Record<Processor, string> = { card: "card_processor", lightning: "lightning_processor" };

/**
 * A card checkout can finish before its first invoice reports the exact period end: until it does, the plan runs
 * to this provisional end (the shortest month, so the invoice's end always wins the max()).
 */
const PROVISIONAL_CARD_PERIOD_MS = 28 * 24 * 60 * 60 * 1000;

interface Batch {
  applyId: string;
  statements: D1PreparedStatement[];
  now: number;
}

// drizzle's batch() cannot carry raw statements with parameters, so these go to D1 directly.
const dialect = new SQLiteAsyncDialect();

function statement(db: D1Database, query: SQL | { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const { sql: text, params } = "toSQL" in query ? query.toSQL() : dialect.sqlToQuery(query);
  return db.prepare(text).bind(...params);
}

function begin(db: D1Database, event: ProcessorEvent): Batch {
  const applyId = randomHex(16);
  const now = Date.now();
  return {
    applyId,
    now,
    statements: [
      statement(
        db,
        sql`insert into processor_events (processor, event_id, type, apply_id, received_at)
        values (${event.processor}, ${event.id}, ${event.type}, ${applyId}, ${now}) on conflict do nothing`,
      ),
    ],
  };
}

/** True inside the batch that recorded the event, false for a redelivery. */
function novel(event: ProcessorEvent, applyId: string): SQL {
  return sql`exists (select 1 from processor_events
    where processor = ${event.processor} and event_id = ${event.id} and apply_id = ${applyId})`;
}

interface CardPlan {
  projectId: string;
  /** SQL for the tier: the paid payment's, or a literal. */
  plan: SQL;
  periodEnd: number;
  customerId: string | null;
  subscriptionId: string | null;
  /** The processor event's `created` (ms): applied only when no newer card state is held. */
  stateAt: number;
  /** The statement acts only when this holds (the event is new, or the payment was paid in this batch). */
  when: SQL;
}

/**
 * The plan as a renewing card subscription: the period runs to the later end, ids already known are kept when the
 * event lacks them, enterprise is never lowered, and an event older than the state held changes nothing.
 */
function cardPlan(db: D1Database, batch: Batch, input: CardPlan): D1PreparedStatement {
  return statement(
    db,
    sql`insert into billing_accounts (project_id, plan, period_end, auto_renew, card_customer_id,
        card_subscription_id, card_state_at, apply_id, updated_at)
      select ${input.projectId}, ${input.plan}, ${input.periodEnd}, 1, ${input.customerId}, ${input.subscriptionId},
        ${input.stateAt}, ${batch.applyId}, ${batch.now} where ${input.when}
      on conflict (project_id) do update set
        plan = case when plan = 'enterprise' then plan else excluded.plan end,
        period_end = max(coalesce(period_end, 0), excluded.period_end), auto_renew = 1,
        card_customer_id = coalesce(excluded.card_customer_id, card_customer_id),
        card_subscription_id = coalesce(excluded.card_subscription_id, card_subscription_id),
        card_state_at = excluded.card_state_at, apply_id = excluded.apply_id, updated_at = excluded.updated_at
      where coalesce(card_state_at, 0) <= excluded.card_state_at`,
  );
}

function planChangedIn(projectId: string, applyId: string): SQL {
  return sql`exists (select 1 from billing_accounts where project_id = ${projectId} and apply_id = ${applyId})`;
}

async function commit(db: D1Database, batch: Batch, logLines: LogInput[] = [], projectId?: string): Promise<boolean> {
  const drizzleDb = orm(db);
  const logged = logLines.map((entry) =>
    statement(db, logEntryIf(drizzleDb, entry, planChangedIn(entry.projectId, batch.applyId))),
  );
  await db.batch([...batch.statements, ...logged]);
  const applied = await db
    .prepare("select count(*) as n from billing_accounts where apply_id = ? and (? is null or project_id = ?)")
    .bind(batch.applyId, projectId ?? null, projectId ?? null)
    .first<{ n: number }>();
  return (applied?.n ?? 0) > 0;
}

export interface Settlement {
  event: ProcessorEvent;
  projectId: string;
  paymentRef: string;
  /** Card: the customer and subscription the checkout created. */
  card?: { customerId: string | null; subscriptionId: string | null };
}

/**
 * A checkout paid: the payment (pending, or an expired lightning invoice paid late) becomes paid, and the plan
 * moves to its tier — lightning for 30 days from the later of now and the current end, card as a renewing
 * subscription. Enterprise is never lowered. Returns whether the plan changed.
 */
export function settlePayment(db: D1Database, input: Settlement): Promise<boolean> {
  const { event, projectId, paymentRef } = input;
  const batch = begin(db, event);
  const { applyId, now } = batch;
  batch.statements.push(
    statement(
      db,
      sql`update payments set status = 'paid', paid_at = ${now}, apply_id = ${applyId}
      where processor = ${event.processor} and processor_ref = ${paymentRef} and project_id = ${projectId}
        and status in ('pending', 'expired') and ${novel(event, applyId)}`,
    ),
  );
  const paid = sql`(select tier from payments
    where processor = ${event.processor} and processor_ref = ${paymentRef} and apply_id = ${applyId})`;
  if (event.processor === "lightning") {
    batch.statements.push(
      statement(
        db,
        sql`insert into billing_accounts (project_id, plan, period_end, auto_renew, apply_id, updated_at)
        select ${projectId}, ${paid}, ${now + LIGHTNING_PERIOD_MS}, 0, ${applyId}, ${now} where ${paid} is not null
        on conflict (project_id) do update set
          plan = case when plan = 'enterprise' then plan else excluded.plan end,
          period_end = max(coalesce(period_end, 0), ${now}) + ${LIGHTNING_PERIOD_MS},
          apply_id = excluded.apply_id, updated_at = excluded.updated_at`,
      ),
    );
  } else {
    const card = input.card ?? { customerId: null, subscriptionId: null };
    batch.statements.push(
      cardPlan(db, batch, {
        projectId,
        plan: paid,
        periodEnd: now + PROVISIONAL_CARD_PERIOD_MS,
        ...card,
        stateAt: event.createdAt,
        when: sql`${paid} is not null`,
      }),
    );
  }
  return commit(db, batch, [
    {
      projectId,
      actor: { id: PROCESSOR_ACTOR[event.processor] },
      eventType: "billing.plan_changed",
      targetId: paymentRef,
      detail: { processor: event.processor, event_id: event.id, cause: "payment" },
    },
  ]);
}

/** A lightning invoice that expired unpaid: its payment shows expired (a late payment can still settle it). */
export async function expirePayment(db: D1Database, event: ProcessorEvent, paymentRef: string): Promise<void> {
  const batch = begin(db, event);
  batch.statements.push(
    statement(
      db,
      sql`update payments set status = 'expired', apply_id = ${batch.applyId}
      where processor = ${event.processor} and processor_ref = ${paymentRef} and status = 'pending'
        and ${novel(event, batch.applyId)}`,
    ),
  );
  await commit(db, batch, []);
}

export interface CardPeriod {
  event: ProcessorEvent;
  projectId: string;
  customerId: string | null;
  subscriptionId: string;
  /** End of the period the invoice paid for (ms). */
  periodEnd: number;
  /** A renewal is a payment of its own; the first invoice is the checkout's payment, already recorded. */
  renewal?: { invoiceId: string; amount: number; currency: string; tier: string };
}

/** An invoice paid: the subscription's period runs to the invoice's end; a renewal adds a payment row. */
export function extendCardPeriod(db: D1Database, input: CardPeriod): Promise<boolean> {
  const { event, projectId, renewal } = input;
  const batch = begin(db, event);
  const { applyId, now } = batch;
  if (renewal) {
    batch.statements.push(
      statement(
        db,
        sql`insert into payments (id, project_id, processor, processor_ref, tier, amount, currency, status,
          created_by, created_at, paid_at, apply_id)
        select ${`pay_${randomHex(12)}`}, ${projectId}, 'card', ${renewal.invoiceId}, ${renewal.tier},
          ${renewal.amount}, ${renewal.currency}, 'paid', ${PROCESSOR_ACTOR.card}, ${now}, ${now}, ${applyId}
        where ${novel(event, applyId)} on conflict do nothing`,
      ),
    );
  }
  batch.statements.push(
    cardPlan(db, batch, {
      projectId,
      plan: sql`'pro'`,
      periodEnd: input.periodEnd,
      customerId: input.customerId,
      subscriptionId: input.subscriptionId,
      stateAt: event.createdAt,
      when: novel(event, applyId),
    }),
  );
  const logged: LogInput[] = renewal
    ? [
        {
          projectId,
          actor: { id: PROCESSOR_ACTOR.card },
          eventType: "billing.plan_renewed",
          targetId: renewal.invoiceId,
          detail: { processor: "card", event_id: event.id, period_end: new Date(input.periodEnd).toISOString() },
        },
      ]
    : [];
  return commit(db, batch, logged);
}

export interface CardSubscriptionState {
  event: ProcessorEvent;
  projectId: string;
  subscriptionId: string;
  /** false: the subscription has ended (deleted, or a terminal status); the plan returns to community now. */
  active: boolean;
  /** The subscription will end at its period end instead of renewing. */
  cancelAtPeriodEnd: boolean;
  periodEnd: number | null;
}

/**
 * The subscription itself changed: ended (plan back to community) or set not to renew (the plan shows an expiry).
 * Applied only when newer than the state already held, so a late event never revives an ended subscription.
 */
export function updateCardSubscription(db: D1Database, input: CardSubscriptionState): Promise<boolean> {
  const { event, projectId, subscriptionId } = input;
  const batch = begin(db, event);
  const { applyId, now } = batch;
  const plan = input.active ? "pro" : "community";
  const periodEnd = input.active ? input.periodEnd : null;
  const autoRenew = input.active && !input.cancelAtPeriodEnd ? 1 : 0;
  batch.statements.push(
    statement(
      db,
      sql`insert into billing_accounts (project_id, plan, period_end, auto_renew, card_subscription_id,
        card_state_at, apply_id, updated_at)
      select ${projectId}, ${plan}, ${periodEnd}, ${autoRenew}, ${input.active ? subscriptionId : null},
        ${event.createdAt}, ${applyId}, ${now} where ${novel(event, applyId)}
      on conflict (project_id) do update set
        plan = case when plan = 'enterprise' then plan else excluded.plan end,
        period_end = case when ${input.active ? 1 : 0} = 1 then coalesce(excluded.period_end, period_end) else null end,
        auto_renew = excluded.auto_renew, card_subscription_id = excluded.card_subscription_id,
        card_state_at = excluded.card_state_at, apply_id = excluded.apply_id, updated_at = excluded.updated_at
      where coalesce(card_state_at, 0) <= excluded.card_state_at
        and (card_subscription_id is null or card_subscription_id = ${subscriptionId})`,
    ),
  );
  return commit(db, batch, [
    {
      projectId,
      actor: { id: PROCESSOR_ACTOR.card },
      eventType: "billing.plan_changed",
      targetId: subscriptionId,
      detail: {
        processor: "card",
        event_id: event.id,
        cause: input.active
          ? input.cancelAtPeriodEnd
            ? "renewal_cancelled"
            : "subscription_updated"
          : "subscription_ended",
      },
    },
  ]);
}

/**
 * How long processor event ids are remembered. Far past both signature tolerances (Stripe 300 s, BTCPay 1 h): an
 * older delivery is refused as stale before its id is looked up, so forgetting it cannot re-apply it.
 */
export const PROCESSOR_EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** The reconciler's sweep of remembered processor event ids. */
export async function forgetOldProcessorEvents(db: D1Database, now: number): Promise<number> {
  const result = await db
    .prepare("delete from processor_events where received_at < ?")
    .bind(now - PROCESSOR_EVENT_RETENTION_MS)
    .run();
  return result.meta.changes ?? 0;
}
