// `npm start` (scripts/dev.mjs) refuses a port already in use before it sets anything up: one line naming the
// port and what to do, exit 1 (it used to start wrangler, which failed, and exit 0).
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.join(import.meta.dirname, "../..");

describe("npm start", () => {
  it("refuses a port already in use, in one line, with exit 1", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = spawnSync(process.execPath, ["scripts/dev.mjs"], {
        cwd: root,
        encoding: "utf8",
        timeout: 20_000,
        env: { ...process.env, PORT_FLEET: String(port), STATE_DIR: ".build/dev-start-test" },
      });
      expect(run.status).toBe(1);
      const lines = run.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port} is already in use`);
      expect(lines[0]).toContain("PORT_FLEET");
    } finally {
      taken.close();
    }
  });
});
