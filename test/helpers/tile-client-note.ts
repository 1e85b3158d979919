// C2SP signed-note (Ed25519, type 0x01) and tlog-checkpoint for the independent tile client, written from the specs.
// Hand-written because the wire format is the point of the test; the cryptography is @noble's.
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, hex } from "@scure/base";
import { HASH_SIZE } from "./tile-client-merkle";

/** Why the client refused something: one tag per rule it checks, so a test can assert which rule caught a fault. */
export type TileClientReason =
  | "bad_verifier_key" // not "<name>+<key ID hex8>+<base64(0x01 || Ed25519 key)>", or the ID does not match
  | "malformed_note" // not a signed note (signed-note "Format")
  | "bad_signature" // a signature by the trusted key (name and key ID) does not verify
  | "no_verified_signature" // no signature by the trusted key at all
  | "malformed_checkpoint" // the note text is not a checkpoint (tlog-checkpoint "Note text")
  | "wrong_origin"
  | "size_not_verified" // a request beyond the largest checkpoint verified so far
  | "out_of_range"
  | "http_error"
  | "bad_tile" // a tile whose length is not 32 × its width
  | "bad_entry_bundle" // not exactly `width` uint16-length-prefixed entries
  | "entry_mismatch"; // an entry whose leaf hash is not the level-0 tile's

export class TileClientError extends Error {
  constructor(
    readonly reason: TileClientReason,
    detail?: string,
  ) {
    super(detail ? `${reason}: ${detail}` : reason);
    this.name = "TileClientError";
  }
}

/** Go's golang.org/x/mod/sumdb/note verifier key: signed-note itself gives no text form for a public key. */
export interface NoteVerifier {
  name: string;
  keyId: Uint8Array;
  publicKey: Uint8Array;
}

const ED25519 = 0x01;
/** signed-note: "MUST accept at least up to 16 signatures"; more than this is refused as malformed. */
const MAX_SIGNATURES = 100;
const SIGNATURE_PREFIX = "\u2014 ";
/** Key names: "MUST be non-empty and MUST NOT contain any Unicode spaces or plus (U+002B)". */
const BAD_NAME = /[\s+]/u;
const utf8 = new TextEncoder();

export function keyId(name: string, type: number, publicKey: Uint8Array): Uint8Array {
  const name8 = utf8.encode(name);
  const input = new Uint8Array(name8.length + 2 + publicKey.length);
  input.set(name8);
  input.set([0x0a, type], name8.length);
  input.set(publicKey, name8.length + 2);
  return sha256(input).slice(0, 4);
}

function decodeBase64(text: string): Uint8Array | undefined {
  try {
    return base64.decode(text);
  } catch {
    return undefined;
  }
}

export function parseVerifierKey(vkey: string): NoteVerifier {
  const bad = (detail: string) => new TileClientError("bad_verifier_key", detail);
  // The base64 of the key may itself contain "+": split only at the first two.
  const first = vkey.indexOf("+");
  const second = vkey.indexOf("+", first + 1);
  if (first < 1 || second < 0) throw bad("expected <name>+<hash>+<key>");
  const name = vkey.slice(0, first);
  const id = vkey.slice(first + 1, second);
  const key = decodeBase64(vkey.slice(second + 1));
  if (BAD_NAME.test(name)) throw bad("key name has a space or plus");
  if (!/^[0-9a-f]{8}$/.test(id)) throw bad("key ID is not 8 lowercase hex digits");
  if (key?.length !== 33 || key[0] !== ED25519) throw bad("not an Ed25519 (0x01) key of 32 bytes");
  const publicKey = key.slice(1);
  const computed = keyId(name, ED25519, publicKey);
  if (hex.encode(computed) !== id) throw bad("key ID is not SHA-256(name || 0x0A || 0x01 || key)[:4]");
  return { name, keyId: computed, publicKey };
}

/** signed-note "Format" and "Signatures": the note text, once a signature by `verifier` verified over it. */
export function openSignedNote(note: Uint8Array, verifier: NoteVerifier): string {
  const malformed = (detail: string) => new TileClientError("malformed_note", detail);
  let decoded: string;
  try {
    // ignoreBOM keeps a byte-order mark in the text, where it can only fail the checks below.
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(note);
  } catch {
    throw malformed("not UTF-8");
  }
  for (let i = 0; i < decoded.length; i++) {
    const c = decoded.charCodeAt(i);
    if (c < 0x20 && c !== 0x0a) throw malformed("control character other than newline");
  }
  if (!decoded.endsWith("\n")) throw malformed("does not end in a newline");
  // The text is separated from the signatures by the last empty line, and keeps its own final newline.
  const blank = decoded.lastIndexOf("\n\n");
  if (blank < 0) throw malformed("no blank line before the signatures");
  const text = decoded.slice(0, blank + 1);
  const lines = decoded.slice(blank + 2, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) throw malformed("too many signatures");
  const message = utf8.encode(text);
  let verified = false;
  for (const line of lines) {
    if (!line.startsWith(SIGNATURE_PREFIX)) throw malformed("a signature line does not start with an em dash");
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.indexOf(" ");
    const name = rest.slice(0, space);
    const blob = decodeBase64(rest.slice(space + 1));
    if (space < 1 || BAD_NAME.test(name) || !blob || blob.length < 5) throw malformed("bad signature line");
    // Known only by name and key ID together; any other signature (a witness, a rotated key) is ignored.
    if (name !== verifier.name || hex.encode(blob.subarray(0, 4)) !== hex.encode(verifier.keyId)) continue;
    const signature = blob.subarray(4);
    const ok = signature.length === 64 && ed25519.verify(signature, message, verifier.publicKey, { zip215: false });
    if (!ok) throw new TileClientError("bad_signature", `by ${verifier.name}`);
    verified = true;
  }
  if (!verified) throw new TileClientError("no_verified_signature", `none by ${verifier.name}`);
  return text;
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** Opaque extension lines, if any. */
  extensions: string[];
}

/** tlog-checkpoint "Note text": origin, decimal size, base64 root hash, then optional non-empty extension lines. */
export function parseCheckpoint(text: string): Checkpoint {
  const malformed = (detail: string) => new TileClientError("malformed_checkpoint", detail);
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) throw malformed("fewer than three lines");
  if (lines.some((line) => line === "")) throw malformed("an empty line");
  const [origin, sizeLine, rootLine, ...extensions] = lines as [string, string, string, ...string[]];
  if (!/^(0|[1-9][0-9]*)$/.test(sizeLine)) throw malformed("size is not a decimal without leading zeroes");
  const size = Number(sizeLine);
  if (!Number.isSafeInteger(size)) throw malformed("size beyond 2^53");
  const root = decodeBase64(rootLine);
  if (!root || root.length !== HASH_SIZE) throw malformed("root hash is not the base64 of 32 bytes");
  return { origin, size, root, extensions };
}
