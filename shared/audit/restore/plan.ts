// `oc restore`'s whole decision, offline and pure given its inputs (issue 28): a project's registry rebuilt from its
// signed audit bundle and its log's leaf order. The bundle must verify (the manifest's audit-key signature, its
// digest, every envelope's id and signature: verifyBundle), the checkpoints must be this project's log on this fleet
// and the bundle's bytes in the leaf order must give their roots (checkBundleLog), and the leaf order must hold the
// bundle's envelopes exactly. Then the rows are replayed in that order (replay.ts) and written as SQL (sql.ts), and
// the proof is computed from what is written: the root of the leaf hashes the SQL stores, at the checkpoint's size,
// is the checkpoint's root.
import { hexToBytes } from "@noble/hashes/utils.js";
import { decodeAddress } from "../../bitcoin/address";
import { randomHex } from "../../crypto/digest";
import { type BundleFailure, detectFormat, verifyBundle } from "../../kit/envelopes/bundle";
import { bundleEntries, checkBundleLog, type LogCheckFailure } from "../../kit/envelopes/bundle-log";
import { displayTextProblem } from "../../text";
import type { Checkpoint } from "../../tlog/checkpoint";
import { type Hash, rootOf } from "../../tlog/merkle";
import type { Manifest } from "../bundle-format";
import { type LogEntry, replay } from "./replay";
import { MAX_STATEMENT_BYTES, restoreStatements } from "./sql";

export type RestoreFailure =
  | BundleFailure
  | LogCheckFailure
  | "project_invalid" // the name or the owner address is not one the fleet would accept
  | "checkpoint_missing" // no checkpoint given: nothing would prove the log's order
  | "leaves_mismatch" // the leaf order does not hold exactly the bundle's envelopes first
  | "replay_refused" // an envelope cites one the log does not hold before it, or resolves a pledge twice
  | "statement_too_long"; // an envelope's INSERT is over D1's statement limit

export interface RestoreInput {
  bundle: string;
  jwks: { keys?: unknown };
  /** Envelope ids in the log's order (GET /api/log/leaves `ids`). */
  leaves: readonly string[];
  /** Signed checkpoint notes of the project's log (GET /api/log/checkpoint). */
  checkpoints: readonly string[];
  /** The fleet's host, told by the operator, never read from a checkpoint (docs/log.md). */
  fleetHost: string;
  /** The restored project's name and owner address (a bundle holds neither). */
  name: string;
  owner: string;
  now?: number;
  memberId?: string;
}

export interface RestoreProof {
  /** The largest checkpoint given: its size and root, which the restored log's first `size` leaves give again. */
  checkpoint: Checkpoint;
  /** Leaves written (every envelope of the bundle), and the root of all of them. */
  size: number;
  root: Hash;
  /** Leaves the fleet listed after the bundle's envelopes (registered after the export): not restored. */
  dropped: number;
}

export type RestorePlan =
  | { ok: true; manifest: Manifest; statements: string[]; proof: RestoreProof }
  | { ok: false; reason: RestoreFailure; detail: string };

const fail = (reason: RestoreFailure, detail: string): RestorePlan => ({ ok: false, reason, detail });

/** Why a name or owner cannot be the restored project's (the fleet's own rules, schemas.ts), or undefined. */
export function projectProblem(name: string, owner: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) return "the name must be 1 to 100 characters";
  const nameProblem = displayTextProblem(trimmed);
  if (nameProblem) return `the name ${nameProblem}`;
  if (!decodeAddress(owner).ok) return `the owner ${owner} is not a Bitcoin address`;
  return undefined;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

export async function planRestore(input: RestoreInput): Promise<RestorePlan> {
  const problem = projectProblem(input.name, input.owner);
  if (problem) return fail("project_invalid", problem);
  if (input.checkpoints.length === 0) return fail("checkpoint_missing", "a signed checkpoint of the project's log");
  const format = detectFormat(input.bundle);
  const verified = await verifyBundle(input.bundle, input.jwks, format);
  if (!verified.ok) return fail(verified.reason, verified.detail);
  const { manifest } = verified;
  const { bundle, jwks, leaves, checkpoints, fleetHost } = input;
  const log = checkBundleLog({ bundle, format, leaves, checkpoints, jwks, fleetHost, projectId: manifest.project_id });
  if (!log.ok) return fail(log.reason, log.detail);
  if (format === "ndjson") return fail("format_unsupported", "restore from the CSV or JSON export");

  // The bundle's envelopes must be exactly the log's first leaves: anything later was registered after the export.
  const byId = new Map(bundleEntries(bundle, format).map((entry) => [entry.id, entry]));
  const ordered: LogEntry[] = [];
  for (const id of leaves.slice(0, byId.size)) {
    const entry = byId.get(id);
    if (!entry) return fail("leaves_mismatch", `leaf ${ordered.length} is ${id}, which the bundle does not hold`);
    ordered.push(entry);
  }
  if (ordered.length < byId.size) {
    const detail = `the leaf order lists ${ordered.length} envelopes, the bundle ${byId.size}`;
    return fail("leaves_mismatch", `${detail}: take the leaves after the export, once the log is hashed`);
  }
  // A leaf listed twice leaves a bundle envelope out of the order: the replay refuses the repeat.
  const replayed = await replay(ordered);
  if (!replayed.ok) return fail("replay_refused", replayed.detail);

  const now = input.now ?? Date.now();
  const generatedAt = Date.parse(manifest.generated_at);
  const statements = restoreStatements({
    projectId: manifest.project_id,
    name: input.name.trim(),
    owner: input.owner,
    memberId: input.memberId ?? `mem_${randomHex(12)}`,
    now,
    registeredAt: Number.isNaN(generatedAt) ? now : generatedAt,
    rows: replayed.rows,
  });
  // Statements 2 … 2 + rows - 1 are the envelopes' (after the project and its member).
  const long = statements.findIndex((s) => new TextEncoder().encode(s).length > MAX_STATEMENT_BYTES);
  if (long >= 0) {
    const what = replayed.rows[long - 2]?.id ?? `statement ${long}`;
    return fail("statement_too_long", `the INSERT of ${what} is over D1's ${MAX_STATEMENT_BYTES} bytes`);
  }

  // The proof, from what the SQL writes: its leaf hashes, at the largest checkpoint's size, give that root.
  const hashes = replayed.rows.map((row) => hexToBytes(row.leafHash));
  const checkpoint = log.checkpoints.reduce((a, b) => (b.size > a.size ? b : a));
  if (!sameBytes(rootOf(hashes.slice(0, checkpoint.size)), checkpoint.root)) {
    return fail("root_mismatch", `the leaves written do not give the root of ${checkpoint.origin}`);
  }
  const proof = { checkpoint, size: hashes.length, root: rootOf(hashes), dropped: leaves.length - byId.size };
  return { ok: true, manifest, statements, proof };
}
