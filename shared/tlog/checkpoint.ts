// C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint): the signed note's text names the log (origin line), its
// size and its root hash (base64), each on its own line, then optional extension lines.
import { base64 } from "@scure/base";
import type { Hash } from "./merkle";
import { fromBase64 } from "./note";

export interface Checkpoint {
  origin: string;
  size: number;
  root: Hash;
  extensions: string[];
}

export function checkpointText(c: Checkpoint): string {
  if (!c.origin || c.origin.includes("\n")) throw new RangeError("an origin is one non-empty line");
  if (!Number.isSafeInteger(c.size) || c.size < 0) throw new RangeError("a tree size is a non-negative integer");
  if (c.root.length !== 32) throw new RangeError("a root hash is 32 bytes");
  return [c.origin, String(c.size), base64.encode(c.root), ...c.extensions].map((line) => `${line}\n`).join("");
}

/** Reads a checkpoint's text; undefined unless origin, decimal size and a 32-byte base64 root are there. */
export function parseCheckpoint(text: string): Checkpoint | undefined {
  if (!text.endsWith("\n")) return undefined;
  const [origin, size, root, ...extensions] = text.slice(0, -1).split("\n");
  if (!origin || !size || !root || !/^(0|[1-9][0-9]*)$/.test(size)) return undefined;
  const n = Number(size);
  if (!Number.isSafeInteger(n)) return undefined;
  const hash = fromBase64(root);
  if (!hash || hash.length !== 32 || extensions.some((line) => line === "")) return undefined;
  return { origin, size: n, root: hash, extensions };
}
