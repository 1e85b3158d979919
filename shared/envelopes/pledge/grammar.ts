// Value grammar shared by the three OC Pledge messages (oc-wire-formats §4.1, §4.4, §4.5): hex ids, nonces,
// addresses, second-precision UTC timestamps and single-line text with a UTF-8 byte bound.
import { parseUtcTimestamp } from "../../attest/canonical";

export const HEX_64 = /^[0-9a-f]{64}$/;
export const NONCE = /^[0-9a-f]{32}$/;
/** Base58 and bech32 characters; whether it decodes is the signature verifier's business (vectors use fake ones). */
const ADDRESS_TEXT = /^[A-Za-z0-9]{1,100}$/;
/** Strict `YYYY-MM-DDTHH:MM:SSZ`: no fraction, no offset, capital Z (PLG SPEC §0). */
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** `null` is the message's literal for an absent value, so the string "null" would collide with it. */
export function isAddress(value: string): boolean {
  return ADDRESS_TEXT.test(value) && value !== "null";
}

/** Epoch ms of a strict pledge timestamp, or undefined (wrong form, or not a real instant like Feb 30). */
export function parseIsoSeconds(value: string): number | undefined {
  return ISO_SECONDS.test(value) ? parseUtcTimestamp(value) : undefined;
}

/**
 * Problem with a one-line text field, or undefined. A message line must not hold CR or LF; the bound is in
 * UTF-8 bytes (v04's "…" counts three).
 */
export function singleLineProblem(name: string, value: string, maxBytes?: number): string | undefined {
  if (value.length === 0) return `${name} must not be empty`;
  if (/[\r\n]/.test(value)) return `${name} must be a single line (no CR or LF)`;
  if (maxBytes !== undefined && utf8Length(value) > maxBytes) return `${name} exceeds ${maxBytes} UTF-8 bytes`;
  return undefined;
}

export function isNonNegativeInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}
