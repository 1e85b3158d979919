#!/usr/bin/env node
// Operator command: rotates a signing key with overlap (issue 18; docs/decisions.md "Key rotation"). Reads the
// current values from the environment or files, writes what they become as a `wrangler secret bulk` file (mode
// 0600, under the ignored .oc/), and prints the steps in the order that never fails a verify.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateSigningJwk } from "./dev-keys.mjs";
import { CliError, parseCli, run } from "./lib/cli.mjs";
import { rotateAuditKey, rotateSessionKey } from "./lib/key-rotation.mjs";

const USAGE = `Rotate a signing key without failing a verify.

  npm run keys -- rotate session [--current <file>] [--previous <file>] [--out .oc/rotate-session.json]
      A new AUTH_SIGNING_KEY; the current key's public half joins AUTH_PREVIOUS_KEYS until its last token has
      expired (30 days and the JWKS's 5 minutes), then leaves the JWKS by itself.
      --current: the current AUTH_SIGNING_KEY (default: the AUTH_SIGNING_KEY environment variable)
      --previous: the current AUTH_PREVIOUS_KEYS (default: AUTH_PREVIOUS_KEYS, or none)

  npm run keys -- rotate audit [--current <file>] [--published <file>] [--out .oc/rotate-audit.json]
      A new FLEET_SIGNING_KEY (audit bundles, log checkpoints); old and new public keys in PUBLISHED_KEYS.
      --current: the current FLEET_SIGNING_KEY (default: the FLEET_SIGNING_KEY environment variable)
      --published: the auth host's current PUBLISHED_KEYS (default: PUBLISHED_KEYS, or none)`;

function read(file, variable) {
  if (file) return readFileSync(file, "utf8").trim();
  const value = process.env[variable];
  if (value === undefined) throw new CliError(`no current ${variable}`, `set ${variable} or pass its file`, 2);
  return value;
}

function writeSecrets(out, secrets) {
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
}

await run(async () => {
  const { values, positionals } = parseCli(USAGE, {
    allowPositionals: true,
    options: {
      current: { type: "string" },
      previous: { type: "string" },
      published: { type: "string" },
      out: { type: "string" },
    },
  });
  const [verb, which] = positionals;
  if (verb !== "rotate" || !["session", "audit"].includes(which ?? ""))
    throw new CliError("say which key: rotate session | rotate audit", "see --help", 2);
  const guarded = (step) => {
    try {
      return step();
    } catch (err) {
      throw new CliError(err.message, "see --help", 2);
    }
  };
  if (which === "session") {
    const out = values.out ?? ".oc/rotate-session.json";
    const signingKey = read(values.current, "AUTH_SIGNING_KEY");
    const previousKeys = values.previous ? read(values.previous) : (process.env.AUTH_PREVIOUS_KEYS ?? "");
    const r = guarded(() => rotateSessionKey({ signingKey, previousKeys, fresh: generateSigningJwk() }));
    writeSecrets(out, r.secrets);
    console.log(`session key ${r.oldKid} → ${r.newKid}; ${r.oldKid} stays published until ${r.retireAt}`);
    console.log(`apply both at once: npx wrangler secret bulk ${out}`);
    return;
  }
  const out = values.out ?? ".oc/rotate-audit.json";
  const signingKey = read(values.current, "FLEET_SIGNING_KEY");
  const publishedKeys = values.published ? read(values.published) : (process.env.PUBLISHED_KEYS ?? "");
  const r = guarded(() => rotateAuditKey({ signingKey, publishedKeys, fresh: generateSigningJwk() }));
  writeSecrets(out, r.secrets);
  console.log(`audit key ${r.oldKid} → ${r.newKid}; both stay published (old bundles and checkpoints name theirs)`);
  console.log(`1. publish first: set the auth worker's PUBLISHED_KEYS to ${r.publishedKeys} and deploy it`);
  console.log(`2. then sign with the new key: npx wrangler secret bulk ${out} -c workers/fleet/wrangler.toml`);
});
