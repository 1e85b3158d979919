// Lets the Node scripts use the project's own TypeScript modules (one implementation of each wire format):
// esbuild bundles the module in memory and it is imported from a data URL.
import path from "node:path";
import { build } from "esbuild";

export async function importTs(relativePath) {
  const entry = path.join(import.meta.dirname, "..", "..", relativePath);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    logLevel: "error",
  });
  const code = result.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
}
