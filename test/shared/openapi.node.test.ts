// Each worker's OpenAPI description passes an OpenAPI 3.1 schema validator. Runs in Node: the validator
// compiles JSON Schemas to code at runtime, which workerd forbids. The documents come from the same apps.
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { app as authApp } from "../../workers/auth/src/app";
import { app as fleetApp } from "../../workers/fleet/src/app";
import { app as verifyApp } from "../../workers/verify/src/app";

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
});
