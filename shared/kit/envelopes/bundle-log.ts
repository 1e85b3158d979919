// A bundle checked against the project's transparency log, offline (issue 18; docs/log.md): given the log's leaf
// order (GET /api/log/leaves, which need not be trusted) and one or more checkpoints (GET /api/log/checkpoint,
// signed by the fleet's audit key, whose public key the JWKS holds), the bundle's envelope bytes, hashed in that
// order, must give each checkpoint's root at its size. Two checkpoints that both match are consistent: the older
// tree is a prefix of the newer one, by construction. CSV and JSON bundles carry the envelopes' bytes unchanged and
// are read back exactly; ndjson cannot be (it turns an envelope's line breaks into spaces), so it is refused.
// Each checkpoint must be this project's log on this fleet (issue 26): signed by a JWKS key marked `oc_use: "audit"`,
// with origin `<fleet host>/api/log/<project id>` signed under that origin as key name (or, from before issue 48,
// origin `<fleet host>/log/<project id>` under the host: shared/tlog/origin.ts). The host is the caller's trusted
// input, never read from the checkpoint (which would let any log vouch for itself); the project id is the bundle's
// signed manifest's. With a witness policy (issue 48), each checkpoint must also carry enough witnesses' cosignatures.
import { base64urlnopad } from "@scure/base";
import type { AuditFormat } from "../../audit/bundle-format";
import { utf8 } from "../../crypto/digest";
import { type Checkpoint, parseCheckpoint } from "../../tlog/checkpoint";
import { type Cosignature, checkCosignatures, type WitnessFailure, type WitnessPolicy } from "../../tlog/cosignature";
import { leafHash, rootOf } from "../../tlog/merkle";
import { type NoteKey, openNote } from "../../tlog/note";
import { legacyLogOrigin, logKeyName, logOrigin } from "../../tlog/origin";

export type LogCheckFailure =
  | "format_unsupported" // an ndjson bundle: its envelopes' bytes are not the signed ones
  | "checkpoint_unsigned" // no audit key of the JWKS, under any name its signature lines give, verifies it
  | "checkpoint_wrong_log" // signed by an audit key, but under another host's name or for another log's origin
  | "checkpoint_malformed" // the signed text is not a checkpoint
  | WitnessFailure // with a witness policy: too few of its witnesses cosigned, or the policy is no policy
  | "leaf_missing" // the leaf order names an envelope the bundle does not hold, or is shorter than a checkpoint
  | "root_mismatch"; // the bundle's envelopes, in the leaf order, give another root at the checkpoint's size

export type LogCheck = { ok: true; checkpoints: Checkpoint[] } | { ok: false; reason: LogCheckFailure; detail: string };

/** One envelope of a bundle: its kind, its id and its bytes exactly as stored. */
export interface BundleEntry {
  kind: string;
  id: string;
  body: string;
}

/** The envelopes of a CSV bundle, in its order, their bytes exactly as it carries them. */
function csvEntries(bundle: string): BundleEntry[] {
  const entries: BundleEntry[] = [];
  for (const m of bundle.matchAll(/^([a-z]+),([0-9a-f]{64}),"((?:[^"]|"")*)"\r\n/gm)) {
    entries.push({ kind: m[1] as string, id: m[2] as string, body: (m[3] as string).replaceAll('""', '"') });
  }
  return entries;
}

/** Where the JSON value starting at `start` (leading whitespace allowed) ends, or -1. */
function jsonValueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * The envelopes of a JSON bundle, their bytes exactly as it carries them: each row is
 * `{"kind":…,"id":"…","envelope":<the stored bytes>}`, so the bytes run from after `"envelope":` to the row's own
 * closing brace (whitespace the stored envelope began or ended with included).
 */
