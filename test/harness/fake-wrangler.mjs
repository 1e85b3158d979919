#!/usr/bin/env node
import { randomUUID } from "node:crypto";
// A recording stand-in for the `wrangler` binary (issue 28), put first on PATH by the deploy's tests: it answers the
// commands the deploy uses (whoami, d1 list/create/migrations apply, kv namespace list/create, secret list, versions
// list, deploy with --tag and --secrets-file) from a JSON state file, as Cloudflare would, and appends each call's
// arguments to a log. Its failures print what wrangler 4 prints (its text from wrangler's cli.js): a Cloudflare API
// error's headline, its `[code: N]` reason, and after an authentication error the 📎 hint and whoami's account table.
// The state keeps secret values (so a test can check the audit key's pair), which the real account never shows.
// Environment: FAKE_WRANGLER_STATE (the state file), FAKE_WRANGLER_LOG (the call log, one JSON array per line),
// FAKE_WRANGLER_FAIL (fail the first call whose arguments joined by spaces contain it, e.g. "deploy -c …fleet", with
// Cloudflare's authentication error), FAKE_WRANGLER_ACCOUNTS=2 (the credentials reach two accounts: without
// CLOUDFLARE_ACCOUNT_ID every call but whoami fails as wrangler does when it cannot choose one),
// FAKE_WRANGLER_SIGNED_OUT=1 (whoami answers as wrangler does without credentials), FAKE_WRANGLER_BLOCK (hang on
// the first call whose arguments contain it, its process id written to the log's path + ".blocked", until a signal
// ends it or 60 s pass: a test interrupts the deploy meanwhile).
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";

const args = process.argv.slice(2);
const stateFile = process.env.FAKE_WRANGLER_STATE;
const state = existsSync(stateFile)
  ? JSON.parse(readFileSync(stateFile, "utf8"))
  : { databases: [], namespaces: [], workers: {}, migrations: [], failed: false };
appendFileSync(process.env.FAKE_WRANGLER_LOG, `${JSON.stringify(args)}\n`);
const save = () => writeFileSync(stateFile, JSON.stringify(state, null, 2));
const flag = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const fail = (message) => {
  console.error(`✘ [ERROR] ${message}\n\n`);
  process.exit(1);
};

/** The accounts the credentials reach: one, or two with FAKE_WRANGLER_ACCOUNTS=2. */
const ACCOUNTS = [
  { name: "Test", id: "0123456789abcdef0123456789abcdef" },
  { name: "Other", id: "fedcba9876543210fedcba9876543210" },
].slice(0, Number(process.env.FAKE_WRANGLER_ACCOUNTS ?? 1));
const account = process.env.CLOUDFLARE_ACCOUNT_ID ?? ACCOUNTS[0].id;

/** whoami's account table, as wrangler draws it. */
const accountTable = () => {
  const row = (a, b) => `│ ${a.padEnd(12)} │ ${b.padEnd(32)} │`;
  const rule = (l, m, r) => `${l}${"─".repeat(14)}${m}${"─".repeat(34)}${r}`;
  return [
    rule("┌", "┬", "┐"),
    row("Account Name", "Account ID"),
    ...ACCOUNTS.flatMap((a) => [rule("├", "┼", "┤"), row(a.name, a.id)]),
    rule("└", "┴", "┘"),
  ].join("\n");
};

/**
 * A Cloudflare API error as wrangler prints it: the request and the reason on stderr; after an authentication
 * error (10000), its hint when the token comes from the environment, and whoami's answer on stdout.
 */
const apiError = (resource, reason, code) => {
  const bug =
    "If you think this is a bug, please open an issue at:\n  https://github.com/cloudflare/workers-sdk/issues/new/choose";
  console.error(
    `✘ [ERROR] A request to the Cloudflare API (/accounts/${account}${resource}) failed.\n\n  ${reason} [code: ${code}]\n${code === 10000 ? "" : `  \n  ${bug}\n`}\n`,
  );
  if (code === 10000) {
    if (process.env.CLOUDFLARE_API_TOKEN) {
      console.log(
        "📎 It looks like you are authenticating Wrangler via a custom API token set in an environment variable.\nPlease ensure it has the correct permissions for this operation.\n",
      );
    }
    console.log(`Getting User settings...\n👋 You are logged in with an User API Token.\n${accountTable()}`);
    console.log("🔓 To see token permissions visit https://dash.cloudflare.com/profile/api-tokens.");
  }
  process.exit(1);
};

