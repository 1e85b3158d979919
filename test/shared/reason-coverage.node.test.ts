// Every reason in the one error table can be produced by the code and is asserted by a test (issue 17): a reason
// no code names is dead weight in the API, and one no test names is a promise nothing holds the code to.
// Read statically: a reason is produced where a source file outside the table names it as a string, and asserted
// where a test file names it. The files that enumerate the whole table do not count (they would name every one).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REASONS, type Reason } from "../../shared/errors";

const root = path.join(import.meta.dirname, "../..");

function filesUnder(dir: string, test: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...filesUnder(full, test));
    else if (test(full)) out.push(full);
  }
  return out;
}

/** The table itself, and the files that walk all of it. */
const ENUMERATING = new Set(
  [
    "shared/errors.ts",
    "shared/reasons.ts",
    "test/shared/reason-coverage.node.test.ts",
    "test/shared/error-table.node.test.ts",
  ].map((f) => path.join(root, f)),
);

const read = (files: string[]) => files.filter((f) => !ENUMERATING.has(f)).map((f) => readFileSync(f, "utf8"));
const code = read([
  ...filesUnder(path.join(root, "workers"), (f) => /\.(ts|tsx)$/.test(f)),
  ...filesUnder(path.join(root, "shared"), (f) => /\.(ts|tsx)$/.test(f)),
]);
const tests = read(filesUnder(path.join(root, "test"), (f) => /\.(ts|mts|mjs)$/.test(f)));
const named = (texts: string[], reason: string) => {
  const quoted = new RegExp(`["'\`]${reason}["'\`]`);
  return texts.some((text) => quoted.test(text));
};

const reasons = Object.keys(REASONS) as Reason[];

describe("reason coverage", () => {
  it("every reason is named by the code outside the table", () => {
    expect(reasons.filter((r) => !named(code, r))).toEqual([]);
  });

  it("every reason is asserted by a test", () => {
    expect(reasons.filter((r) => !named(tests, r))).toEqual([]);
  });
});
