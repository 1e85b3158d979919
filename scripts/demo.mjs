// `npm run demo`: the full local demo in one command: the local upstreams (chain API, relay, card and lightning
// processors, an OpenID Connect provider; scripts/lib/upstreams.mjs) and all three workers started as `npm start`
// starts them, pointed at those upstreams. Sign-in codes by email go to this terminal (the workers' dev mail log).
// Ctrl-C stops everything; if the workers stop on their own, the upstreams stop too and the exit code is theirs.
import { spawn } from "node:child_process";
import path from "node:path";
import { parseCli } from "./lib/cli.mjs";
import { startUpstreams } from "./lib/upstreams.mjs";

const USAGE = `The full local demo: the chain API, relay, card and lightning processors and an OpenID provider, then
the auth + verify (:8787) and fleet (:8788) workers against them, as npm start runs them.
Email sign-in codes are printed here. Ctrl-C stops everything.

  npm run demo           (ports: ESPLORA_PORT, RELAY_PORT, STRIPE_PORT, BTCPAY_PORT, OIDC_PORT, PORT_AUTH, PORT_FLEET)`;

parseCli(USAGE);
const fleet = `http://localhost:${process.env.PORT_FLEET ?? "8788"}`;
const upstreams = await startUpstreams({ fleet, oidc: true });
for (const line of upstreams.lines) console.log(line);
const workers = spawn(process.execPath, [path.join(import.meta.dirname, "dev.mjs")], {
  stdio: "inherit",
  env: { ...process.env, ...upstreams.env },
});
workers.on("exit", async (code, signal) => {
  await upstreams.close();
  process.exit(code ?? (signal ? 0 : 1));
});
// A terminal's Ctrl-C reaches both processes; a SIGTERM to this one is passed on. Either way the workers' exit
// closes the upstreams (above).
const stop = () => workers.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
