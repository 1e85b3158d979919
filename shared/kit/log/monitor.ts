// A project's transparency log followed from a saved state (issue 29; docs/log.md "Monitoring a log"): the signed
// checkpoint is this project's log on the fleet the caller names, it extends the saved one, and every new entry is
// a valid envelope. The new leaves' hashes extend the saved frontier and must fold to the checkpoint's root, which
// proves at once that the saved tree is a prefix of the new one and that the entries read are the log's new leaves:
// no consistency proof is trusted. Pure but for the reader, so the same code serves HTTP and a directory of tiles.
import type { EnvelopeKind } from "../../audit/bundle-format";
import type { Checkpoint } from "../../tlog/checkpoint";
import type { Cosignature } from "../../tlog/cosignature";
import { extendFrontier, type Frontier, frontierFromTiles, frontierRoot, tilesForFrontier } from "../../tlog/frontier";
import { type Hash, leafHash } from "../../tlog/merkle";
import { logKeyName } from "../../tlog/origin";
import { TILE_WIDTH, tileKey, tileWidth } from "../../tlog/tiles";
import { checkEnvelope } from "../envelopes/bundle";
import { type CheckpointFailure, openLogCheckpoint, witnessPolicy } from "../envelopes/bundle-log";
import type { EnvelopeKindLabel } from "../envelopes/register";
import { firstStray, type Get, type LogReader, readBundle, readTile, same } from "./pieces";
import { encodeHash, type MonitorState, stateFrontier } from "./state";

export type MonitorFailure =
  | CheckpointFailure
  | "fork" // the checkpoint has the saved size and another root
  | "rollback" // the checkpoint is smaller than the saved one
  | "inconsistent" // the new entries do not grow the saved tree into the checkpoint's
  | "entry_invalid" // the log holds an entry that is no valid envelope (its hash is the log's: the root matched)
  | "tile_missing" // a piece the checkpoint's size requires is absent or not well-formed
  | "unreachable"; // the reader failed (network, or an HTTP answer other than 404)

export type MonitorResult =
  | {
      ok: true;
      state: MonitorState;
      checkpoint: Checkpoint;
      previousSize: number;
      verified: number;
      /** With `witnesses`: the listed witnesses whose cosignature verified. */
      cosigned?: Cosignature[];
    }
  | { ok: false; reason: MonitorFailure; detail: string; note?: string };

export interface MonitorInput {
  /** The state the last run saved; none on a first run. */
  state?: MonitorState;
  reader: LogReader;
  /** The fleet's host as the caller names it (never read from the checkpoint), and the project. */
  fleetHost: string;
  projectId: string;
  /** The fleet's audit public keys (Ed25519): a JWKS's `oc_use: "audit"` keys, or a verifier key's. */
  auditKeys: readonly Uint8Array[];
  /**
   * A first run starts from the checkpoint's frontier, read from its tiles and checked against its root, instead of
   * verifying every entry from 0: the entries before it are not checked.
   */
  trustFromCheckpoint?: boolean;
  /**
   * Witnesses' vkeys (`<name>+<hex8>+<base64(0x04 ‖ key)>`): the checkpoint must carry valid cosignatures by
   * `threshold` of them (default all), or it is refused with `witness_policy_unmet` before anything else is read.
   */
  witnesses?: readonly string[];
  threshold?: number;
}

type Failure = Extract<MonitorResult, { ok: false }>;
const fail = (reason: MonitorFailure, detail: string): Failure => ({ ok: false, reason, detail });

/** Entry kind labels (an envelope's own `kind`) to the registry kinds parseStored reads them by. */
const KIND_OF_LABEL: Record<EnvelopeKindLabel, EnvelopeKind> = {
  "agent-delegation": "delegation",
  "agent-subdelegation": "subdelegation",
  "agent-action": "action",
  "agent-revocation": "revocation",
  pledge: "pledge",
  "pledge-outcome": "outcome",
  "pledge-abandonment": "abandonment",
};

