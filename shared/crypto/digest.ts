// Hashing and random identifiers over WebCrypto (fast in workerd), with hex and base64url encodings.
import { base64urlnopad, hex } from "@scure/base";

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? utf8(data) : data;
  return hex.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** Lowercase hex of `length` random bytes (the challenge nonce and the did:oc id use 16). */
export function randomHex(length: number): string {
  return hex.encode(randomBytes(length));
}

/** URL-safe random token of `length` bytes, no padding. */
export function randomToken(length: number): string {
  return base64urlnopad.encode(randomBytes(length));
}
