// `npm test`'s static checks (scripts/checks.mjs): the commands come from package.json's typecheck and lint scripts,
// run side by side, and one failing fails the whole without stopping the others.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandsOf, runAll } from "../../scripts/checks.mjs";

const ROOT = path.join(import.meta.dirname, "../..");

describe("checks", () => {
  it("runs exactly the commands of the typecheck and lint scripts", () => {
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
    const commands = commandsOf(scripts, ["typecheck", "lint"]);
    expect(commands.join(" && ")).toBe(`${scripts.typecheck} && ${scripts.lint}`);
    expect(commands.filter((c) => c.startsWith("tsc "))).toHaveLength(scripts.typecheck.split("&&").length);
    expect(() => commandsOf(scripts, ["no-such-script"])).toThrow(/no-such-script/);
  });

  it("runs commands side by side, runs them all when one fails, and names the failures", async () => {
    const sleep = `node -e "setTimeout(() => {}, 1500)"`;
    const started = Date.now();
    const failed = await runAll([sleep, "node -e process.exit(3)", sleep], 2, ROOT);
    // Two lanes: the two sleeps overlap (one after the quick failure), so well under three sleeps' time.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(failed).toEqual(["node -e process.exit(3)"]);
  });
});
