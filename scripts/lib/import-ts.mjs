// Lets the Node scripts use the project's own TypeScript modules (one implementation of each wire format):
// esbuild bundles the module in memory and it is imported from a data URL.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { nodeSecp256k1 } from "./node-secp256k1.mjs";

export async function importTs(relativePath) {
  const entry = path.join(import.meta.dirname, "..", "..", relativePath);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    plugins: [nodeSecp256k1],
    // A data: URL has no location; code that finds files (libsecp256k1's .wasm) from import.meta.url gets the entry's.
    define: { "import.meta.url": JSON.stringify(pathToFileURL(entry).href) },
    logLevel: "error",
  });
  const code = result.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
}
