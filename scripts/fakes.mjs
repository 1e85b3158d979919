// Local upstreams for the verification API walk-through: an Esplora-compatible chain API on :3002 and a nostr relay
// on :7777 (the same servers the test suite runs). Start the workers against them with
//   ESPLORA_URL=http://127.0.0.1:3002 NOSTR_RELAYS=ws://127.0.0.1:7777 npm start
// Fund an address on the local chain: scripts/attest.mjs --fund, or
//   curl -X PUT http://127.0.0.1:3002/__admin/address/<addr>/utxo -d '[{"txid":"…","vout":0,"value":150000,"status":{…}}]'
import { startEsplora } from "../test/harness/esplora-server.mjs";
import { startRelay } from "../test/harness/nostr-relay.mjs";

const esplora = await startEsplora({ port: Number(process.env.ESPLORA_PORT ?? 3002) });
const relay = await startRelay({ port: Number(process.env.RELAY_PORT ?? 7777) });
console.log(`Esplora API  ${esplora.url}   (tip height ${esplora.state.tip.height})`);
console.log(`nostr relay  ${relay.url}`);
console.log("Ctrl-C to stop.");
const stop = async () => {
  await Promise.all([esplora.close(), relay.close()]);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
