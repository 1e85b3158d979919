// A checkpoint's signature (docs/log.md): the fleet's audit key as a WebCrypto key, imported once per isolate
// (shared/crypto/signing-key.ts), signs the note's text natively: 11 µs a checkpoint in workerd, where the JS curve
// took 137 µs to sign and 65 µs more to derive the public key. Ed25519 is deterministic, so the note is the same
// byte for byte as shared/tlog/note.ts's signNote makes from the same secret. The key name is the checkpoint's own
// origin line (tlog-checkpoint: the log's key name SHOULD match it), so the two cannot disagree.
import { loadSigningKey } from "../../../../shared/crypto/signing-key";
import { AppError } from "../../../../shared/errors";
import { noteMessage, signedNote } from "../../../../shared/tlog/note";
import type { LogKey } from "./key";

/** The signed note of a checkpoint's `text`, under the name its origin line gives. */
export async function signCheckpoint(key: LogKey, text: string): Promise<string> {
  const { privateKey } = await loadSigningKey(key.jwk).catch(() => {
    throw new AppError("signing_key_unset", { detail: "FLEET_SIGNING_KEY is not an Ed25519 private JWK with x" });
  });
  const signature = await crypto.subtle.sign(privateKey.algorithm, privateKey, noteMessage(text));
  const origin = text.slice(0, text.indexOf("\n"));
  return signedNote(text, { name: origin, publicKey: key.publicKey }, new Uint8Array(signature));
}
