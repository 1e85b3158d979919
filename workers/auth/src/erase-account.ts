// The cron's erasure of accounts whose grace period is over (issue 46, item 3): every row naming the account goes
// in one batch behind its tombstone (shared/db/erase.ts); then what lives outside D1 follows: the library's grants
// and the apps it registered (KV), and the fleet projects it owned alone (archived on their registry shard). An
// account that came to own a project with other members since asking is left scheduled, and logged, until that is
// resolved; one whose deletion was undone meanwhile is left whole by the batch itself.

import { eq } from "drizzle-orm";
import { dueForErasure } from "../../../shared/db/account-deletion";
import { orm } from "../../../shared/db/client";
import { erasureBatch } from "../../../shared/db/erase";
import { fleetHoldings, retireSoleProject } from "../../../shared/db/fleet-holdings";
import { listIdentities } from "../../../shared/db/identities";
import { recoveryAddressOf } from "../../../shared/db/recovery-address";
import { registryShards } from "../../../shared/db/registry-shards";
import { oidcClients } from "../../../shared/db/schema";
import { errorFields } from "../../../shared/http/request-line";
import { logEvent } from "../../../shared/http/request-log";
import type { AuthBindings } from "./env";
import { revokeAccountGrants } from "./oidc/grants";
import { oauthApi } from "./oidc/server";

export type Erasure = "erased" | "not_due" | "owns_shared_projects";

/** Erases one account if its deletion is still due at `now`; what happened. */
export async function eraseAccount(env: AuthBindings, accountId: string, now: number): Promise<Erasure> {
  const db = orm(env.DB);
  const identities = await listIdentities(db, accountId);
  const recovery = (await recoveryAddressOf(db, accountId))?.email;
  const emails = identities.filter((i) => i.kind === "email").map((i) => i.value);
  const addresses = identities.filter((i) => i.kind === "btc").map((i) => i.value);
  const shards = registryShards(env, "REGISTRY_DB");
  const held = await fleetHoldings(shards, addresses);
  if (held.shared.length > 0) return "owns_shared_projects";
  const clientIds = (
    await db.select({ id: oidcClients.clientId }).from(oidcClients).where(eq(oidcClients.accountId, accountId))
  ).map((r) => r.id);
  const erasing = { accountId, emails: recovery ? [...emails, recovery] : emails, clientIds, now };
  const [tombstone] = await db.batch(erasureBatch(db, erasing));
  if (tombstone.length === 0) return "not_due";
  for (const project of held.sole) {
    const shard = shards.find((s) => s.index === project.shard);
    if (shard) await retireSoleProject(shard, project.project_id, now);
  }
  await revokeAccountGrants(env, accountId);
  if (clientIds.length > 0) {
    const api = await oauthApi(env);
    for (const id of clientIds) {
      try {
        await api.deleteClient(id);
      } catch (err) {
        logEvent("auth", "oidc_client_not_deleted", { ...errorFields(err), client_id: id }, "error");
      }
    }
  }
  return "erased";
}

/** The cron's run: every account due at `now` (up to ERASURES_PER_RUN), erased one by one; counts by outcome. */
export async function eraseDueAccounts(env: AuthBindings, now: number): Promise<Record<Erasure, number>> {
  const counts: Record<Erasure, number> = { erased: 0, not_due: 0, owns_shared_projects: 0 };
  for (const { id } of await dueForErasure(orm(env.DB), now)) {
    const outcome = await eraseAccount(env, id, now);
    counts[outcome] += 1;
    if (outcome === "owns_shared_projects") logEvent("auth", "account_erasure_held", { account: id });
  }
  return counts;
}
