// C2SP tlog-cosignature (https://c2sp.org/tlog-cosignature), Ed25519 (`cosignature/v1`), and the witness policy a
// log client applies with it: "at least N of these witnesses cosigned this checkpoint". A cosignature is one more
// signed-note line, "— <witness name> base64(key ID ‖ u64 timestamp, big-endian ‖ Ed25519 signature)", the key ID
// SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4], the signature over "cosignature/v1\ntime <t>\n" and the checkpoint's
// text. Pure: the policy's witnesses are the caller's (vkeys it was configured with), never read from the note.
import { ed25519 } from "@noble/curves/ed25519.js";
import { base64, hex } from "@scure/base";
import { fromBase64, keyId, SIGNATURE_LINE, splitNote } from "./note";

/** The signature type of timestamped Ed25519 cosignatures (signed-note's table). */
export const COSIGNATURE_V1 = 0x04;
/** The largest timestamp the spec allows (2^63 − 1): a larger one is no cosignature. */
const MAX_TIMESTAMP = (1n << 63n) - 1n;
const utf8 = new TextEncoder();

/** A witness as a log client is configured with it: its name and Ed25519 cosigning key. */
export interface CosignerKey {
  name: string;
  publicKey: Uint8Array;
}

const validName = (name: string) => name.length > 0 && !/[\s+]/u.test(name);

export const cosignerKeyId = (key: CosignerKey) => keyId(key.name, COSIGNATURE_V1, key.publicKey);

/** The vkey of a witness: "<name>+<key ID, hex>+<base64(0x04 ‖ public key)>". */
export function cosignerVerifierKey(key: CosignerKey): string {
  if (!validName(key.name)) throw new RangeError("a key name is non-empty, without spaces or '+'");
  const material = base64.encode(Uint8Array.of(COSIGNATURE_V1, ...key.publicKey));
  return `${key.name}+${hex.encode(cosignerKeyId(key))}+${material}`;
}