function jsonEntries(bundle: string): BundleEntry[] {
  const entries: BundleEntry[] = [];
  const row = /\{"kind":"([a-z-]+)","id":"([0-9a-f]{64})","envelope":/g;
  // Row by row: the next search starts after this row's envelope, so nothing inside one is taken for a row.
  for (let m = row.exec(bundle); m; m = row.exec(bundle)) {
    const start = m.index + m[0].length;
    let end = jsonValueEnd(bundle, start);
    if (end < 0) break;
    while (/\s/.test(bundle[end] ?? "")) end++;
    if (bundle[end] === "}") entries.push({ kind: m[1] as string, id: m[2] as string, body: bundle.slice(start, end) });
    row.lastIndex = end;
  }
  return entries;
}

/**
 * The envelopes of a CSV or JSON bundle in the bundle's order (the export's grouping by kind), each with its bytes
 * exactly as stored. Read it once verifyBundle has accepted the bundle, whose digest covers every byte read here.
 */
export function bundleEntries(bundle: string, format: "csv" | "json"): BundleEntry[] {
  return format === "csv" ? csvEntries(bundle) : jsonEntries(bundle);
}

/** The JWKS's Ed25519 keys marked for audit: session keys share the JWKS and must not sign a checkpoint. */
export function auditKeys(jwks: { keys?: unknown }): Uint8Array[] {
  const keys = Array.isArray(jwks.keys)
    ? (jwks.keys as { kty?: unknown; crv?: unknown; x?: unknown; oc_use?: unknown }[])
    : [];
  return keys
    .filter((k) => k.kty === "OKP" && k.crv === "Ed25519" && typeof k.x === "string" && k.oc_use === "audit")
    .map((k) => base64urlnopad.decode(k.x as string));
}

/** Candidate note keys: each audit key under each of `names` (a note key's hash covers its name too). */
const noteKeys = (names: readonly string[], publicKeys: readonly Uint8Array[]): NoteKey[] =>
  names.flatMap((name) => publicKeys.map((publicKey) => ({ name, publicKey })));

/** The names a note's signature lines give. */
const signerNames = (note: string) => [...note.matchAll(/^— (\S+) /gmu)].map((m) => m[1] as string);

export type CheckpointFailure =
  | "checkpoint_unsigned"
  | "checkpoint_wrong_log"
  | "checkpoint_malformed"
  | WitnessFailure;

/**
 * A signed note read as the checkpoint of `projectId`'s log on the fleet at `fleetHost`: signed by one of the audit
 * keys `publicKeys`, with origin `<fleet host>/api/log/<project id>` under that origin as key name, or the form from
 * before issue 48 (origin `<fleet host>/log/<project id>` under the host). With `witnesses`, it must carry valid
 * cosignatures by enough of them (shared/tlog/cosignature.ts). What a bundle's log check and a log monitor
 * (kit/log/monitor.ts) both accept.
 */
export function openLogCheckpoint(
  note: string,
  publicKeys: readonly Uint8Array[],
  fleetHost: string,
  projectId: string,
  witnesses?: WitnessPolicy,
):
  | { ok: true; checkpoint: Checkpoint; cosigned?: Cosignature[] }
  | { ok: false; reason: CheckpointFailure; detail: string } {
  const origin = logOrigin(fleetHost, projectId);
  const opened = openNote(note, noteKeys([origin, fleetHost], publicKeys));
  if (!opened) {
    // Told apart only for the message: an audit signature under another name is another fleet's or project's log.
    if (openNote(note, noteKeys(signerNames(note), publicKeys))) {
      const detail = `a checkpoint is signed as ${signerNames(note).join(", ")}, not as ${origin}`;
      return { ok: false, reason: "checkpoint_wrong_log", detail };
    }
    const detail = 'no audit key given (oc_use "audit" in the JWKS) signed a checkpoint';
    return { ok: false, reason: "checkpoint_unsigned", detail };
  }
  const checkpoint = parseCheckpoint(opened.text);
  if (!checkpoint) return { ok: false, reason: "checkpoint_malformed", detail: "the signed text is no checkpoint" };
  const name = logKeyName(checkpoint.origin, fleetHost, projectId);
  if (!name || !opened.signedBy.includes(name)) {
    const expected = `${origin} (or ${legacyLogOrigin(fleetHost, projectId)} signed as ${fleetHost})`;
    const detail = `a checkpoint is of the log ${checkpoint.origin} signed as ${opened.signedBy.join(", ")}, not ${expected}`;
    return { ok: false, reason: "checkpoint_wrong_log", detail };
  }
  if (witnesses) {
    const cosigned = checkCosignatures(note, witnesses);
    if (!cosigned.ok) return { ok: false, reason: cosigned.reason, detail: cosigned.detail };
    return { ok: true, checkpoint, cosigned: cosigned.cosigned };
  }
  return { ok: true, checkpoint };
}

/** The witness policy of options that name witnesses, if they do (`{ witnesses, threshold }`: one shape everywhere). */
export function witnessPolicy(options: {
  witnesses?: readonly string[];
  threshold?: number;
}): WitnessPolicy | undefined {
  if (options.witnesses === undefined) return undefined;
  return { witnesses: options.witnesses, ...(options.threshold !== undefined && { threshold: options.threshold }) };
}

export function checkBundleLog(input: {
  bundle: string;
  format: AuditFormat;
  /** Envelope ids in the log's order. */
  leaves: readonly string[];
  /** Signed checkpoint notes, any order. */
  checkpoints: readonly string[];
  jwks: { keys?: unknown };
  /** The bundle's project: `manifest.project_id` of a bundle verifyBundle accepted. */
  projectId: string;
  /** The fleet's host (`new URL(fleet origin).host`, e.g. "fleet.example.com"), told by the caller, not read. */
  fleetHost: string;
  /** Witnesses' vkeys: each checkpoint must carry valid cosignatures by `threshold` of them (default all). */
  witnesses?: readonly string[];
  threshold?: number;
}): LogCheck {
  if (input.format === "ndjson") {
    return { ok: false, reason: "format_unsupported", detail: "check the log against the CSV or JSON export" };
  }
  const bodies = new Map(bundleEntries(input.bundle, input.format).map((e) => [e.id, e.body]));
  const audit = auditKeys(input.jwks);
  const checked: Checkpoint[] = [];
  for (const note of input.checkpoints) {
    const opened = openLogCheckpoint(note, audit, input.fleetHost, input.projectId, witnessPolicy(input));
    if (!opened.ok) return opened;
    const { checkpoint } = opened;
    const hashes = [];
    for (const id of input.leaves.slice(0, checkpoint.size)) {
      const body = bodies.get(id);
      if (body === undefined) return { ok: false, reason: "leaf_missing", detail: `${id} is not in the bundle` };
      hashes.push(leafHash(utf8(body)));
    }
    if (hashes.length < checkpoint.size) {
      const detail = `the leaf order lists ${hashes.length} envelopes, the checkpoint ${checkpoint.size}`;
      return { ok: false, reason: "leaf_missing", detail };
    }
    const root = rootOf(hashes);
    if (root.some((v, i) => v !== checkpoint.root[i])) {
      const detail = `the first ${checkpoint.size} envelopes do not give the root of ${checkpoint.origin}`;
      return { ok: false, reason: "root_mismatch", detail };
    }
    checked.push(checkpoint);
  }
  return { ok: true, checkpoints: checked };
}