/** Why a log entry is not a valid envelope (the bundle verifier's check: parse by kind, id, signature), if it is not. */
async function checkEntry(bytes: Uint8Array): Promise<string | undefined> {
  let envelope: { kind?: unknown; id?: unknown };
  try {
    envelope = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch {
    return "not a JSON envelope";
  }
  const kind = KIND_OF_LABEL[envelope?.kind as EnvelopeKindLabel];
  if (!kind) return `unknown kind ${String(envelope?.kind)}`;
  return checkEnvelope({ kind, id: String(envelope.id), envelope });
}

/** A reader failure, told apart from a bug so that only it becomes `unreachable`. */
class Unreachable extends Error {}

/**
 * Reads leaves [saved.size, checkpoint.size) from their entry bundles, checks each, and extends `saved` with their
 * hashes. Every leaf is hashed before an invalid entry is reported, so `entry_invalid` names an entry the log
 * itself holds, and a download that is not the log's is `inconsistent` whatever its entries are.
 */
async function grow(get: Get, saved: Frontier, checkpoint: Checkpoint): Promise<Frontier | Failure> {
  const { size } = checkpoint;
  const hashes: Hash[] = [];
  let invalid: { index: number; detail: string } | undefined;
  for (let index = Math.floor(saved.size / TILE_WIDTH); index * TILE_WIDTH < size; index++) {
    const width = tileWidth(size, 0, index);
    const entries = await readBundle(get, index, width);
    if (typeof entries === "string") return fail("tile_missing", entries);
    const first = index * TILE_WIDTH;
    for (let i = Math.max(saved.size, first); i < first + width; i++) {
      const bytes = entries[i - first] as Uint8Array;
      hashes.push(leafHash(bytes));
      // One finding is enough: after it, only the hashes are needed.
      const problem = invalid ? undefined : await checkEntry(bytes);
      if (problem) invalid = { index: i, detail: problem };
    }
  }
  const grown = extendFrontier(saved, hashes);
  if (!same(frontierRoot(grown), checkpoint.root)) {
    const stray = await firstStray(get, saved.size, size, hashes);
    const detail =
      stray !== undefined
        ? `entry ${stray} does not hash to the log's leaf ${stray} (tile/0): the entries read are not the log's`
        : saved.size > 0
          ? `the checkpoint of size ${size} is not the saved tree of size ${saved.size} grown by entries ${saved.size}…${size - 1}`
          : `the log's ${size} entries do not give the checkpoint's root`;
    return fail("inconsistent", detail);
  }
  if (invalid) return fail("entry_invalid", `entry ${invalid.index}: ${invalid.detail}`);
  return grown;
}

/** A first run's start without the entries: the checkpoint's frontier from its tiles, checked against its root. */
async function frontierOfCheckpoint(get: Get, checkpoint: Checkpoint): Promise<Frontier | Failure> {
  const tiles = new Map<string, Uint8Array>();
  for (const { level, index, width } of tilesForFrontier(checkpoint.size)) {
    const tile = await readTile(get, level, index, width);
    if (typeof tile === "string") return fail("tile_missing", tile);
    tiles.set(tileKey(level, index), tile);
  }
  const frontier = frontierFromTiles(checkpoint.size, tiles);
  if (same(frontierRoot(frontier), checkpoint.root)) return frontier;
  return fail("inconsistent", `the log's tiles do not give the root of its checkpoint of size ${checkpoint.size}`);
}

async function step(input: MonitorInput, get: Get): Promise<MonitorResult> {
  const note = await get("checkpoint");
  if (!note) return fail("tile_missing", "the log serves no checkpoint");
  const text = new TextDecoder().decode(note);
  const opened = openLogCheckpoint(text, input.auditKeys, input.fleetHost, input.projectId, witnessPolicy(input));
  if (!opened.ok) {
    if (opened.reason !== "checkpoint_unsigned") return opened;
    return fail(opened.reason, `no audit key given signed the checkpoint as this project's log on ${input.fleetHost}`);
  }
  const { checkpoint } = opened;
  const cosigned = opened.cosigned && { cosigned: opened.cosigned };
  const { state } = input;
  // A state saved under the log's name before issue 48 is the same log: it is compared and saved under the new name.
  if (state && !logKeyName(state.origin, input.fleetHost, input.projectId)) {
    throw new RangeError(`the saved state is of the log ${state.origin}, not ${checkpoint.origin}`);
  }
  const previousSize = state?.size ?? 0;
  const root = encodeHash(checkpoint.root);
  if (state && checkpoint.size < state.size) {
    const detail = `the checkpoint's size ${checkpoint.size} is below the saved ${state.size}`;
    return { ...fail("rollback", detail), note: text };
  }
  if (state && checkpoint.size === state.size) {
    if (root !== state.root) {
      const detail = `at size ${state.size} the saved root ${state.root} and the checkpoint's root ${root} differ`;
      return { ...fail("fork", detail), note: text };
    }
    const kept = { ...state, origin: checkpoint.origin, checkpoint: text };
    return { ok: true, state: kept, checkpoint, previousSize, verified: 0, ...cosigned };
  }
  const start = state ? stateFrontier(state) : { size: 0, hashes: [] };
  const frontier =
    !state && input.trustFromCheckpoint
      ? await frontierOfCheckpoint(get, checkpoint)
      : await grow(get, start, checkpoint);
  if (!("hashes" in frontier)) return { ...frontier, note: text };
  const saved: MonitorState = {
    origin: checkpoint.origin,
    size: checkpoint.size,
    root,
    frontier: frontier.hashes.map(encodeHash),
    checkpoint: text,
  };
  const verified = !state && input.trustFromCheckpoint ? 0 : checkpoint.size - start.size;
  return { ok: true, state: saved, checkpoint, previousSize, verified, ...cosigned };
}

/**
 * One step of a monitor: reads the checkpoint, checks it against `state` and verifies the entries it adds. On
 * success the caller saves the returned state for the next step; on failure it keeps the old one (a fork's or a
 * rollback's `note` is the signed checkpoint that contradicts it: evidence to keep).
 */
export async function monitorStep(input: MonitorInput): Promise<MonitorResult> {
  const get: Get = async (path) => {
    try {
      return await input.reader.read(path);
    } catch (err) {
      throw new Unreachable(err instanceof Error ? err.message : String(err));
    }
  };
  try {
    return await step(input, get);
  } catch (err) {
    if (err instanceof Unreachable) return fail("unreachable", err.message);
    throw err;
  }
}
