#!/usr/bin/env node
// Operator command: rotates a signing key with overlap (issue 18; docs/decisions.md "Key rotation"), or retires a
// compromised session key at once. Reads the current values from the environment or files, writes what they become
// as a `wrangler secret bulk` file (mode 0600, under the ignored .oc/), and prints the steps, the fleet's included.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateSigningJwk } from "./dev-keys.mjs";
import { CliError, parseCli, run } from "./lib/cli.mjs";
import { JWKS_CACHE_MS, retireSessionKey, rotateAuditKey, rotateSessionKey } from "./lib/key-rotation.mjs";

const USAGE = `Rotate a signing key without failing a verify, or retire a compromised session key at once.

  npm run keys -- rotate session [--current <file>] [--previous <file>] [--out .oc/rotate-session.json]
      A new AUTH_SIGNING_KEY; the current key's public half joins AUTH_PREVIOUS_KEYS until its last token has
      expired (30 days and the JWKS's 5 minutes), then leaves the JWKS by itself. Also prints the fleet's new
      AUTH_PUBLIC_KEYS, for a fleet that sets it (one that does not reads the new key from the JWKS).
      --current: the current AUTH_SIGNING_KEY (default: the AUTH_SIGNING_KEY environment variable)
      --previous: the current AUTH_PREVIOUS_KEYS (default: AUTH_PREVIOUS_KEYS, or none)

  npm run keys -- rotate audit [--current <file>] [--published <file>] [--out .oc/rotate-audit.json]
      A new FLEET_SIGNING_KEY (audit bundles, log checkpoints); old and new public keys in PUBLISHED_KEYS.
      --current: the current FLEET_SIGNING_KEY (default: the FLEET_SIGNING_KEY environment variable)
      --published: the auth host's current PUBLISHED_KEYS (default: PUBLISHED_KEYS, or none)

  npm run keys -- retire <kid> [--current <file>] [--previous <file>] [--published <file>]
                               [--out .oc/retire-session.json]
      Takes a compromised session key out of AUTH_PREVIOUS_KEYS now: the JWKS drops it once applied, and every
      session it signed stops verifying. The current AUTH_SIGNING_KEY is never retired (rotate first), nor an audit
      key (it stays published so old bundles verify).
      --current, --previous: as for rotate session
      --published: the auth host's PUBLISHED_KEYS, to name an audit key as one (default: PUBLISHED_KEYS, or none)`;

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

/** A kid is base64url, so it may begin with "-": after `retire` it is the kid, not a flag, unless it is one of ours. */
function kidAsPositional(args) {
  const [verb, kid, ...rest] = args;
  if (verb !== "retire" || kid === undefined || kid.startsWith("--") || kid === "-h") return args;
  return [verb, ...rest, "--", kid];
}

await run(async () => {
  const { values, positionals } = parseCli(USAGE, {
    args: kidAsPositional(process.argv.slice(2)),
    allowPositionals: true,
    options: {
      current: { type: "string" },
      previous: { type: "string" },
      published: { type: "string" },
      out: { type: "string" },
    },
  });
  const [verb, which] = positionals;
  const rotating = verb === "rotate" && ["session", "audit"].includes(which ?? "");
  if (!rotating && !(verb === "retire" && which))
    throw new CliError("say what to do: rotate session | rotate audit | retire <kid>", "see --help", 2);
  // A refusal of the pure functions is one line; the ones that say what to do need no pointer to --help.
  const guarded = (step, hint = "see --help") => {
    try {
      return step();
    } catch (err) {
      throw new CliError(err.message, hint, 2);
    }
  };
  const sessionKeys = () => ({
    signingKey: read(values.current, "AUTH_SIGNING_KEY"),
    previousKeys: values.previous ? read(values.previous) : (process.env.AUTH_PREVIOUS_KEYS ?? ""),
  });
  if (verb === "retire") {
    const out = values.out ?? ".oc/retire-session.json";
    const publishedKeys = values.published ? read(values.published) : (process.env.PUBLISHED_KEYS ?? "");
    const current = sessionKeys();
    const r = guarded(() => retireSessionKey({ ...current, publishedKeys, kid: which }), null);
    writeSecrets(out, r.secrets);
    console.log(`session key ${r.kid} retired; AUTH_PREVIOUS_KEYS keeps ${r.kept} key(s)`);
    console.log(`1. apply to the auth worker: npx wrangler secret bulk ${out}`);
    console.log(`   its JWKS drops ${r.kid} at once, and the auth host stops accepting sessions signed by it`);
    console.log(
      `2. consumers (the kit, a fleet without AUTH_PUBLIC_KEYS) drop it when their cached JWKS expires: within ${JWKS_CACHE_MS / 60_000} minutes`,
    );
    console.log(`3. a fleet that sets AUTH_PUBLIC_KEYS: set it to ${r.fleetPublicKeys} and deploy it`);
    console.log(`4. sessions signed by ${r.kid} then stop verifying everywhere: their holders sign in again`);
    return;
  }
  if (which === "session") {
    const out = values.out ?? ".oc/rotate-session.json";
    const { signingKey, previousKeys } = sessionKeys();
    const r = guarded(() => rotateSessionKey({ signingKey, previousKeys, fresh: generateSigningJwk() }));
    writeSecrets(out, r.secrets);
    console.log(`session key ${r.oldKid} → ${r.newKid}; ${r.oldKid} stays published until ${r.retireAt}`);
    console.log(`apply both at once: npx wrangler secret bulk ${out}`);
    console.log(`the fleet: without AUTH_PUBLIC_KEYS nothing to change (it reads the JWKS when it meets ${r.newKid})`);
    console.log(`the fleet with AUTH_PUBLIC_KEYS: set it to ${r.fleetPublicKeys} and deploy it`);
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
