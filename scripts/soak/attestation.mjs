// The attestation the soak's /api/check calls ask about: made, signed, funded on the loopback chain and published
// to the loopback relay by the README's own walk-through script (scripts/attest.mjs), so checks answer 200.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { AUTH } from "./stack.mjs";

const run = promisify(execFile);
const root = path.join(import.meta.dirname, "..", "..");

/** The attested address; the check then passes (150,000 sats, 40 days) against min_sats=100000&min_days=30. */
export async function prepareCheck(upstreams, log) {
  const { stdout } = await run(
    process.execPath,
    [
      "scripts/attest.mjs",
      "--identity",
      "github:soak",
      "--fund",
      "150000",
      "--age-days",
      "40",
      "--publish",
      "--base",
      AUTH,
      "--esplora",
      upstreams.esplora.url,
      "--relay",
      upstreams.relay.url,
    ],
    { cwd: root },
  );
  const address = /^attestation [0-9a-f]{64} for (\S+)$/m.exec(stdout)?.[1];
  if (!address) throw new Error(`scripts/attest.mjs printed no attestation:\n${stdout}`);
  const check = await fetch(`${AUTH}/api/check?addr=${address}&min_sats=100000&min_days=30`, {
    headers: { "cf-connecting-ip": "192.0.2.252" },
  });
  log(`attestation for ${address} published; /api/check → ${check.status}`);
  return address;
}
