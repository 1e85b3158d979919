// Local upstreams for the walk-throughs (the same servers the test suite runs): an Esplora-compatible chain API on
// :3002, a nostr relay on :7777, a Stripe-compatible card processor on :3003 and a BTCPay-compatible lightning
// processor on :3004, whose checkout pages deliver signed webhooks to the fleet on :8788. Start the workers with
// the line this script prints (or any subset of it), e.g.
//   ESPLORA_URL=http://127.0.0.1:3002 NOSTR_RELAYS=ws://127.0.0.1:7777 npm start
// Fund an address on the local chain: scripts/attest.mjs --fund, or
//   curl -X PUT http://127.0.0.1:3002/__admin/address/<addr>/utxo -d '[{"txid":"…","vout":0,"value":150000,"status":{…}}]'
import { parseCli } from "./lib/cli.mjs";
import { startUpstreams } from "./lib/upstreams.mjs";

const USAGE = `Local upstreams for the walk-throughs: an Esplora chain API (:3002), a nostr relay (:7777), a Stripe-compatible
card processor (:3003) and a BTCPay-compatible lightning processor (:3004). Prints the env line to start the
workers against them. Ports: ESPLORA_PORT, RELAY_PORT, STRIPE_PORT, BTCPAY_PORT; FLEET_URL for the webhooks.
(npm run demo starts these, an OpenID provider and the workers in one command.)

  npm run fakes`;

parseCli(USAGE);
const fleet = process.env.FLEET_URL ?? "http://localhost:8788";
const upstreams = await startUpstreams({ fleet });
for (const line of upstreams.lines) console.log(line);
console.log("\nStart the workers against all of them:");
console.log([...Object.entries(upstreams.env).map(([key, value]) => `${key}=${value}`), "npm start"].join(" "));
console.log("\nCtrl-C to stop.");
const stop = async () => {
  await upstreams.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
