// First-start setup for local dev: writes .dev.vars with a fresh signing key (kept across starts), and the
// per-worker copies wrangler reads, merged with any configured variable found in this process's environment
// (so `ESPLORA_URL=http://127.0.0.1:3002 npm start` reaches the workers, DECISIONS 27).
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateIdTokenJwk, generateSigningJwk } from "./dev-keys.mjs";

const root = path.join(import.meta.dirname, "..");
const rootVars = path.join(root, ".dev.vars");

/** Variables passed through from the environment when set (DECISIONS 27). */
export const PASS_THROUGH = [
  "ESPLORA_URL",
  "NOSTR_RELAYS",
  "WEBAUTHN_USER_VERIFICATION",
  "CONFIRMATIONS",
  "MAIL_API_URL",
  "MAIL_API_KEY",
  "MAIL_FROM",
  "GITHUB_CLIENT_ID",
  "GITHUB_CLIENT_SECRET",
  "GOOGLE_CLIENT_ID",
  "GOOGLE_CLIENT_SECRET",
  "OIDC_ISSUER",
  "OIDC_CLIENT_ID",
  "OIDC_CLIENT_SECRET",
  "OIDC_LABEL",
  "STRIPE_API_BASE",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "BTCPAY_URL",
  "BTCPAY_API_KEY",
  "BTCPAY_STORE_ID",
  "BTCPAY_WEBHOOK_SECRET",
  "WEBHOOK_MASTER_KEY",
  "WEBHOOK_ALLOW_LOOPBACK",
  "CRON_SECRET",
  "COOKIE_DOMAIN",
  "AUTH_ORIGIN",
  "FLEET_ORIGIN",
  "BITCOIN_NETWORK",
  "AUTH_PREVIOUS_KEYS",
  "CONTACT_TO",
  "GOOGLE_ISSUER",
  "GITHUB_AUTHORIZE_URL",
  "GITHUB_TOKEN_URL",
  "GITHUB_USER_URL",
  "GITHUB_ISSUER",
];

const HEADER = "# Local dev secrets, generated on first start; never commit. Edit above the marker line.";
// Everything below this line is rewritten on each start from the variables set in npm start's environment.
// Older versions kept pass-through variables below this line; they are dropped when read.
const MARKER = "# --- passed through from the environment of the last npm start (rewritten each start) ---";

function parseVars(text) {
  const vars = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!match) continue;
    const raw = match[2];
    vars[match[1]] = /^'.*'$/.test(raw) || /^".*"$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return vars;
}

function formatVars(vars) {
  return Object.entries(vars)
    .map(([key, value]) => `${key}='${value}'\n`)
    .join("");
}

const publicOf = (secret) => {
  const { d: _d, ...jwk } = JSON.parse(secret);
  return jwk;
};

/**
 * Writes the generated secrets (kept across starts) into each worker's .dev.vars, and returns the variables set in
 * this process's environment: those reach the workers as `--var` flags on this start only, so nothing from one
 * start (say, the browser tests' origin) lingers in a file that later runs read.
 */
export function setupDevVars() {
  if (!existsSync(rootVars)) {
    const base = { AUTH_SIGNING_KEY: JSON.stringify(generateSigningJwk()), WEBHOOK_ALLOW_LOOPBACK: "true" };
    writeFileSync(rootVars, `${HEADER}\n${formatVars(base)}`, { mode: 0o600 });
    console.log("generated .dev.vars with a new local signing key");
  }
  const base = parseVars(readFileSync(rootVars, "utf8").split(MARKER)[0] ?? "");
  // Keys added by later versions are generated once and kept like the first.
  base.FLEET_SIGNING_KEY ??= JSON.stringify(generateSigningJwk());
  base.ID_TOKEN_SIGNING_KEY ??= JSON.stringify(generateIdTokenJwk());
  base.WEBHOOK_MASTER_KEY ??= randomBytes(32).toString("base64url");
  base.CRON_SECRET ??= randomBytes(24).toString("base64url");
  base.EMAIL_CODE_KEY ??= randomBytes(32).toString("base64url");
  // Local development only (this file is never read in production): webhook endpoints on 127.0.0.1 over http, for
  // the local receiver. A .dev.vars made before this key existed lacked it (security review item 12).
  base.WEBHOOK_ALLOW_LOOPBACK ??= "true";
  // Without a mail API configured, email codes are written to the dev log (never in production).
  base.DEV_MAIL_LOG ??= "true";
  const { AUTH_SIGNING_KEY, FLEET_SIGNING_KEY, WEBHOOK_MASTER_KEY, CRON_SECRET, ID_TOKEN_SIGNING_KEY, ...shared } =
    base;
  // wrangler reads .dev.vars beside each worker's config: the root one is the auth worker's, and it also keeps
  // the base secrets. Each worker gets only the keys it uses.
  const published = JSON.stringify([publicOf(FLEET_SIGNING_KEY)]);
  writeFileSync(rootVars, `${HEADER}\n${formatVars({ ...base, PUBLISHED_KEYS: published })}`, { mode: 0o600 });
  const perWorker = {
    verify: shared,
    fleet: {
      ...shared,
      FLEET_SIGNING_KEY,
      WEBHOOK_MASTER_KEY,
      CRON_SECRET,
      AUTH_PUBLIC_KEYS: JSON.stringify([publicOf(AUTH_SIGNING_KEY)]),
    },
  };
  for (const [worker, vars] of Object.entries(perWorker)) {
    writeFileSync(path.join(root, "workers", worker, ".dev.vars"), formatVars(vars), { mode: 0o600 });
  }
  const passed = Object.fromEntries(
    PASS_THROUGH.filter((key) => process.env[key]).map((key) => [key, process.env[key]]),
  );
  // A signing key given in the environment (a rotation rehearsal, the kit's rotation test) replaces the generated
  // one for this start only; the fleet then trusts it and the previous keys instead of the file's key.
  if (process.env.AUTH_SIGNING_KEY) {
    passed.AUTH_SIGNING_KEY = process.env.AUTH_SIGNING_KEY;
    const previous = process.env.AUTH_PREVIOUS_KEYS ? JSON.parse(process.env.AUTH_PREVIOUS_KEYS) : [];
    passed.AUTH_PUBLIC_KEYS = JSON.stringify([publicOf(process.env.AUTH_SIGNING_KEY), ...previous]);
  }
  return passed;
}

if (import.meta.url === `file://${process.argv[1]}`) setupDevVars();
