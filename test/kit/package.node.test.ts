// The kit checked like a library (issue 32): the packed tarball holds the kit and nothing else, publint and
// arethetypeswrong pass on it, every declaration is self-contained, and the consumer verifier's own code keeps to
// its budget (packages/kit/README.md, "Sizes").
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ENTRIES } from "../../scripts/kit/entries.mjs";
import { measure } from "../../scripts/kit/sizes.mjs";
import { KIT_DIR, type PackedKit, packKit, ROOT } from "../helpers/kit-tarball";

const bin = (name: string) => path.join(ROOT, "node_modules", ".bin", name);
/** The consumer verifier's own code (jose left as an import), minified and gzipped: the budget the README states. */
const CONSUMER_BUDGET = { min: 6 * 1024, gzip: 3 * 1024 };

let packed: PackedKit;
let unpacked: string;

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), "oc-kit-pack-"));
  packed = packKit(dir);
  unpacked = path.join(dir, "unpacked");
  execFileSync("mkdir", ["-p", unpacked]);
  execFileSync("tar", ["-xzf", packed.tarball, "-C", unpacked]);
}, 120_000);

describe("@open-oc/kit as packed", () => {
  it("holds dist/, its README, licence and changelog: no service source, script, WASM or doc", () => {
    const outside = packed.files.filter(
      (file) =>
        !/^dist\/[\w.-]+\.(js|d\.ts)$/.test(file) &&
        !["package.json", "README.md", "LICENSE", "CHANGELOG.md"].includes(file),
    );
    expect(outside).toEqual([]);
    for (const name of ["README.md", "LICENSE", "CHANGELOG.md"]) expect(packed.files).toContain(name);
    for (const name of [...Object.keys(ENTRIES), "open-oc"]) expect(packed.files).toContain(`dist/${name}.js`);
    for (const name of Object.keys(ENTRIES)) expect(packed.files).toContain(`dist/${name}.d.ts`);
    expect(packed.size).toBeLessThan(100 * 1024);
  });

  it("passes publint (strict) and arethetypeswrong (ESM-only profile)", () => {
    const publint = spawnSync(bin("publint"), [packed.tarball, "--strict"], { encoding: "utf8" });
    expect(publint.status, publint.stdout + publint.stderr).toBe(0);
    const attw = spawnSync(bin("attw"), [packed.tarball, "--profile", "esm-only", "--format", "ascii"], {
      encoding: "utf8",
    });
    expect(attw.status, attw.stdout + attw.stderr).toBe(0);
  }, 120_000);

  it("declares its exports with types first, no side effects, an engine, and the kit's runtime dependencies only", () => {
    const pkg = JSON.parse(readFileSync(path.join(unpacked, "package", "package.json"), "utf8"));
    expect(pkg.name).toBe("@open-oc/kit");
    expect(pkg.type).toBe("module");
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.engines.node).toMatch(/^>=/);
    expect(pkg.license).toBe("MIT");
    for (const [subpath, target] of Object.entries(pkg.exports as Record<string, unknown>)) {
      if (typeof target === "string") continue;
      expect(Object.keys(target as object), subpath).toEqual(["types", "default"]);
    }
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      "@noble/curves",
      "@noble/hashes",
      "@scure/base",
      "@scure/btc-signer",
      "jose",
    ]);
    expect(pkg.peerDependenciesMeta.hono.optional).toBe(true);
  });

  it("has declarations that import nothing but each other, jose and hono (no repository source path)", () => {
    const dist = path.join(unpacked, "package", "dist");
    for (const name of Object.keys(ENTRIES)) {
      const text = readFileSync(path.join(dist, `${name}.d.ts`), "utf8");
      const specifiers = [...text.matchAll(/from ['"]([^'"]+)['"]|import ['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2]);
      for (const specifier of specifiers) expect(specifier, name).toMatch(/^(\.\/[\w-]+\.js|jose|hono)$/);
    }
  });

  it("keeps the consumer verifier's own code within its budget", async () => {
    const size = await measure(ENTRIES.consumer, { withDependencies: false });
    expect(size.min).toBeLessThanOrEqual(CONSUMER_BUDGET.min);
    expect(size.gzip).toBeLessThanOrEqual(CONSUMER_BUDGET.gzip);
  });

  it("is built from the same sources the service imports", () => {
    const pkg = JSON.parse(readFileSync(path.join(KIT_DIR, "package.json"), "utf8"));
    expect(pkg.scripts.prepack).toBe("node ../../scripts/kit/build.mjs");
    for (const source of Object.values(ENTRIES)) expect(source).toMatch(/^shared\/kit\//);
  });
});
