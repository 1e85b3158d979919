// The kit as a site installs it (issue 32): `npm pack` of packages/kit (its prepack builds dist/ from the sources)
// into a folder of the caller's, once per test file. Returns the tarball's path and what npm says it holds.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";

export const ROOT = path.join(import.meta.dirname, "..", "..");
export const KIT_DIR = path.join(ROOT, "packages", "kit");

export interface PackedKit {
  tarball: string;
  files: string[];
  size: number;
  unpackedSize: number;
}

export function packKit(destination: string): PackedKit {
  mkdirSync(destination, { recursive: true });
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], {
    cwd: KIT_DIR,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_loglevel: "error" },
  });
  // prepack's build line comes before npm's JSON on stdout.
  const [info] = JSON.parse(out.slice(out.indexOf("["))) as {
    filename: string;
    files: { path: string }[];
    size: number;
    unpackedSize: number;
  }[];
  if (!info) throw new Error("npm pack printed no package");
  return {
    tarball: path.join(destination, info.filename),
    files: info.files.map((f) => f.path).sort(),
    size: info.size,
    unpackedSize: info.unpackedSize,
  };
}
