// The optimizer's package list (workerd-deps.mjs): read from the workerd files' imports, so a subpath a worker starts
// importing is bundled with the rest, and a package only Node tests load is left out.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importSpecifiers, workerdDependencies } from "./workerd-deps.mjs";

const ROOT = path.join(import.meta.dirname, "../..");

describe("importSpecifiers", () => {
  it("reads every form of import and re-export, and skips type-only imports", () => {
    const source = [
      'import a from "pkg-a";',
      'import "pkg-b/side-effect";',
      'export { c } from "pkg-c";',
      "export * from './local';",
      'const d = await import("pkg-d");',
      "import {\n  e,\n  f,\n} from 'pkg-e/sub.js';",
      'import type { G } from "pkg-type-only";',
      'export type { H } from "pkg-type-only-too";',
    ].join("\n");
    expect(importSpecifiers(source).sort()).toEqual([
      "./local",
      "pkg-a",
      "pkg-b/side-effect",
      "pkg-c",
      "pkg-d",
      "pkg-e/sub.js",
    ]);
  });
});

describe("workerdDependencies", () => {
  const deps = workerdDependencies(ROOT, ["test/helpers/log-scan.ts", "test/helpers/apply-migrations.ts"]);

  it("lists the packages and subpaths the workers import, hono's HTTPException among them", () => {
    for (const specifier of ["hono", "hono/http-exception", "zod", "drizzle-orm", "jose", "@hono/zod-openapi"]) {
      expect(deps).toContain(specifier);
    }
  });

  it("leaves out what workerd or the runner provides and what only Node tests load", () => {
    for (const specifier of ["vitest", "cloudflare:test", "node:crypto", "bip322-js", "playwright-core"]) {
      expect(deps).not.toContain(specifier);
    }
    expect(deps.every((d) => !d.startsWith(".") && !d.startsWith("/"))).toBe(true);
  });
});
