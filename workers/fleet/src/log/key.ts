// The key the projects' checkpoints are signed with (docs/log.md): the fleet's audit key (FLEET_SIGNING_KEY, an
// Ed25519 private JWK, the key that signs audit bundles). Each project's checkpoint is signed under its log's origin,
// `<fleet host>/api/log/<project>` (issue 48: tlog-checkpoint's key name = origin, tlog-tiles' origin = the prefix
// without its scheme); `name` here is the host, the key's name before then, still published by GET /api/log/key.
// Read by the checkpoint routes and by the log integrator, which signs each new checkpoint.
import { ed25519 } from "@noble/curves/ed25519.js";
import { base64urlnopad } from "@scure/base";
import { AppError } from "../../../../shared/errors";
import type { NoteKey } from "../../../../shared/tlog/note";
import { logOrigin as originOf } from "../../../../shared/tlog/origin";

export interface LogKey extends NoteKey {
  secret: Uint8Array;
  kid: string;
  /** FLEET_SIGNING_KEY as set: the WebCrypto key that signs the checkpoints is imported from it (sign.ts). */
  jwk: string;
}

/**
 * Log keys by the secret's text and the host: the public key is derived from the secret once per isolate, not
 * for every checkpoint (65 µs of curve arithmetic in workerd each time).
 */
const logKeys = new Map<string, LogKey>();

/** The audit key as a note key; `fallbackOrigin` names the host when FLEET_ORIGIN is unset (a request's URL). */
export function logKey(env: { FLEET_SIGNING_KEY?: string; FLEET_ORIGIN?: string }, fallbackOrigin?: string): LogKey {
  const origin = env.FLEET_ORIGIN ?? fallbackOrigin;
  const cacheKey = `${origin}\n${env.FLEET_SIGNING_KEY}`;
  let key = logKeys.get(cacheKey);
  if (!key) {
    key = readLogKey(env.FLEET_SIGNING_KEY, origin);
    if (logKeys.size >= 8) logKeys.clear(); // a few hosts and a rotation at most
    logKeys.set(cacheKey, key);
  }
  return key;
}

function readLogKey(secret: string | undefined, origin: string | undefined): LogKey {
  const unset = (detail: string) => new AppError("signing_key_unset", { detail });
  if (!secret) throw unset("FLEET_SIGNING_KEY is not set");
  let jwk: { kty?: unknown; crv?: unknown; d?: unknown; kid?: unknown };
  try {
    jwk = JSON.parse(secret);
  } catch {
    throw unset("FLEET_SIGNING_KEY is not JSON");
  }
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.d !== "string" || typeof jwk.kid !== "string") {
    throw unset("FLEET_SIGNING_KEY is not an Ed25519 private JWK");
  }
  if (!origin) throw unset("FLEET_ORIGIN is not set: the checkpoints' key name is the fleet's host");
  const seed = base64urlnopad.decode(jwk.d);
  return { name: new URL(origin).host, secret: seed, publicKey: ed25519.getPublicKey(seed), kid: jwk.kid, jwk: secret };
}

/** A project's log origin: `<fleet host>/api/log/<project>` (the checkpoint's first line and its key name). */
export const logOrigin = (key: LogKey, projectId: string) => originOf(key.name, projectId);

/** The audit key as a project's log names it: its origin (the verifier key GET /api/log/key?project_id= answers). */
export const projectNoteKey = (key: LogKey, projectId: string): NoteKey => ({
  name: logOrigin(key, projectId),
  publicKey: key.publicKey,
});
