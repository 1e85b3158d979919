// Every JSON-body route of the auth host, from its /api/openapi, fuzzed as a signed-in browser (BIP-322 sign-in
// through the real route) with a Connect app key where the route wants one: never 5xx, refusals are table reasons,
// refused writes store nothing (see route-fuzz.ts).
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { AUTH_ORIGIN, Browser } from "../../helpers/browser";
import { newWallet } from "../../helpers/wallet";
import { type BodyRoute, bodies, bodyRoutes, fillPath, sendAndCheck } from "../route-fuzz";

const routes = await (async () => {
  // Top-level await runs before any test: read the description once.
  return bodyRoutes(AUTH_ORIGIN);
})();

let browser: Browser;
let appKey: string;
let appId: string;
let didOc: string;

beforeAll(async () => {
  browser = new Browser();
  const signIn = await browser.signIn(newWallet());
  expect(signIn.status).toBe(200);
  didOc = ((await signIn.json()) as { account: { did_oc: string } }).account.did_oc;
  const app = await browser.post("/api/connect/apps", { name: "fuzz" });
  const body = (await app.json()) as { app: { id: string }; key: string };
  appKey = body.key;
  appId = body.app.id;
});

function headers(route: BodyRoute): Record<string, string> {
  const h: Record<string, string> = { "sec-fetch-site": "same-origin", cookie: `oc_session=${browser.cookie}` };
  if (route.path === "/api/connect/provision") h.authorization = `Bearer ${appKey}`;
  return h;
}

describe("auth host JSON bodies", () => {
  it("the description lists the body routes (enumeration works)", () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(["POST /api/auth/signin", "POST /api/challenge", "PATCH /api/auth/account"]),
    );
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      const overrides = { did_oc: fc.oneof(fc.constant(didOc), fc.stringMatching(/^did:oc:[0-9a-f]{32}$/)) };
      await fc.assert(
        fc.asyncProperty(bodies(route.schema, overrides), async (body) => {
          const path = fillPath(route.path, () => appId);
          const { setCookie } = await sendAndCheck(AUTH_ORIGIN, { method: route.method, path }, body, headers(route));
          // A profile change re-issues the cookie: keep the browser signed in for the next body.
          const cookie = /^oc_session=([^;]+)/.exec(setCookie ?? "")?.[1];
          if (cookie) browser.cookie = cookie;
        }),
        { numRuns: 25 },
      );
    }, 60_000);
  }
});
