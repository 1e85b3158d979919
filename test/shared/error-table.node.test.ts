// The head of the error table is exactly the 70 reasons of service-spec.md's fleet error table, with its statuses.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REASONS, SPEC_REASON_COUNT } from "../../shared/errors";

const spec = readFileSync(path.join(import.meta.dirname, "../../../shared/spec/service-spec.md"), "utf8");

/** Splits "a (403), b (400: x, y), c" on the commas outside parentheses. */
function splitTopLevel(cell: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of cell) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  return [...parts, current];
}

function specReasons(): Map<string, number> {
  const table = spec.slice(spec.indexOf("| Class | reason (HTTP) |"), spec.indexOf("These are 70 reasons."));
  const reasons = new Map<string, number>();
  for (const row of table.split("\n").slice(2)) {
    const [, klass = "", cell = ""] = row.split("|").map((c) => c.trim());
    const classStatus = /\((\d{3})\)/.exec(klass)?.[1];
    for (const entry of splitTopLevel(cell)) {
      const match = /^([a-z_]+)(?: \((\d{3}))?/.exec(entry.trim());
      if (match) reasons.set(match[1] as string, Number(match[2] ?? classStatus));
    }
  }
  return reasons;
}

describe("error table against service-spec.md", () => {
  it("holds all 70 spec reasons, first, with the spec's statuses", () => {
    const expected = specReasons();
    expect(expected.size).toBe(SPEC_REASON_COUNT);
    const head = Object.entries(REASONS).slice(0, SPEC_REASON_COUNT);
    expect(new Map(head)).toEqual(expected);
  });

  it("holds the auth host errors with the spec's statuses", () => {
    expect(REASONS).toMatchObject({ not_authenticated: 401, not_in_roster: 403, unknown_did_oc: 404, no_roster: 409 });
  });
});
