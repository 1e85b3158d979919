// Endpoint signing secrets (DECISIONS 14-15): the `whsec_` form both stock verifiers accept, and sealing them at rest
// with AES-256-GCM under a key derived from WEBHOOK_MASTER_KEY.
import { base64, base64urlnopad } from "@scure/base";
import { randomBytes, utf8 } from "../crypto/digest";
import { AppError } from "../errors";

export const SECRET_PREFIX = "whsec_";
/** Random bytes in a new secret; Standard Webhooks asks for at least MIN_SECRET_BYTES. */
export const SECRET_BYTES = 32;
export const MIN_SECRET_BYTES = 24;
export const MIN_MASTER_KEY_LENGTH = 32;

const SEALED_VERSION = "v1";
const IV_BYTES = 12;
const GCM_TAG_BYTES = 16;
const HKDF_INFO = utf8("open-oc webhook endpoint secret v1");

/** `whsec_` + base64 of 32 random bytes, shown once at endpoint creation. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + base64.encode(randomBytes(SECRET_BYTES));
}

/** The key bytes Standard Webhooks signs with: the base64 after `whsec_`. Throws on any other form. */
export function secretKeyBytes(secret: string): Uint8Array {
  if (!secret.startsWith(SECRET_PREFIX)) throw new TypeError("webhook secret must start with whsec_");
  let key: Uint8Array;
  try {
    key = base64.decode(secret.slice(SECRET_PREFIX.length));
  } catch {
    throw new TypeError("webhook secret is not base64 after whsec_");
  }
  if (key.length < MIN_SECRET_BYTES) throw new TypeError(`webhook secret holds fewer than ${MIN_SECRET_BYTES} bytes`);
  return key;
}

/** `v1.<base64url iv>.<base64url ciphertext+tag>`; throws AppError webhook_master_key_unset (503) on a short key. */
export async function sealSecret(secret: string, masterKey: string | undefined): Promise<string> {
  const key = await sealingKey(masterKey);
  const iv = randomBytes(IV_BYTES);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, utf8(secret)));
  return [SEALED_VERSION, base64urlnopad.encode(iv), base64urlnopad.encode(sealed)].join(".");
}

/** The secret inside `sealed`; throws AppError webhook_not_configured when it does not open under this master key. */
export async function openSecret(sealed: string, masterKey: string | undefined): Promise<string> {
  const key = await sealingKey(masterKey);
  const [version, ivText, dataText, ...extra] = sealed.split(".");
  const iv = decodeOrNull(ivText);
  const data = decodeOrNull(dataText);
  if (
    version !== SEALED_VERSION ||
    extra.length > 0 ||
    iv?.length !== IV_BYTES ||
    !data ||
    data.length < GCM_TAG_BYTES
  ) {
    throw new AppError("webhook_not_configured", { detail: "sealed webhook secret is malformed" });
  }
  try {
    return new TextDecoder().decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv }, key, data));
  } catch {
    // GCM authentication failed: another master key sealed it, or the row was altered.
    throw new AppError("webhook_not_configured", {
      detail: "sealed webhook secret does not open with this master key",
    });
  }
}

async function sealingKey(masterKey: string | undefined): Promise<CryptoKey> {
  if (masterKey === undefined || masterKey.length < MIN_MASTER_KEY_LENGTH) {
    throw new AppError("webhook_master_key_unset", {
      detail: `WEBHOOK_MASTER_KEY must be at least ${MIN_MASTER_KEY_LENGTH} characters`,
    });
  }
  const ikm = await crypto.subtle.importKey("raw", utf8(masterKey), "HKDF", false, ["deriveKey"]);
  // HKDF rather than the raw key: a master key of any length and alphabet yields a uniform 256-bit AES key.
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: HKDF_INFO },
    ikm,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

function decodeOrNull(text: string | undefined): Uint8Array | null {
  if (text === undefined) return null;
  try {
    return base64urlnopad.decode(text);
  } catch {
    return null;
  }
}
