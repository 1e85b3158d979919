// Leaving (issue 46, item 3): read, ask and undo the active account's deletion. Asking needs a fresh step-up when the
// account has a security key, else a fresh sudo that is not a recovery sign-in's; it is refused (409
// account_owns_shared_projects) while an address of the account owns a fleet project with other members. Asked, the
// account's other sessions end, every address is mailed, and the cron erases it when the grace period is over
// (erase-account.ts); signing in again meanwhile shows the undo on /account.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  cancelDeletion,
  graceMs,
  type Scheduled,
  scheduleDeletion,
  scheduledDeletion,
} from "../../../../shared/db/account-deletion";
import { orm } from "../../../../shared/db/client";
import { fleetHoldings, type Holdings } from "../../../../shared/db/fleet-holdings";
import { listIdentities } from "../../../../shared/db/identities";
import { registryShards } from "../../../../shared/db/registry-shards";
import { accountKeys } from "../../../../shared/db/webauthn";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { DAY, isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import { tellDeletionScheduled } from "../account-notices";
import type { AuthEnv } from "../env";
import { requireFreshSession } from "../fresh-session";
import { changeBy, requireSession } from "../session-context";

export const accountDeletionRoutes = routeGroup<AuthEnv>();

const ProjectRef = z.object({ project_id: z.string(), project_name: z.string() });
const DeletionSchema = z
  .object({ requested_at: z.string(), due_at: z.string() })
  .nullable()
  .openapi("AccountDeletion", { description: "The scheduled deletion, or null when none is" });
const DeletionState = z.object({
  ok: z.literal(true),
  deletion: DeletionSchema,
  grace_days: z.number().int(),
  shared_projects: z.array(ProjectRef.extend({ other_members: z.number().int() })),
  sole_projects: z.array(
    ProjectRef.extend({ audit_export: z.string().describe("The project's last export, on the fleet host") }),
  ),
});

const view = (s: Scheduled | undefined) =>
  s === undefined ? null : { requested_at: isoMs(s.requestedAt), due_at: isoMs(s.dueAt) };

/** The account's Bitcoin addresses: fleet membership is by address. */
async function addressesOf(c: Context<AuthEnv>, accountId: string): Promise<string[]> {
  const identities = await listIdentities(orm(c.env.DB), accountId);
  return identities.filter((i) => i.kind === "btc").map((i) => i.value);
}

/** What the account holds in the fleet's registry, on every shard the auth host can read. */
export async function holdingsOf(c: Context<AuthEnv>, accountId: string): Promise<Holdings> {
  return fleetHoldings(registryShards(c.env, "REGISTRY_DB"), await addressesOf(c, accountId));
}

const projectRefs = (held: Holdings, fleetOrigin: string) => ({
  shared_projects: held.shared.map(({ project_id, project_name, other_members }) => ({
    project_id,
    project_name,
    other_members,
  })),
  sole_projects: held.sole.map(({ project_id, project_name }) => ({
    project_id,
    project_name,
    audit_export: `${fleetOrigin}/api/audit/export?project_id=${encodeURIComponent(project_id)}`,
  })),
});

accountDeletionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/account/deletion",
    summary: "The active account's scheduled deletion, and the fleet projects that hold it back or go with it",
    middleware: [rateLimit({ bucket: "account-deletion-read", rule: READ_RULE, failClosed: true })],
    responses: {
      200: json(DeletionState, "The schedule (or null) and the projects"),
      ...errorResponses("not_authenticated", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const db = orm(c.env.DB);
    const [scheduled, held] = await Promise.all([
      scheduledDeletion(db, session.accountId),
      holdingsOf(c, session.accountId),
    ]);
    c.header("Cache-Control", "no-store");
    const grace_days = graceMs(c.env.ACCOUNT_DELETION_GRACE_DAYS) / DAY;
    return c.json(
      { ok: true as const, deletion: view(scheduled), grace_days, ...projectRefs(held, c.env.FLEET_ORIGIN) },
      200,
    );
  },
);

accountDeletionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/account/deletion",
    summary: "Schedule the active account's deletion (a fresh step-up, or sudo when it has no security key)",
    description:
      "Needs a hardware-key assertion within 10 minutes when the account has a security key (403 step_up_required), " +
      "else a proof within 10 minutes that is not a recovery sign-in (403 sudo_required). Refused with 409 " +
      "account_owns_shared_projects while an address of the account owns a fleet project with other members " +
      "(transfer it first); projects it owns alone are archived with it. Ends every other session of the account, " +
      "mails every address, and logs account.deletion_scheduled. The account is erased by the cron once " +
      "ACCOUNT_DELETION_GRACE_DAYS (default 7) have passed, unless undone (DELETE) before.",
    middleware: [rateLimit({ bucket: "account-deletion", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    responses: {
      200: json(DeletionState, "Scheduled (asking again keeps the first schedule)"),
      ...errorResponses(
        "not_authenticated",
        "sudo_required",
        "step_up_required",
        "account_owns_shared_projects",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const db = orm(c.env.DB);
    const hasKey = (await accountKeys(db, session.accountId)).length > 0;
    await requireFreshSession(c, now, [hasKey ? "step_up" : "sudo"]);
    const held = await holdingsOf(c, session.accountId);
    if (held.shared.length > 0) {
      const names = held.shared.map((p) => `"${p.project_name}" (${p.project_id})`).join(", ");
      throw new AppError("account_owns_shared_projects", {
        detail: `transfer the ownership of ${names} to another member first`,
      });
    }
    const grace = graceMs(c.env.ACCOUNT_DELETION_GRACE_DAYS);
    const scheduled = await scheduleDeletion(db, changeBy(session, now), now + grace);
    if (scheduled.requestedAt === now) await tellDeletionScheduled(c, session.accountId, scheduled.dueAt, now);
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        ok: true as const,
        deletion: view(scheduled),
        grace_days: grace / DAY,
        ...projectRefs(held, c.env.FLEET_ORIGIN),
      },
      200,
    );
  },
);

accountDeletionRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/auth/account/deletion",
    summary: "Undo the active account's scheduled deletion (any session of it, during the grace period)",
    middleware: [rateLimit({ bucket: "account-deletion", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    responses: {
      200: json(z.object({ ok: z.literal(true), cancelled: z.boolean() }), "Undone (cancelled: false when none was)"),
      ...errorResponses("not_authenticated", "cross_site_blocked", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const cancelled = await cancelDeletion(orm(c.env.DB), changeBy(session, now));
    return c.json({ ok: true as const, cancelled }, 200);
  },
);
