// Every JSON-body route of the verification API, from its /api/openapi (today POST /api/verify), fuzzed with bodies
// drawn from its schema, real signed attestations (as signed and with one field broken) and garbage: never 5xx, and
// a refusal is the error envelope with a reason of the table (see route-fuzz.ts). The worker stores nothing.
import { env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SignedAttestation } from "../../harness/attestations";
import { anyText, spliced } from "../arbitraries";
import { bodies, bodyRoutes, fillPath, sendAndCheck } from "../route-fuzz";

const ORIGIN = "http://localhost:8787";
const routes = await bodyRoutes(ORIGIN);
const signed = JSON.parse(env.TEST_ATTESTATIONS ?? "[]") as SignedAttestation[];

describe("verification API JSON bodies", () => {
  it("the description lists the body routes (enumeration works)", () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toContain("POST /api/verify");
    expect(signed.length).toBeGreaterThan(0);
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      const attestation = fc.constantFrom(...signed);
      const overrides = {
        addr: fc.oneof(
          attestation.map((a) => a.address),
          anyText,
        ),
        msg: fc.oneof(
          attestation.map((a) => a.message),
          spliced(attestation.map((a) => a.message)),
        ),
        sig: fc.oneof(
          attestation.map((a) => a.signature),
          fc.base64String(),
        ),
        scheme: fc.constantFrom("bip322", "legacy", "", "BIP322"),
      };
      await fc.assert(
        fc.asyncProperty(bodies(route.schema, overrides), async (body) => {
          await sendAndCheck(ORIGIN, { method: route.method, path: fillPath(route.path, () => "x") }, body, {});
        }),
        { numRuns: 60 },
      );
    }, 60_000);
  }
});
