#!/usr/bin/env node
import { randomUUID } from "node:crypto";
// A recording stand-in for the `wrangler` binary (issue 28), put first on PATH by the deploy's tests: it answers the
// commands the deploy uses (whoami, d1 list/create/migrations apply, kv namespace list/create, secret list, deploy
// with --secrets-file) from a JSON state file, as Cloudflare would, and appends each call's arguments to a log.
// The state keeps secret values (so a test can check the audit key's pair), which the real account never shows.
// Environment: FAKE_WRANGLER_STATE (the state file), FAKE_WRANGLER_LOG (the call log, one JSON array per line),
// FAKE_WRANGLER_FAIL (fail the first call whose arguments joined by spaces contain it, e.g. "deploy -c …fleet"),
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
  console.error(`✘ [ERROR] ${message}`);
  process.exit(1);
};

const failing = process.env.FAKE_WRANGLER_FAIL;
if (failing && !state.failed && args.join(" ").includes(failing)) {
  state.failed = true;
  save();
  fail(`A request to the Cloudflare API failed (injected: ${failing})`);
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
    console.log("You are logged in with an API Token. Account: Test (abc123)");
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
    if (!worker) fail(`This Worker does not exist on your account. [code: 10007]`);
    console.log(JSON.stringify(Object.keys(worker.secrets).map((name) => ({ name, type: "secret_text" }))));
  } else if (a === "deploy") {
    const config = JSON.parse(readFileSync(flag("-c"), "utf8"));
    state.workers[config.name] ??= { secrets: {}, deployments: 0 };
    const worker = state.workers[config.name];
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
