#!/usr/bin/env node
// Checks a downloaded audit bundle offline: the manifest's Ed25519 signature against the published JWKS (a URL or
// a saved file), the sha256 of every byte before the manifest, then every envelope's id and signature again.
//
//   npm run verify-bundle -- <bundle file> [--jwks http://localhost:8787/.well-known/jwks.json | --jwks jwks.json]
import { createHash, webcrypto } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { importTs } from "./lib/import-ts.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    jwks: { type: "string", default: "http://localhost:8787/.well-known/jwks.json" },
    format: { type: "string" },
  },
});
const file = positionals[0];
if (!file) {
  console.error("usage: npm run verify-bundle -- <bundle file> [--jwks <url or file>]");
  process.exit(2);
}
const text = readFileSync(file, "utf8");
const format = values.format ?? (file.endsWith(".json") ? "json" : file.endsWith(".csv") ? "csv" : "ndjson");

const { splitBundle, manifestBytes } = await importTs("shared/audit/bundle-format.ts");
const agent = await importTs("shared/envelopes/agent/index.ts");
const pledge = await importTs("shared/envelopes/pledge/index.ts");

const split = splitBundle(text, format);
if (!split) fail("no signed manifest found: not an audit bundle of this format");
const { manifest, signature } = split.trailer;

const jwks = existsSync(values.jwks)
  ? JSON.parse(readFileSync(values.jwks, "utf8"))
  : await (await fetch(values.jwks)).json();
const jwk = jwks.keys.find((k) => k.kid === manifest.kid);
if (!jwk) fail(`kid ${manifest.kid} is not in the JWKS`);
const key = await webcrypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["verify"]);
const signatureOk = await webcrypto.subtle.verify(
  "Ed25519",
  key,
  Buffer.from(signature, "base64url"),
  manifestBytes(manifest),
);
if (!signatureOk) fail("the manifest's signature does not verify");
const digest = createHash("sha256").update(split.body, "utf8").digest("hex");
if (digest !== manifest.sha256) fail(`the body's sha256 ${digest} is not the manifest's ${manifest.sha256}`);

function rows() {
  if (format === "json") return JSON.parse(`${split.body}]}`).envelopes;
  if (format === "csv") {
    const out = [];
    const re = /^([a-z]+),([0-9a-f]{64}),"((?:[^"]|"")*)"\r\n/gm;
    for (const m of split.body.matchAll(re))
      out.push({ kind: m[1], id: m[2], envelope: JSON.parse(m[3].replaceAll('""', '"')) });
    return out;
  }
  return split.body
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const parsers = {
  delegation: (e) =>
    agent.isFederationPrincipal(e) ? agent.parseFederationDelegation(e) : agent.parseAgentEnvelope("delegation", e),
  subdelegation: (e) => agent.parseAgentEnvelope("subdelegation", e),
  action: (e) => agent.parseAgentEnvelope("action", e),
  revocation: (e) =>
    String(e?.signer?.address).startsWith("federation:")
      ? agent.parseFederationRevocation(e)
      : agent.parseAgentEnvelope("revocation", e),
  pledge: (e) => pledge.parsePledgeEnvelope(e),
  outcome: (e) => pledge.parseOutcomeEnvelope(e),
  abandonment: (e) => pledge.parseAbandonmentEnvelope(e),
};

let checked = 0;
for (const row of rows()) {
  const parsed = await parsers[row.kind]?.(row.envelope);
  if (!parsed?.ok) fail(`${row.kind} ${row.id}: ${parsed?.detail ?? "unknown kind"}`);
  if (parsed.id !== row.id) fail(`${row.kind} ${row.id}: the envelope hashes to ${parsed.id}`);
  const sig = ["pledge", "outcome", "abandonment"].includes(row.kind)
    ? pledge.verifyPledgeSignature(parsed)
    : agent.verifyEnvelopeSignatures(parsed);
  if (!sig.ok) fail(`${row.kind} ${row.id}: ${sig.detail}`);
  checked += 1;
}
if (checked !== manifest.total) fail(`the manifest counts ${manifest.total} envelopes, the bundle holds ${checked}`);
console.log(
  `OK: bundle ${manifest.bundle_id} of ${manifest.project_id} — signature by ${manifest.kid}, sha256 matches, ${checked} envelopes re-verified (id and signature)`,
);

function fail(message) {
  console.error(`FAILED: ${message}`);
  process.exit(1);
}
