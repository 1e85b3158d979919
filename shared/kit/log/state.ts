// What a log monitor keeps between runs (kit/log/monitor.ts): the last checkpoint it verified and that tree's
// frontier, so the next run hashes only the new entries. JSON with base64 hashes; it holds no secret. Read back, it
// must hold together (the frontier folds to the root, one hash per set bit of the size) or it is refused.
import { base64 } from "@scure/base";
import { type Frontier, frontierRoot } from "../../tlog/frontier";
import { fromBase64 } from "../../tlog/note";

export interface MonitorState {
  /** The checkpoint's origin, `<fleet host>/api/log/<project id>` (`<fleet host>/log/<project id>` before issue 48). */
  origin: string;
  size: number;
  /** MTH of the first `size` leaves, base64. */
  root: string;
  /** The tree's complete subtree hashes, left to right, base64 (frontier.ts). */
  frontier: string[];
  /** The signed note last verified: kept as evidence, e.g. beside a later checkpoint that forks from it. */
  checkpoint: string;
}

export const encodeHash = (hash: Uint8Array): string => base64.encode(hash);

export function stateFrontier(state: MonitorState): Frontier {
  return { size: state.size, hashes: state.frontier.map((h) => fromBase64(h) ?? new Uint8Array()) };
}

export function stateJson(state: MonitorState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

/** A saved state, or why it is not one. */
export function parseMonitorState(text: string): { ok: true; state: MonitorState } | { ok: false; detail: string } {
  let value: Partial<Record<keyof MonitorState, unknown>>;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, detail: "not JSON" };
  }
  const { origin, size, root, frontier, checkpoint } = value ?? {};
  if (typeof origin !== "string" || typeof root !== "string" || typeof checkpoint !== "string") {
    return { ok: false, detail: "origin, root and checkpoint are strings" };
  }
  if (!Number.isSafeInteger(size) || (size as number) < 0) return { ok: false, detail: "size is a whole number" };
  if (!Array.isArray(frontier) || !frontier.every((h) => typeof h === "string" && fromBase64(h)?.length === 32)) {
    return { ok: false, detail: "frontier is a list of base64 SHA-256 hashes" };
  }
  const state = { origin, size: size as number, root, frontier: frontier as string[], checkpoint };
  try {
    if (encodeHash(frontierRoot(stateFrontier(state))) === root) return { ok: true, state };
  } catch {
    return { ok: false, detail: `the frontier does not hold one hash per set bit of size ${state.size}` };
  }
  return { ok: false, detail: "the frontier does not fold to the root" };
}
