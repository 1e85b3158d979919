// The chain and relay adapters against the loopback Esplora API and nostr relays.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { afterEach, describe, expect, it } from "vitest";
import { ChainError, esploraChain } from "../../shared/chain/esplora";
import { parseRelayList, queryRelays } from "../../shared/nostr/relay-pool";
import { signEvent } from "../harness/nostr-event.mjs";
import { esploraMode, fakes, publish, relayMode, setTip, setUtxos, utxo } from "../helpers/fakes";

afterEach(async () => {
  await esploraMode({});
  await relayMode(0, {});
  await relayMode(1, {});
});

describe("Esplora adapter", () => {
  it("reads the tip and an address's UTXOs", async () => {
    await setTip(900_123, "cd".repeat(32));
    const address = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
    await setUtxos(address, [utxo(5000, { tipHeight: 900_123 })]);
    const chain = esploraChain(fakes().esplora);
    expect(await chain.tip()).toEqual({ height: 900_123, hash: "cd".repeat(32) });
    const utxos = await chain.utxos(address);
    expect(utxos).toHaveLength(1);
    expect(utxos[0]?.value).toBe(5000);
  });

  it("turns a down, slow or unreachable API into a ChainError, never an empty list", async () => {
    await esploraMode({ down: true });
    await expect(esploraChain(fakes().esplora).utxos("bc1qx")).rejects.toBeInstanceOf(ChainError);
    await esploraMode({ delayMs: 400 });
    await expect(esploraChain(fakes().esplora, 100).tip()).rejects.toBeInstanceOf(ChainError);
    await expect(esploraChain("http://127.0.0.1:1").tip()).rejects.toBeInstanceOf(ChainError);
  });
});

describe("relay adapter", () => {
  it("queries every relay, and a relay that is down or slow does not fail the call", async () => {
    const key = secp256k1.utils.randomSecretKey();
    const marker = crypto.randomUUID();
    const event = signEvent({ kind: 30078, created_at: 1_700_000_000, tags: [["t", marker]], content: "{}" }, key);
    await publish(event, [0, 1]);
    const relays = fakes().relays.map((r) => r.url);
    const both = await queryRelays(relays, [{ kinds: [30078], "#t": [marker] }]);
    expect(both.answered).toHaveLength(2);
    expect(both.events.map((e) => e.id)).toEqual([event.id, event.id]);

    await relayMode(0, { down: true });
    await relayMode(1, { delayMs: 2000 });
    const degraded = await queryRelays(relays, [{ kinds: [30078], "#t": [marker] }], 500);
    expect(degraded.answered).toEqual([]);
    expect(degraded.failed.map((f) => f.relay)).toEqual(relays);

    await relayMode(1, {});
    const one = await queryRelays(relays, [{ kinds: [30078], "#t": [marker] }], 1000);
    expect(one.answered).toEqual([relays[1]]);
    expect(one.events.map((e) => e.id)).toEqual([event.id]);
  });

  it("parses NOSTR_RELAYS, keeping only ws and wss URLs", () => {
    expect(parseRelayList(" wss://a.example , ws://127.0.0.1:7777,https://x, ")).toEqual([
      "wss://a.example",
      "ws://127.0.0.1:7777",
    ]);
  });
});