/** A witness vkey read back; undefined unless it is a cosignature/v1 Ed25519 key whose key ID matches. */
export function parseCosignerKey(text: string): CosignerKey | undefined {
  const match = /^([^\s+]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(text);
  if (!match) return undefined;
  const material = fromBase64(match[3] as string);
  if (material?.length !== 33 || material[0] !== COSIGNATURE_V1) return undefined;
  const key = { name: match[1] as string, publicKey: material.slice(1) };
  return hex.encode(cosignerKeyId(key)) === match[2] ? key : undefined;
}

/** The bytes a cosignature at `timestamp` (POSIX seconds) signs over a checkpoint's `text`. */
export function cosignatureMessage(text: string, timestamp: bigint): Uint8Array {
  return utf8.encode(`cosignature/v1\ntime ${timestamp}\n${text}`);
}

/** The signature line a witness holding `secretKey` adds to a checkpoint's `text` (tests and harness witnesses). */
export function cosignatureLine(text: string, name: string, secretKey: Uint8Array, timestamp: bigint): string {
  const publicKey = ed25519.getPublicKey(secretKey);
  const stamp = new Uint8Array(8);
  new DataView(stamp.buffer).setBigUint64(0, timestamp);
  const signature = ed25519.sign(cosignatureMessage(text, timestamp), secretKey);
  const blob = Uint8Array.of(...cosignerKeyId({ name, publicKey }), ...stamp, ...signature);
  return `— ${name} ${base64.encode(blob)}\n`;
}

/** A listed witness's cosignature found on the note. */
export interface Cosignature {
  name: string;
  /** POSIX seconds, as the witness stamped it. */
  timestamp: number;
}

export interface WitnessPolicy {
  /** The witnesses' vkeys ("<name>+<hex8>+<base64(0x04 ‖ key)>"), as the client was configured. */
  witnesses: readonly string[];
  /** How many distinct listed witnesses must have cosigned; default all of them. */
  threshold?: number;
}

export type WitnessFailure =
  | "witness_policy_invalid" // a vkey is not a witness's, one key is listed twice, or the threshold is not 1…count
  | "witness_policy_unmet"; // fewer distinct listed witnesses than the threshold cosigned the checkpoint

export type WitnessCheck =
  | { ok: true; cosigned: Cosignature[] }
  | { ok: false; reason: WitnessFailure; detail: string; cosigned?: Cosignature[] };

/** The policy's witnesses and threshold, or why they are not a policy. */
export function readWitnessPolicy(
  policy: WitnessPolicy,
): { ok: true; witnesses: CosignerKey[]; threshold: number } | { ok: false; reason: WitnessFailure; detail: string } {
  const invalid = (detail: string) => ({ ok: false as const, reason: "witness_policy_invalid" as const, detail });
  const witnesses: CosignerKey[] = [];
  for (const vkey of policy.witnesses) {
    const key = parseCosignerKey(vkey);
    if (!key) return invalid(`${vkey} is not a witness vkey <name>+<hex8>+<base64(0x04 ‖ Ed25519 key)>`);
    // One key is one witness: a v1 cosignature does not sign the name, so a key under two names would count twice.
    if (witnesses.some((w) => hex.encode(w.publicKey) === hex.encode(key.publicKey))) {
      return invalid(`the key of ${key.name} is listed twice`);
    }
    witnesses.push(key);
  }
  const threshold = policy.threshold ?? witnesses.length;
  if (!Number.isSafeInteger(threshold) || threshold < 1 || threshold > witnesses.length) {
    return invalid(`the threshold ${threshold} is not between 1 and the ${witnesses.length} witnesses listed`);
  }
  return { ok: true, witnesses, threshold };
}

/** The timestamp of a valid cosignature of `text` by `key` in `blob` (key ID already matched), if it is one. */
function verifyBlob(text: string, key: CosignerKey, blob: Uint8Array): number | undefined {
  if (blob.length !== 4 + 8 + 64) return undefined;
  const timestamp = new DataView(blob.buffer, blob.byteOffset + 4, 8).getBigUint64(0);
  if (timestamp > MAX_TIMESTAMP) return undefined;
  if (!ed25519.verify(blob.subarray(12), cosignatureMessage(text, timestamp), key.publicKey)) return undefined;
  return Number(timestamp);
}

/**
 * Whether the signed checkpoint `note` carries valid cosignatures by at least `threshold` distinct witnesses of the
 * policy. Lines of other keys are ignored (signed-note); a listed witness's line that does not verify counts as no
 * cosignature, so a bad line appended by anyone cannot veto a checkpoint the others cosigned; a witness's lines
 * count once however many there are. The log's own signature is the caller's to check (bundle-log.ts).
 */
export function checkCosignatures(note: string, policy: WitnessPolicy): WitnessCheck {
  const read = readWitnessPolicy(policy);
  if (!read.ok) return read;
  const parts = splitNote(note);
  if (!parts) return { ok: false, reason: "witness_policy_unmet", detail: "the checkpoint is no signed note" };
  const cosigned = new Map<CosignerKey, Cosignature>();
  for (const line of parts.lines) {
    const match = SIGNATURE_LINE.exec(line);
    const blob = match && fromBase64(match[2] as string);
    if (!blob || blob.length < 4) continue;
    const id = hex.encode(blob.subarray(0, 4));
    for (const key of read.witnesses) {
      if (cosigned.has(key) || key.name !== match?.[1] || hex.encode(cosignerKeyId(key)) !== id) continue;
      const timestamp = verifyBlob(parts.text, key, blob);
      if (timestamp !== undefined) cosigned.set(key, { name: key.name, timestamp });
    }
  }
  const found = [...cosigned.values()];
  if (found.length >= read.threshold) return { ok: true, cosigned: found };
  const names = found.map((c) => c.name).join(", ") || "none of them";
  const detail = `${found.length} of the ${read.witnesses.length} witnesses listed cosigned the checkpoint (${names}); the policy needs ${read.threshold}`;
  return { ok: false, reason: "witness_policy_unmet", detail, cosigned: found };
}
