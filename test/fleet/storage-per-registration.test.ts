// The capacity model's storage figure (docs/scale.md): bytes the database grows by per registered action, the
// envelope row, its log leaf and every index included (no outbox event: the project has no endpoint), read from
// D1's own `size_after`. The bound keeps the model honest: a change that makes a registration much larger fails
// here and must update docs/scale.md.
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { action, delegation } from "../helpers/envelopes";
import { signedIn } from "../helpers/fleet";
import { newWallet } from "../helpers/wallet";

/** Below the route's per-client limit (120 a minute), so every registration lands. */
const N = 100;
/** docs/scale.md's figure, with headroom for SQLite page fill: a registration costs at most this many bytes. */
const BYTES_PER_REGISTRATION_MAX = 3072;

async function databaseBytes(): Promise<number> {
  const result = await env.DB.prepare("SELECT 1").run();
  return result.meta.size_after;
}

it(`a registered action grows the database by at most ${BYTES_PER_REGISTRATION_MAX} bytes (${N} measured)`, async () => {
  const principal = newWallet();
  const agent = newWallet();
  const owner = await signedIn(principal.address);
  const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "storage" });
  const projectId = created.body.project.id;
  const grant = await delegation(principal, agent);
  expect(
    (await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: grant.envelope })).status,
  ).toBe(201);
  const actions = await Promise.all(Array.from({ length: N }, () => action(grant.id, agent)));
  const before = await databaseBytes();
  for (const a of actions) {
    const res = await owner.call("POST", "/api/actions", { project_id: projectId, envelope: a.envelope });
    expect(res.status).toBe(201);
  }
  const perRegistration = ((await databaseBytes()) - before) / N;
  console.log(`storage: ${Math.round(perRegistration)} bytes per registered action (${N} measured)`);
  expect(perRegistration).toBeGreaterThan(0);
  expect(perRegistration).toBeLessThanOrEqual(BYTES_PER_REGISTRATION_MAX);
});
