// The error table against docs/errors.md: its head is exactly the 70 compatibility reasons the page lists, with their
// statuses, and what GET /api/reasons serves (the shared meta route itself) holds every promised reason with a message.
import { readFileSync } from "node:fs";
import path from "node:path";
import { OpenAPIHono } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { REASONS, SPEC_REASON_COUNT } from "../../shared/errors";
import { mountMetaRoutes } from "../../shared/http/meta-routes";
import { authHostReasons, compatibilityReasons, overloadReasons } from "../helpers/contract-reasons";

const contract = readFileSync(path.join(import.meta.dirname, "../../docs/errors.md"), "utf8");

async function served(): Promise<{ reason: string; status: number; message: string }[]> {
  const app = new OpenAPIHono();
  mountMetaRoutes(app, { name: "test", title: "Test", version: "0" });
  const res = await app.request("/api/reasons");
  expect(res.status).toBe(200);
  return ((await res.json()) as { reasons: { reason: string; status: number; message: string }[] }).reasons;
}

describe("error table against docs/errors.md", () => {
  it("holds the 70 compatibility reasons, first, with their statuses", () => {
    const expected = compatibilityReasons(contract);
    expect(expected.size).toBe(SPEC_REASON_COUNT);
    const head = Object.entries(REASONS).slice(0, SPEC_REASON_COUNT);
    expect(new Map(head)).toEqual(expected);
  });

  it("holds the auth host errors with their statuses", () => {
    const expected = authHostReasons(contract);
    expect([...expected.keys()].sort()).toEqual([
      "invalid_challenge",
      "no_roster",
      "not_authenticated",
      "not_in_roster",
      "unknown_did_oc",
    ]);
    for (const [reason, status] of expected) {
      expect(Object.hasOwn(REASONS, reason), reason).toBe(true);
      expect(REASONS[reason as keyof typeof REASONS], reason).toBe(status);
    }
  });

  it("holds the overload refusal with its status (a 503 with Retry-After, issue 47)", () => {
    expect([...overloadReasons(contract)]).toEqual([["overloaded", 503]]);
    expect(REASONS.overloaded).toBe(503);
  });

  it("serves at /api/reasons every promised reason, in the page's order, with its status and a sentence", async () => {
    const list = await served();
    const head = list.slice(0, SPEC_REASON_COUNT).map(({ reason, status }) => [reason, status] as const);
    expect(new Map(head)).toEqual(compatibilityReasons(contract));
    expect([...new Map(head).keys()]).toEqual([...compatibilityReasons(contract).keys()]);
    for (const [reason, status] of [...authHostReasons(contract), ...overloadReasons(contract)]) {
      const entry = list.find((e) => e.reason === reason);
      expect(entry, reason).toBeDefined();
      expect(entry?.status, reason).toBe(status);
    }
    expect(new Set(list.map((e) => e.reason)).size).toBe(list.length);
    for (const { reason, message } of list) {
      // A sentence for a person: capitalised, ends with a full stop, and never the code itself.
      expect(message, reason).toMatch(/^[A-Z].{8,118}\.$/);
      expect(message, reason).not.toContain(reason);
      expect(message, reason).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    }
  });
});
