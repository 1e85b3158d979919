// Local upstreams for the walk-throughs (the same servers the test suite runs): an Esplora-compatible chain API on
// :3002, a nostr relay on :7777, a Stripe-compatible card processor on :3003 and a BTCPay-compatible lightning
// processor on :3004, whose checkout pages deliver signed webhooks to the fleet on :8788. Start the workers with
// the line this script prints (or any subset of it), e.g.
//   ESPLORA_URL=http://127.0.0.1:3002 NOSTR_RELAYS=ws://127.0.0.1:7777 npm start
// Fund an address on the local chain: scripts/attest.mjs --fund, or
//   curl -X PUT http://127.0.0.1:3002/__admin/address/<addr>/utxo -d '[{"txid":"…","vout":0,"value":150000,"status":{…}}]'
import { startBtcpay } from "../test/harness/btcpay-server.mjs";
import { startEsplora } from "../test/harness/esplora-server.mjs";
import { startRelay } from "../test/harness/nostr-relay.mjs";
import { startStripe } from "../test/harness/stripe-server.mjs";
import { listening, parseCli } from "./lib/cli.mjs";

const USAGE = `Local upstreams for the walk-throughs: an Esplora chain API (:3002), a nostr relay (:7777), a Stripe-compatible
card processor (:3003) and a BTCPay-compatible lightning processor (:3004). Prints the env line to start the
workers against them. Ports: ESPLORA_PORT, RELAY_PORT, STRIPE_PORT, BTCPAY_PORT; FLEET_URL for the webhooks.

  npm run fakes`;

parseCli(USAGE);
const fleet = process.env.FLEET_URL ?? "http://localhost:8788";
const port = (name, fallback) => Number(process.env[name] ?? fallback);
const esplora = await listening("the Esplora fake", port("ESPLORA_PORT", 3002), () =>
  startEsplora({ port: port("ESPLORA_PORT", 3002) }),
);
const relay = await listening("the relay", port("RELAY_PORT", 7777), () =>
  startRelay({ port: port("RELAY_PORT", 7777) }),
);
const stripe = await listening("the card processor", port("STRIPE_PORT", 3003), () =>
  startStripe({ port: port("STRIPE_PORT", 3003), webhookUrl: `${fleet}/api/billing/webhooks/stripe` }),
);
const btcpay = await listening("the lightning processor", port("BTCPAY_PORT", 3004), () =>
  startBtcpay({ port: port("BTCPAY_PORT", 3004), webhookUrl: `${fleet}/api/billing/webhooks/btcpay` }),
);
console.log(`Esplora API       ${esplora.url}   (tip height ${esplora.state.tip.height})`);
console.log(`nostr relay       ${relay.url}`);
console.log(`card processor    ${stripe.url}   (Stripe API subset; webhooks to ${fleet})`);
console.log(`lightning (BTCPay) ${btcpay.url}  (Greenfield API subset; webhooks to ${fleet})`);
console.log("\nStart the workers against all of them:");
console.log(
  [
    `ESPLORA_URL=${esplora.url}`,
    `NOSTR_RELAYS=${relay.url}`,
    `STRIPE_API_BASE=${stripe.url}`,
    `STRIPE_SECRET_KEY=${stripe.secretKey}`,
    `STRIPE_WEBHOOK_SECRET=${stripe.webhookSecret}`,
    `BTCPAY_URL=${btcpay.url}`,
    `BTCPAY_API_KEY=${btcpay.apiKey}`,
    `BTCPAY_STORE_ID=${btcpay.storeId}`,
    `BTCPAY_WEBHOOK_SECRET=${btcpay.webhookSecret}`,
    "npm start",
  ].join(" "),
);
console.log("\nCtrl-C to stop.");
const stop = async () => {
  await Promise.all([esplora.close(), relay.close(), stripe.close(), btcpay.close()]);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
