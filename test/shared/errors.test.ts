// The one error table: statuses, sentences, the rendered envelope, and the spec's 70 reasons at its head.
import { describe, expect, it } from "vitest";
import { AppError, errorResponse, REASON_TABLE, REASONS, type Reason, SPEC_REASON_COUNT } from "../../shared/errors";

describe("error table", () => {
  it("gives every reason a 4xx or 5xx status", () => {
    for (const [reason, status] of Object.entries(REASONS)) {
      expect(status >= 400 && status < 600, reason).toBe(true);
      expect(reason).toMatch(/^[a-z0-9_]+$/);
    }
    expect(Object.keys(REASONS).length).toBeGreaterThan(SPEC_REASON_COUNT);
  });

  it("gives every reason a sentence for a person, and derives the status map from the same table", () => {
    for (const [reason, { status, message }] of Object.entries(REASON_TABLE)) {
      expect(REASONS[reason as Reason], reason).toBe(status);
      expect(message, reason).toMatch(/^[A-Z].*[.]$/);
      expect(message, reason).not.toContain(reason);
    }
    expect(Object.keys(REASONS)).toEqual(Object.keys(REASON_TABLE));
  });

  it("renders {ok:false, reason, detail?} with the table's status and extra headers", async () => {
    const res = errorResponse(new AppError("method_not_allowed", { detail: "use POST", headers: { Allow: "POST" } }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await res.json()).toEqual({ ok: false, reason: "method_not_allowed", detail: "use POST" });
  });

  it("renders a 429 body without detail", async () => {
    const res = errorResponse(new AppError("rate_limited", { detail: "internal" }));
    expect(await res.json()).toEqual({ ok: false, reason: "rate_limited" });
  });

  it("attack on the mapping: a reason outside the table renders 500 internal_error, never a 2xx", async () => {
    // The compiler refuses such a reason; this simulates one arriving at run time (e.g. from parsed data).
    const unknown = JSON.parse('"no_such_reason"') as never;
    const res = errorResponse(new AppError(unknown));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ ok: false, reason: "internal_error" });
    const inherited = errorResponse(new AppError(JSON.parse('"toString"') as never));
    expect(inherited.status).toBe(500);
  });
});
