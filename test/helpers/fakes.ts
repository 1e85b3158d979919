// Drives the loopback Esplora API and nostr relays the verify project runs against (test/harness/*.mjs):
// seed UTXOs, move the tip, take an upstream down or make it slow, publish events over NIP-01.
import { env } from "cloudflare:test";
import type { NostrEventLike } from "../harness/nostr-event.mjs";

interface Fakes {
  esplora: string;
  relays: { url: string; admin: string }[];
}

export function fakes(): Fakes {
  if (!env.TEST_FAKES) throw new Error("TEST_FAKES binding missing: run in the verify project");
  return JSON.parse(env.TEST_FAKES) as Fakes;
}

async function put(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: "PUT", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
}

export interface FakeUtxo {
  txid: string;
  vout: number;
  value: number;
  status: { confirmed: boolean; block_height?: number; block_time?: number; block_hash?: string };
}

export const setUtxos = (address: string, utxos: FakeUtxo[]) =>
  put(`${fakes().esplora}/__admin/address/${address}/utxo`, utxos);

export const setTip = (height: number, hash = "ab".repeat(32)) =>
  put(`${fakes().esplora}/__admin/tip`, { height, hash });

export const esploraMode = (mode: { down?: boolean; delayMs?: number }) => put(`${fakes().esplora}/__admin/mode`, mode);

/** Fails (503) or restores the UTXO reads of one address only, so parallel test files keep their chain. */
export const addressMode = (address: string, mode: { down: boolean }) =>
  put(`${fakes().esplora}/__admin/address/${address}/mode`, mode);

export async function utxoHits(address: string): Promise<number> {
  const res = await fetch(`${fakes().esplora}/__admin/address/${address}/utxo`);
  return ((await res.json()) as { hits: number }).hits;
}

export const relayMode = (index: number, mode: { down?: boolean; delayMs?: number }) =>
  put(`${fakes().relays[index]?.admin}/__admin/mode`, mode);

/** Publishes over the relay's own protocol (NIP-01 EVENT → OK). */
export async function publish(event: NostrEventLike, relayIndexes: number[] = [0]): Promise<void> {
  for (const index of relayIndexes) {
    const relay = fakes().relays[index]?.url as string;
    const res = await fetch(relay.replace(/^ws/, "http"), { headers: { Upgrade: "websocket" } });
    const socket = res.webSocket;
    if (!socket) throw new Error(`relay ${index} refused the WebSocket`);
    socket.accept();
    const ok = new Promise<unknown[]>((resolve) =>
      socket.addEventListener("message", (m) => resolve(JSON.parse(m.data as string) as unknown[])),
    );
    socket.send(JSON.stringify(["EVENT", event]));
    const answer = await ok;
    socket.close(1000, "done");
    if (answer[0] !== "OK" || answer[2] !== true) throw new Error(`relay refused the event: ${JSON.stringify(answer)}`);
  }
}

/** A confirmed UTXO `depth` blocks deep under a tip at `tipHeight`, mined `ageDays` ago. */
export function utxo(
  value: number,
  options: { tipHeight: number; depth?: number; ageDays?: number; txid?: string },
): FakeUtxo {
  const depth = options.depth ?? 100;
  return {
    txid: options.txid ?? crypto.randomUUID().replaceAll("-", "").padEnd(64, "0"),
    vout: 0,
    value,
    status: {
      confirmed: true,
      block_height: options.tipHeight - depth + 1,
      block_time: Math.floor(Date.now() / 1000) - Math.round((options.ageDays ?? 0) * 86400),
    },
  };
}
