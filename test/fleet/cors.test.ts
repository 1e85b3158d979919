// Browsers as clients (issue 32): the fleet's routes take the session cookie or a project's bearer token, so none
// answers CORS (a page of another origin can neither read them nor pass a preflight); only its public documents are
// permissive: the OpenAPI description and the list of public logs (log-public-list.test.ts). Every route path
// without parameters, swept from the router.
import { describe, expect, it } from "vitest";
import { app } from "../../workers/fleet/src/app";
import { expectNoCors } from "../helpers/cors";
import { FLEET } from "../helpers/fleet";
import { getRoutes } from "../helpers/page-routes";

describe("no CORS on the fleet", () => {
  it("no CORS header on a GET, and no permissive preflight, on any route but the OpenAPI description", async () => {
    const paths = [...new Set(app.routes.map((r) => r.path))].filter(
      (p) => !p.includes(":") && !p.includes("*") && p !== "/api/openapi" && p !== "/api/logs/public",
    );
    await expectNoCors(FLEET, paths, {
      gets: new Set(getRoutes(app)),
      preflight: { "access-control-request-method": "POST", "access-control-request-headers": "authorization" },
    });
    expect(paths).toContain("/api/projects");
  });
});
