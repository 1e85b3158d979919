// Each worker's OpenAPI description passes an OpenAPI 3.1 schema validator, and each describes exactly the routes
// it answers, its own and those it forwards (auth to verify, the fleet's session routes to auth). Runs in Node:
// the validator compiles JSON Schemas to code at runtime, which workerd forbids. The documents come from the apps.
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { app as authApp } from "../../workers/auth/src/app";
import { app as fleetApp } from "../../workers/fleet/src/app";
import { app as verifyApp } from "../../workers/verify/src/app";

type Router = { routes: { method: string; path: string }[] };

/**
 * "GET /api/x/{id}" for each handler a router answers. `use()` middleware is listed as "ALL" on a wildcard path
 * ("*", "/api/*"), so those entries are not routes.
 */
function answered(app: Router): Set<string> {
  const out = new Set<string>();
  for (const { method, path } of app.routes) {
    if (method === "ALL" && path.includes("*")) continue;
    // A parameter with a pattern (`:tile_path{.+}`: a log tile's path spans segments) is documented by its name.
    out.add(`${method} ${path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`);
  }
  return out;
}

/**
 * A worker's routes, with each forwarding route ("ALL /api/check") replaced by what the worker it forwards to
 * answers there: the auth host forwards to verify, the fleet forwards the session routes to auth.
 */
function withForwarded(app: Router, target: Router): Set<string> {
  const answeredThere = answered(target);
  const out = new Set<string>();
  for (const route of answered(app)) {
    const [method, path] = route.split(" ");
    if (method !== "ALL") {
      out.add(route);
      continue;
    }
    const forwarded = [...answeredThere].filter((r) => r.endsWith(` ${path}`));
    // A catch-all of the worker's own would answer methods nobody documented: only forwarding is allowed.
    expect(forwarded, `${route}: not a route of the worker it forwards to`).not.toEqual([]);
    for (const r of forwarded) out.add(r);
  }
  return out;
}

function documented(document: { paths: Record<string, Record<string, unknown>> }): Set<string> {
  const out = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of Object.keys(operations)) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

describe("OpenAPI 3.1 descriptions", () => {
  for (const [name, app] of [
    ["auth", authApp],
    ["fleet", fleetApp],
    ["verify", verifyApp],
  ] as const) {
    it(`${name}: /api/openapi is a valid OpenAPI 3.1 document`, async () => {
      const res = await app.request("/api/openapi");
      expect(res.status).toBe(200);
      const document = (await res.json()) as Record<string, unknown>;
      const validator = new Validator();
      const result = await validator.validate(document);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe("3.1");
    });
  }

  it("describes the auth routes from the same schemas they validate with", async () => {
    const document = (await (await authApp.request("/api/openapi")).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(document.paths["/api/auth/signin"]?.post?.requestBody).toBeDefined();
    const switchResponses = Object.keys(document.paths["/api/auth/switch"]?.post?.responses ?? {});
    for (const status of ["200", "401", "403", "404", "409", "429"]) expect(switchResponses).toContain(status);
    for (const schema of ["Account", "RosterEntry", "Error", "SignInRequest", "Challenge", "JWKS"]) {
      expect(document.components.schemas[schema], schema).toBeDefined();
    }
  });

  it("auth: the document describes every route the host answers (whichever worker serves it), and no other", async () => {
    const document = (await (await authApp.request("/api/openapi")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect([...documented(document)].sort()).toEqual([...withForwarded(authApp, verifyApp)].sort());
    for (const route of ["POST /api/verify", "GET /api/check", "GET /api/discover", "GET /api-explorer"]) {
      expect(documented(document).has(route), route).toBe(true);
    }
  });

  it("fleet: the document describes every route the worker answers, and no other", async () => {
    const document = (await (await fleetApp.request("/api/openapi")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect([...documented(document)].sort()).toEqual([...withForwarded(fleetApp, authApp)].sort());
    for (const route of ["GET /api/auth/me", "POST /api/auth/logout", "GET /", "GET /dashboard/config.json"]) {
      expect(documented(document).has(route), route).toBe(true);
    }
  });

  it("verify: the document describes every route the worker answers", async () => {
    const document = (await (await verifyApp.request("/api/openapi")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect([...documented(document)].sort()).toEqual([...answered(verifyApp)].sort());
  });
});
