// The static assets a deploy uploads with the workers (scripts/build-assets.mjs), built before wrangler reads them:
// by the deploy and by its dry run alike, since `wrangler deploy` (even with --dry-run) stops when the configured
// assets directory does not exist, as on a fresh clone (issue 45). `buildDir` is where .build's folders go.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { root } from "./plan.mjs";

/** The folder the tracked wrangler.toml files build into; the deploy's `buildDir` stands in for it. */
export const DEFAULT_BUILD_DIR = path.join(root, ".build");

/** Builds the assets into `buildDir`; a failure is one Error naming the build's last line of output. */
export function buildAssets(buildDir = DEFAULT_BUILD_DIR) {
  try {
    execFileSync(process.execPath, [path.join(root, "scripts/build-assets.mjs"), "--out", buildDir], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
    });
  } catch (err) {
    const last = String(err.stderr ?? "")
      .trim()
      .split("\n")
      .findLast((l) => l.trim());
    throw new Error(`building the assets (scripts/build-assets.mjs) failed: ${last ?? err.message}`);
  }
}
