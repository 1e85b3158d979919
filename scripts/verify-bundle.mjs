#!/usr/bin/env node
// Checks a downloaded audit bundle offline: the manifest's Ed25519 signature against the published JWKS's audit keys
// (a URL or a saved file), the sha256 of every byte before the manifest, then every envelope's id and signature again.
// The same check as `oc bundle verify` (shared/kit/envelopes/bundle.ts); this name stays for the README walk-through.
//
import { main } from "./kit/cli.mjs";
import { loadKit } from "./kit/load.mjs";

const USAGE = `Check a downloaded audit bundle offline: the manifest's signature, the sha256, every envelope again.

  npm run verify-bundle -- <bundle file> [--jwks http://localhost:8787/.well-known/jwks.json | --jwks .oc/jwks.json]
                           [--format ndjson|json|csv]
                           [--checkpoint <note file> ... --leaves <leaves.json> --fleet http://localhost:8788]
                           [--witness <vkey> ... | --witness-file <file>] [--witness-threshold <n>]
  With checkpoints (GET /api/log/checkpoint) and the leaf order (GET /api/log/leaves), a CSV or JSON bundle is also
  checked against the project's transparency log: each checkpoint's root from the bundle's own bytes. --fleet (or
  $OC_FLEET) names the fleet whose log it must be: each checkpoint is signed by a JWKS key marked for audit, as the
  log <host>/api/log/<the bundle's project> (or, from before issue 48, <host>/log/<project> signed as <host>).
  With --witness vkeys (repeatable, or one a line in --witness-file), each checkpoint must also carry valid
  cosignatures by --witness-threshold of those witnesses (default all). Only audit keys verify the manifest, too.`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
if (!args.some((a) => !a.startsWith("--"))) {
  console.error("error: no bundle file given; see --help");
  process.exit(2);
}
process.exitCode = await main(["bundle", "verify", ...args], { loadKit });
