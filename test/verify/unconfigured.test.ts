// The verification API deployed without relays to read attestations from: 503 relays_not_configured, never an
// empty answer that would read as "nothing attested".
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/verify/src/app";
import type { VerifyBindings } from "../../workers/verify/src/env";

describe("not configured: 503 with the table's reason", () => {
  it("no NOSTR_RELAYS: discover answers relays_not_configured", async () => {
    const res = await app.request(
      `http://localhost:8787/api/discover?id=${"a".repeat(64)}`,
      { headers: { "cf-connecting-ip": "192.0.2.250" } },
      { ...(env as unknown as VerifyBindings), NOSTR_RELAYS: "" },
    );
    expect(res.status).toBe(503);
    expect(((await res.json()) as { reason: string }).reason).toBe("relays_not_configured");
  });
});
