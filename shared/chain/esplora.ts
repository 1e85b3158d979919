// The chain adapter: an Esplora HTTP API (ESPLORA_URL; DECISIONS 19). Reads the tip and an address's UTXOs;
// every upstream problem (down, slow, non-2xx, unexpected body) is a ChainError, never an empty answer.
import { z } from "zod";

/** How long one upstream call may take. */
export const ESPLORA_TIMEOUT_MS = 5_000;
/** The public API used when ESPLORA_URL is unset. */
export const DEFAULT_ESPLORA_URL = "https://mempool.space/api";

export class ChainError extends Error {
  override name = "ChainError";
}

const UtxoSchema = z.object({
  txid: z.string().regex(/^[0-9a-f]{64}$/),
  vout: z.number().int().nonnegative(),
  value: z.number().int().nonnegative(),
  status: z.object({
    confirmed: z.boolean(),
    block_height: z.number().int().nonnegative().optional(),
    block_hash: z.string().optional(),
    block_time: z.number().int().nonnegative().optional(),
  }),
});

export type Utxo = z.infer<typeof UtxoSchema>;

export interface ChainTip {
  height: number;
  hash: string;
}

export interface Chain {
  tip(): Promise<ChainTip>;
  utxos(address: string): Promise<Utxo[]>;
}

async function get(url: string, timeoutMs: number): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: "application/json, text/plain" },
    });
  } catch (err) {
    throw new ChainError(`chain API unreachable: ${err instanceof Error ? err.name : "error"}`);
  }
  if (!res.ok) throw new ChainError(`chain API answered ${res.status}`);
  return res.text();
}

export function esploraChain(baseUrl: string = DEFAULT_ESPLORA_URL, timeoutMs = ESPLORA_TIMEOUT_MS): Chain {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    async tip() {
      const [heightText, hash] = await Promise.all([
        get(`${base}/blocks/tip/height`, timeoutMs),
        get(`${base}/blocks/tip/hash`, timeoutMs),
      ]);
      const height = Number(heightText.trim());
      if (!Number.isInteger(height) || height < 0 || !/^[0-9a-f]{64}$/.test(hash.trim())) {
        throw new ChainError("chain API sent an unexpected tip");
      }
      return { height, hash: hash.trim() };
    },
    async utxos(address) {
      const text = await get(`${base}/address/${encodeURIComponent(address)}/utxo`, timeoutMs);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new ChainError("chain API sent malformed JSON");
      }
      const parsed = z.array(UtxoSchema).safeParse(json);
      if (!parsed.success) throw new ChainError("chain API sent an unexpected UTXO list");
      return parsed.data;
    },
  };
}