/** The API resource a call concerns (the worker a deploy names, the database a migration names). */
const resourceOf = () => {
  if (args[0] === "deploy") return `/workers/scripts/${JSON.parse(readFileSync(flag("-c"), "utf8")).name}`;
  if (args[0] === "d1" && args[1] === "migrations") {
    const db = state.databases.find((d) => d.name === args[3]);
    return `/d1/database/${db?.uuid ?? args[3]}/query`;
  }
  if (args[0] === "versions" || args[0] === "secret") return `/workers/scripts/${flag("--name")}`;
  return `/${args.slice(0, 2).join("/")}`;
};

if (ACCOUNTS.length > 1 && !process.env.CLOUDFLARE_ACCOUNT_ID && args[0] !== "whoami") {
  fail(
    [
      "More than one account available but unable to select one in non-interactive mode.",
      "Please set the appropriate `account_id` in your Wrangler configuration file or assign it to the `CLOUDFLARE_ACCOUNT_ID` environment variable.",
      "Available accounts are (`<name>`: `<account_id>`):",
      ...ACCOUNTS.map((a) => `  \`(redacted)\`: \`${a.id}\``),
    ].join("\n"),
  );
}

const failing = process.env.FAKE_WRANGLER_FAIL;
if (failing && !state.failed && args.join(" ").includes(failing)) {
  state.failed = true;
  save();
  apiError(resourceOf(), "Authentication error", 10000);
}

const [a, b, c] = args;
const blocking = process.env.FAKE_WRANGLER_BLOCK;
if (blocking && args.join(" ").includes(blocking)) {
  writeFileSync(`${process.env.FAKE_WRANGLER_LOG}.blocked`, String(process.pid));
  setTimeout(() => fail(`blocked on ${blocking} and never interrupted`), 60_000);
} else answer();

function answer() {
  if (a === "whoami") {
    if (process.env.FAKE_WRANGLER_SIGNED_OUT) {
      console.log("You are not authenticated. Please run `wrangler login`.");
      process.exit(1);
    }
    console.log(`Getting User settings...\n👋 You are logged in with an User API Token.\n${accountTable()}`);
  } else if (a === "d1" && b === "list") {
    console.log(JSON.stringify(state.databases));
  } else if (a === "d1" && b === "create") {
    state.databases.push({ uuid: randomUUID(), name: c });
    save();
    console.log(`✅ Successfully created DB '${c}'`);
  } else if (a === "d1" && b === "migrations" && c === "apply") {
    const db = args[3];
    if (!state.databases.some((d) => d.name === db)) fail(`Couldn't find a D1 DB with the name or binding '${db}'`);
    state.migrations.push(db);
    save();
    console.log("✅ No migrations to apply!");
  } else if (a === "kv" && b === "namespace" && c === "list") {
    console.log(JSON.stringify(state.namespaces));
  } else if (a === "kv" && b === "namespace" && c === "create") {
    state.namespaces.push({ id: randomUUID().replaceAll("-", ""), title: args[3] });
    save();
    console.log(`✨ Success! Created KV namespace ${args[3]}`);
  } else if (a === "secret" && b === "list") {
    const worker = state.workers[flag("--name")];
    if (!worker) apiError(resourceOf(), "This Worker does not exist on your account.", 10007);
    console.log(JSON.stringify(Object.keys(worker.secrets).map((name) => ({ name, type: "secret_text" }))));
  } else if (a === "versions" && b === "list") {
    const worker = state.workers[flag("--name")];
    if (!worker) apiError(`${resourceOf()}/versions`, "This Worker does not exist on your account.", 10007);
    console.log(JSON.stringify(worker.versions ?? []));
  } else if (a === "deploy") {
    const config = JSON.parse(readFileSync(flag("-c"), "utf8"));
    state.workers[config.name] ??= { secrets: {}, deployments: 0, versions: [] };
    const worker = state.workers[config.name];
    const tag = flag("--tag");
    worker.versions.push({
      id: randomUUID(),
      number: worker.versions.length + 1,
      metadata: { created_on: new Date().toISOString(), source: "wrangler" },
      annotations: { "workers/triggered_by": "upload", ...(tag && { "workers/tag": tag }) },
    });
    const secretsFile = flag("--secrets-file");
    if (secretsFile) Object.assign(worker.secrets, JSON.parse(readFileSync(secretsFile, "utf8")));
    worker.deployments += 1;
    worker.config = config;
    save();
    console.log(`Uploaded ${config.name}\nDeployed ${config.name} triggers`);
  } else {
    fail(`the fake wrangler does not know: ${args.join(" ")}`);
  }
}
