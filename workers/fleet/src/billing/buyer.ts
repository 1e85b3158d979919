// Who may buy and where the buyer returns (service-spec Billing, rule 12): an owner, signed in (a bearer token acts
// as owner elsewhere, but cannot spend money or reach the payment methods); the dashboard's billing view.
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { billingAccounts } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { type Access, projectAccess, requireSignedInOwner } from "../access";
import type { FleetEnv } from "../env";

/** Buying and the portal: an owner, signed in (a bearer token acts as owner, but does not spend money). */
export async function ownerSession(c: Context<FleetEnv>, projectId: string): Promise<Access> {
  const access = await projectAccess(c, projectId, { write: true });
  requireSignedInOwner(access, "billing");
  return access;
}

/** The project's card-processor customer, once a card checkout has completed. */
export async function cardCustomerOf(access: Access): Promise<string | null> {
  const row = await access.db
    .select({ customer: billingAccounts.cardCustomerId })
    .from(billingAccounts)
    .where(eq(billingAccounts.projectId, access.project.id))
    .get();
  return row?.customer ?? null;
}

/** Where the processor sends the buyer back: the dashboard's billing view (needs FLEET_ORIGIN). */
export function returnUrl(c: Context<FleetEnv>, projectId: string, outcome: string): string {
  const origin = c.env.FLEET_ORIGIN;
  if (!origin) throw new AppError("checkout_not_configured", { detail: "FLEET_ORIGIN is not set" });
  return `${origin.replace(/\/+$/, "")}/dashboard/?project=${projectId}&billing=${outcome}`;
}
