// v1.2 private scope (oc-wire-formats §3.12): the shape of `scopes_encrypted` (an OC Lock v2 identity envelope) and
// its issuer binding. The id covers the plaintext scopes, so nothing past this can be checked without decrypting.
import { array, at, type JsonRecord, literal, malformed, record, text } from "./fields";

const LOCK = "E_BAD_LOCK_ENVELOPE";
const RECIPIENT_FIELDS = ["address", "device_id", "device_pk", "eph_pk", "wrapped_key", "nonce_kek"] as const;

/** Throws `invalid_body` (E_BAD_LOCK_ENVELOPE for the Lock shape, E_MALFORMED for `from.address` ≠ principal). */
export function checkScopesEncrypted(value: unknown, path: string, principalAddress: string): void {
  const lock = record(value, path, LOCK);
  literal(lock, "v", path, 2, LOCK);
  literal(lock, "kind", path, "identity", LOCK);
  text(lock, "id", path, undefined, LOCK);
  const alg = record(lock.alg, at(path, "alg"), LOCK);
  literal(alg, "kem", at(path, "alg"), "x25519", LOCK);
  literal(alg, "aead", at(path, "alg"), "aes-256-gcm", LOCK);
  literal(alg, "kdf", at(path, "alg"), "hkdf-sha256", LOCK);
  const from = record(lock.from, at(path, "from"), LOCK);
  const fromAddress = text(from, "address", at(path, "from"), undefined, LOCK);
  const recipients = array(lock, "recipients", path, LOCK);
  if (recipients.length === 0) throw malformed(at(path, "recipients"), "must not be empty", LOCK);
  recipients.forEach((entry, index) => {
    const recipient = record(entry, at(at(path, "recipients"), index), LOCK);
    for (const key of RECIPIENT_FIELDS) text(recipient, key, at(at(path, "recipients"), index), undefined, LOCK);
  });
  for (const key of ["ciphertext", "nonce_ct", "created_at"]) text(lock, key, path, undefined, LOCK);
  if (lock.expires_at !== null) text(lock, "expires_at", path, undefined, LOCK);
  if (lock.hint !== undefined) text(lock, "hint", path, undefined, LOCK);
  checkLockSig(lock, path);
  if (fromAddress !== principalAddress) {
    throw malformed(at(at(path, "from"), "address"), "must equal the envelope's principal address");
  }
}

function checkLockSig(lock: JsonRecord, path: string): void {
  const sig = record(lock.sig, at(path, "sig"), LOCK);
  literal(sig, "alg", at(path, "sig"), "bip322", LOCK);
  text(sig, "pubkey", at(path, "sig"), undefined, LOCK);
  text(sig, "value", at(path, "sig"), undefined, LOCK);
}
