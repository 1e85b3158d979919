// A bundle checked against the project's transparency log, offline (issue 18; docs/log.md): given the log's leaf
// order (GET /api/log/leaves, which need not be trusted) and one or more checkpoints (GET /api/log/checkpoint,
// signed by the fleet's audit key, whose public key the JWKS holds), the bundle's envelope bytes, hashed in that
// order, must give each checkpoint's root at its size. Two checkpoints that both match are consistent: the older
// tree is a prefix of the newer one, by construction. CSV and JSON bundles carry the envelopes' bytes unchanged and
// are read back exactly; ndjson cannot be (it turns an envelope's line breaks into spaces), so it is refused.
import { base64urlnopad } from "@scure/base";
import type { AuditFormat } from "../../audit/bundle-format";
import { utf8 } from "../../crypto/digest";
import { type Checkpoint, parseCheckpoint } from "../../tlog/checkpoint";
import { leafHash, rootOf } from "../../tlog/merkle";
import { type NoteKey, openNote } from "../../tlog/note";

export type LogCheckFailure =
  | "format_unsupported" // an ndjson bundle: its envelopes' bytes are not the signed ones
  | "checkpoint_unsigned" // no JWKS key of the name and hash its signature lines give verifies it
  | "checkpoint_malformed" // the signed text is not a checkpoint
  | "leaf_missing" // the leaf order names an envelope the bundle does not hold, or is shorter than a checkpoint
  | "root_mismatch"; // the bundle's envelopes, in the leaf order, give another root at the checkpoint's size

export type LogCheck = { ok: true; checkpoints: Checkpoint[] } | { ok: false; reason: LogCheckFailure; detail: string };

/** The envelopes' bytes by id, exactly as a CSV bundle carries them. */
function csvBodies(bundle: string): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const m of bundle.matchAll(/^[a-z]+,([0-9a-f]{64}),"((?:[^"]|"")*)"\r\n/gm)) {
    bodies.set(m[1] as string, (m[2] as string).replaceAll('""', '"'));
  }
  return bodies;
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
 * The envelopes' bytes by id, exactly as a JSON bundle carries them: each row is
 * `{"kind":…,"id":"…","envelope":<the stored bytes>}`, so the bytes run from after `"envelope":` to the row's own
 * closing brace (whitespace the stored envelope began or ended with included).
 */
function jsonBodies(bundle: string): Map<string, string> {
  const bodies = new Map<string, string>();
  const row = /\{"kind":"[a-z-]+","id":"([0-9a-f]{64})","envelope":/g;
  // Row by row: the next search starts after this row's envelope, so nothing inside one is taken for a row.
  for (let m = row.exec(bundle); m; m = row.exec(bundle)) {
    const start = m.index + m[0].length;
    let end = jsonValueEnd(bundle, start);
    if (end < 0) break;
    while (/\s/.test(bundle[end] ?? "")) end++;
    if (bundle[end] === "}") bodies.set(m[1] as string, bundle.slice(start, end));
    row.lastIndex = end;
  }
  return bodies;
}

/** Candidate note keys: every Ed25519 key of the JWKS under each name the note's signature lines give. */
function noteKeys(note: string, jwks: { keys?: unknown }): NoteKey[] {
  const names = [...note.matchAll(/^— (\S+) /gmu)].map((m) => m[1] as string);
  const keys = Array.isArray(jwks.keys) ? (jwks.keys as { kty?: unknown; crv?: unknown; x?: unknown }[]) : [];
  const publicKeys = keys
    .filter((k) => k.kty === "OKP" && k.crv === "Ed25519" && typeof k.x === "string")
    .map((k) => base64urlnopad.decode(k.x as string));
  return names.flatMap((name) => publicKeys.map((publicKey) => ({ name, publicKey })));
}

export function checkBundleLog(input: {
  bundle: string;
  format: AuditFormat;
  /** Envelope ids in the log's order. */
  leaves: readonly string[];
  /** Signed checkpoint notes, any order. */
  checkpoints: readonly string[];
  jwks: { keys?: unknown };
}): LogCheck {
  if (input.format === "ndjson") {
    return { ok: false, reason: "format_unsupported", detail: "check the log against the CSV or JSON export" };
  }
  const bodies = input.format === "csv" ? csvBodies(input.bundle) : jsonBodies(input.bundle);
  const checked: Checkpoint[] = [];
  for (const note of input.checkpoints) {
    const opened = openNote(note, noteKeys(note, input.jwks));
    if (!opened) return { ok: false, reason: "checkpoint_unsigned", detail: "no key of the JWKS signed a checkpoint" };
    const checkpoint = parseCheckpoint(opened.text);
    if (!checkpoint) return { ok: false, reason: "checkpoint_malformed", detail: "the signed text is no checkpoint" };
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
