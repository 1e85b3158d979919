// The workers' binding types are the configuration's (issue 28): workers/<w>/src/bindings.generated.ts is what
// `wrangler types` gives for each wrangler.toml now, so a binding renamed or removed in a configuration without
// `npm run types` fails here (and each env.ts extends its file, so the code sees the change as a type error).
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = path.join(import.meta.dirname, "../..");
const execute = promisify(execFile);

describe("binding types", () => {
  it("each worker's generated bindings are current with its wrangler.toml", async () => {
    const checked = await execute(process.execPath, ["scripts/binding-types.mjs", "--check"], { cwd: root }).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect(checked).toMatchObject({ stderr: "" });
  }, 60_000);
});
