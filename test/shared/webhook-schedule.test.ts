// Webhook retry schedule as data (service-spec Events rule 4, Limits; WH-14; FLT-08 jitter) and error_message form.
import { describe, expect, it } from "vitest";
import {
  DELIVERY_TIMEOUT_MS,
  errorMessage,
  MAX_ATTEMPTS,
  MAX_ERROR_MESSAGE_LENGTH,
  nextAttemptAt,
  parseRetryAfter,
  RETRY_DELAYS_MS,
} from "../../shared/webhooks";

const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);
const MIN = 60_000;

describe("retry schedule", () => {
  it("has the spec's limits: 6 attempts, delays 1m, 5m, 30m, 2h, 8h, 8-second timeout", () => {
    expect(RETRY_DELAYS_MS).toEqual([MIN, 5 * MIN, 30 * MIN, 120 * MIN, 480 * MIN]);
    expect(MAX_ATTEMPTS).toBe(6);
    expect(RETRY_DELAYS_MS).toHaveLength(MAX_ATTEMPTS - 1);
    expect(DELIVERY_TIMEOUT_MS).toBe(8_000);
  });

  it.each([
    [1, MIN],
    [2, 5 * MIN],
    [3, 30 * MIN],
    [4, 120 * MIN],
    [5, 480 * MIN],
  ])("after attempt %i fails, waits %i ms", (attempt, delay) => {
    expect(nextAttemptAt(attempt, T0)).toBe(T0 + delay);
  });

  it("WH-14: attempts at t0, +1m, +5m, +30m, +2h, +8h, then no 7th", () => {
    const times = [T0];
    let next = nextAttemptAt(1, T0);
    while (next !== null) {
      times.push(next);
      next = nextAttemptAt(times.length, next);
    }
    expect(times).toHaveLength(MAX_ATTEMPTS);
    expect(times.slice(1).map((t, i) => t - (times[i] ?? 0))).toEqual(RETRY_DELAYS_MS);
  });

  it("answers null after attempt 6 and beyond", () => {
    expect(nextAttemptAt(6, T0)).toBeNull();
    expect(nextAttemptAt(7, T0)).toBeNull();
  });

  it("refuses an attempt number that is not a positive integer", () => {
    expect(() => nextAttemptAt(0, T0)).toThrow(RangeError);
    expect(() => nextAttemptAt(1.5, T0)).toThrow(RangeError);
  });

  it("FLT-08: jitter moves each delay by at most ±10%, and out-of-range jitter is clamped", () => {
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      expect(nextAttemptAt(i + 1, T0, 1)).toBe(T0 + delay * 1.1);
      expect(nextAttemptAt(i + 1, T0, -1)).toBe(T0 + delay * 0.9);
      expect(nextAttemptAt(i + 1, T0, 0.5)).toBe(T0 + delay * 1.05);
      expect(nextAttemptAt(i + 1, T0, 5)).toBe(T0 + delay * 1.1);
      expect(nextAttemptAt(i + 1, T0, -5)).toBe(T0 + delay * 0.9);
      expect(nextAttemptAt(i + 1, T0, Number.NaN)).toBe(T0 + delay);
    }
    for (let n = 0; n < 200; n++) {
      const at = nextAttemptAt(2, T0, Math.random() * 2 - 1) ?? 0;
      expect(at - T0).toBeGreaterThanOrEqual(270_000);
      expect(at - T0).toBeLessThanOrEqual(330_000);
      expect(Number.isInteger(at)).toBe(true);
    }
  });
});

describe("parseRetryAfter (WH-12)", () => {
  it("reads delta-seconds and HTTP-dates; null when absent or unreadable", () => {
    expect(parseRetryAfter("120", T0)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", T0)).toBe(0);
    expect(parseRetryAfter(new Date(T0 + 90_000).toUTCString(), T0)).toBe(90_000);
    expect(parseRetryAfter(new Date(T0 - 90_000).toUTCString(), T0)).toBe(0);
    expect(parseRetryAfter(null, T0)).toBeNull();
    expect(parseRetryAfter("", T0)).toBeNull();
    expect(parseRetryAfter("soon", T0)).toBeNull();
    expect(parseRetryAfter("-5", T0)).toBeNull();
  });
});

describe("errorMessage", () => {
  it("is http_<status> for an answer, else the connection error text", () => {
    expect(errorMessage({ status: 500 })).toBe("http_500");
    expect(errorMessage({ status: 302 })).toBe("http_302");
    expect(errorMessage({ status: 410, error: "ignored" })).toBe("http_410");
    expect(errorMessage({ error: "timeout" })).toBe("timeout");
    expect(errorMessage({ error: " connection refused " })).toBe("connection refused");
    expect(errorMessage({})).toBe("connection_error");
    expect(errorMessage({ error: "x".repeat(1000) })).toHaveLength(MAX_ERROR_MESSAGE_LENGTH);
  });
});
