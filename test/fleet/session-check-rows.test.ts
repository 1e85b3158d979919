// What the fleet's session check costs in D1 rows (issue 31, item 8; docs/scale.md "What it costs"): a request
// with the session cookie reads the session row in the auth host's database (caller.ts) and nothing of the
// registry when its route reads nothing (GET /api/webhook-events), counted from D1's own `meta`.
import { describe, expect, it } from "vitest";
import { authDb } from "../helpers/auth-db";
import { recordD1 } from "../helpers/d1-recorder";
import { FLEET, signedIn } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";

describe("what a session check costs in D1 rows", () => {
  it("the cookie's session row, read at the auth database, and nothing written", async () => {
    const owner = await signedIn();
    const auth = recordD1(authDb());
    const { res, settled } = await fleetAnswer(
      new Request(`${FLEET}/api/webhook-events`, {
        headers: { cookie: `oc_session=${owner.cookie}`, "cf-connecting-ip": owner.ip },
      }),
      { AUTH_DB: auth.db },
    );
    expect(res.status).toBe(200);
    await settled();
    const read = auth.rows.reduce((sum, r) => sum + r.read, 0);
    const written = auth.rows.reduce((sum, r) => sum + r.written, 0);
    expect({ statements: auth.calls.length, read, written }).toEqual(SESSION_CHECK);
  });
});

/** One read: the session row by its token hash, joined with its account (2 rows). */
const SESSION_CHECK = { statements: 1, read: 2, written: 0 };
