// C2SP signed-note (https://c2sp.org/signed-note) with Ed25519 keys: a text ending in a newline, a blank line, then
// one line per signature, "— <key name> <base64(key hash ‖ signature)>". The key hash is the first four bytes of
// SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ public key), 0x01 naming Ed25519; a verifier key is written
// "<name>+<key hash, hex>+<base64(0x01 ‖ public key)>". Pure and synchronous (signedNote takes a signature made
// by a WebCrypto key, which is asynchronous).
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, hex } from "@scure/base";

const ED25519 = 0x01;
const SIGNATURE_PREFIX = "— ";
const utf8 = new TextEncoder();

export interface NoteKey {
  name: string;
  publicKey: Uint8Array;
}

const validName = (name: string) => name.length > 0 && !/[\s+]/u.test(name);

/** Standard base64, or undefined when it is not. */
export function fromBase64(text: string): Uint8Array | undefined {
  try {
    return base64.decode(text);
  } catch {
    return undefined;
  }
}

/** A key ID: the first four bytes of SHA-256(name ‖ 0x0A ‖ signature type ‖ public key) (signed-note). */
export function keyId(name: string, type: number, publicKey: Uint8Array): Uint8Array {
  const bytes = utf8.encode(name);
  const input = new Uint8Array(bytes.length + 2 + publicKey.length);
  input.set(bytes);
  input.set([0x0a, type], bytes.length);
  input.set(publicKey, bytes.length + 2);
  return sha256(input).slice(0, 4);
}

export function noteKeyHash(key: NoteKey): Uint8Array {
  return keyId(key.name, ED25519, key.publicKey);
}

/** The verifier key string a log's clients configure, e.g. for a witness. */
export function verifierKey(key: NoteKey): string {
  if (!validName(key.name)) throw new RangeError("a key name is non-empty, without spaces or '+'");
  return `${key.name}+${hex.encode(noteKeyHash(key))}+${base64.encode(Uint8Array.of(ED25519, ...key.publicKey))}`;
}

/** Reads a verifier key string; undefined unless it is a well-formed Ed25519 key whose hash matches. */
export function parseVerifierKey(text: string): NoteKey | undefined {
  const match = /^([^\s+]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(text);
  if (!match) return undefined;
  const material = fromBase64(match[3] as string);
  if (!material || material.length !== 33 || material[0] !== ED25519) return undefined;
  const key = { name: match[1] as string, publicKey: material.slice(1) };
  return hex.encode(noteKeyHash(key)) === match[2] ? key : undefined;
}

function checkNoteText(text: string): void {
  if (!text.endsWith("\n") || text.includes("\n\n"))
    throw new RangeError("a note's text ends in one newline, no blank lines");
}

/** The bytes a note's signature covers: its text, which must be non-empty and end in one newline. */
export function noteMessage(text: string): Uint8Array {
  checkNoteText(text);
  return utf8.encode(text);
}

/**
 * The note of `text` signed by `key`, from the Ed25519 signature of `noteMessage(text)` made elsewhere (a
 * WebCrypto key: the fleet's checkpoints, log/sign.ts).
 */
export function signedNote(text: string, key: NoteKey, signature: Uint8Array): string {
  if (!validName(key.name)) throw new RangeError("a key name is non-empty, without spaces or '+'");
  if (signature.length !== 64) throw new RangeError("an Ed25519 signature is 64 bytes");
  checkNoteText(text);
  const line = base64.encode(Uint8Array.of(...noteKeyHash(key), ...signature));
  return `${text}\n${SIGNATURE_PREFIX}${key.name} ${line}\n`;
}

/** Signs `text` (non-empty, ending in a newline) with a 32-byte Ed25519 secret key, as `name`. */
export function signNote(text: string, name: string, secretKey: Uint8Array): string {
  const signature = ed25519.sign(noteMessage(text), secretKey);
  return signedNote(text, { name, publicKey: ed25519.getPublicKey(secretKey) }, signature);
}

/** A signature line, "— <key name> <base64 blob>": the name and the blob's text. */
export const SIGNATURE_LINE = /^— (\S+) ([A-Za-z0-9+/]+=*)$/u;

/** A signed note split into its text and its signature lines; undefined when it is no signed note. */
export function splitNote(note: string): { text: string; lines: string[] } | undefined {
  const split = note.lastIndexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) return undefined;
  return { text: note.slice(0, split + 1), lines: note.slice(split + 2, -1).split("\n") };
}

export interface OpenedNote {
  text: string;
  /** The names of the given keys whose signature verified, in the note's order. */
  signedBy: string[];
}

/**
 * The note's text and which of `keys` signed it; undefined when the note is malformed or none of `keys` verifies
 * (signatures by other keys are ignored, as the spec allows).
 */
export function openNote(note: string, keys: readonly NoteKey[]): OpenedNote | undefined {
  const parts = splitNote(note);
  if (!parts) return undefined;
  const { text, lines } = parts;
  const message = utf8.encode(text);
  const signedBy: string[] = [];
  for (const line of lines) {
    const match = SIGNATURE_LINE.exec(line);
    if (!match) return undefined;
    const blob = fromBase64(match[2] as string);
    if (!blob || blob.length < 5) return undefined;
    const id = hex.encode(blob.slice(0, 4));
    for (const key of keys) {
      if (key.name !== match[1] || hex.encode(noteKeyHash(key)) !== id || blob.length !== 68) continue;
      if (ed25519.verify(blob.slice(4), message, key.publicKey)) signedBy.push(key.name);
    }
  }
  return signedBy.length > 0 ? { text, signedBy } : undefined;
}
