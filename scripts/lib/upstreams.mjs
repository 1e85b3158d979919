// The local upstreams of the walk-throughs and the demo (the same servers the test suite runs): an Esplora chain API,
// a nostr relay, a Stripe-compatible card processor and a BTCPay-compatible lightning processor (their checkout
// pages deliver signed webhooks to the fleet), and on request an OpenID Connect provider. Returns the servers'
// URLs and the variables that point the workers at them.
import { startBtcpay } from "../../test/harness/btcpay-server.mjs";
import { startEsplora } from "../../test/harness/esplora-server.mjs";
import { startRelay } from "../../test/harness/nostr-relay.mjs";
import { startOidc } from "../../test/harness/oidc-server.mjs";
import { startStripe } from "../../test/harness/stripe-server.mjs";
import { listening } from "./cli.mjs";

const port = (name, fallback) => Number(process.env[name] ?? fallback);

export async function startUpstreams({ fleet, oidc = false }) {
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
  const provider = oidc
    ? await listening("the OpenID provider", port("OIDC_PORT", 8791), () =>
        startOidc({ port: port("OIDC_PORT", 8791) }),
      )
    : undefined;
  const lines = [
    `Esplora API        ${esplora.url}   (tip height ${esplora.state.tip.height})`,
    `nostr relay        ${relay.url}`,
    `card processor     ${stripe.url}   (Stripe API subset; webhooks to ${fleet})`,
    `lightning (BTCPay) ${btcpay.url}   (Greenfield API subset; webhooks to ${fleet})`,
    ...(provider ? [`OpenID provider    ${provider.issuer}   (signs anyone in as "johndoe")`] : []),
  ];
  const env = {
    ESPLORA_URL: esplora.url,
    NOSTR_RELAYS: relay.url,
    STRIPE_API_BASE: stripe.url,
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    BTCPAY_URL: btcpay.url,
    BTCPAY_API_KEY: btcpay.apiKey,
    BTCPAY_STORE_ID: btcpay.storeId,
    BTCPAY_WEBHOOK_SECRET: btcpay.webhookSecret,
    ...(provider && {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: "local",
      OIDC_CLIENT_SECRET: "local",
      OIDC_LABEL: "Local OIDC",
    }),
  };
  const servers = [esplora, relay, stripe, btcpay, ...(provider ? [provider] : [])];
  return { lines, env, close: () => Promise.all(servers.map((s) => s.close())) };
}
