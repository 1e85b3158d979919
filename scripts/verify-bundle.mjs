#!/usr/bin/env node
// Checks a downloaded audit bundle offline: the manifest's Ed25519 signature against the published JWKS (a URL or
// a saved file), the sha256 of every byte before the manifest, then every envelope's id and signature again.
// The same check as `oc bundle verify` (shared/kit/envelopes/bundle.ts); this name stays for the README walk-through.
//
//   npm run verify-bundle -- <bundle file> [--jwks http://localhost:8787/.well-known/jwks.json | --jwks jwks.json]
import { main } from "./kit/cli.mjs";

const args = process.argv.slice(2);
if (!args.some((a) => !a.startsWith("--"))) {
  console.error("usage: npm run verify-bundle -- <bundle file> [--jwks <url or file>] [--format ndjson|json|csv]");
  process.exit(2);
}
process.exitCode = await main(["bundle", "verify", ...args]);
