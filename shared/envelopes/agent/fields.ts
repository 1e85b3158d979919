// Field readers for the hand-written envelope shape checks: each returns the typed value or throws a Refusal
// (`invalid_body`, E_MALFORMED unless told) naming the JSON path, so a parser reads top to bottom.
import { utcInstant } from "../../time";
import { type OcErrorCode, refusal } from "./codes";

export type JsonRecord = Record<string, unknown>;

export const HEX64 = /^[0-9a-f]{64}$/;
export const NONCE = /^[0-9a-f]{32}$/;
// Addresses stay opaque until the signature check decodes them (the vectors use undecodable placeholders);
// the charset only guarantees one message line.
export const ADDRESS = /^[A-Za-z0-9]{1,100}$/;
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function at(path: string, key: string | number): string {
  return typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

export function malformed(path: string, problem: string, code: OcErrorCode = "E_MALFORMED") {
  return refusal("invalid_body", code, `${path || "(root)"}: ${problem}`);
}

export function record(value: unknown, path: string, code?: OcErrorCode): JsonRecord {
  if (!isRecord(value)) throw malformed(path, value === undefined ? "required" : "must be an object", code);
  return value;
}

export function present(obj: JsonRecord, key: string): boolean {
  return obj[key] !== undefined;
}

export function text(obj: JsonRecord, key: string, path: string, pattern?: RegExp, code?: OcErrorCode): string {
  const value = obj[key];
  const where = at(path, key);
  if (value === undefined) throw malformed(where, "required", code);
  if (typeof value !== "string") throw malformed(where, "must be a string", code);
  if (pattern && !pattern.test(value)) throw malformed(where, `must match ${pattern.source}`, code);
  return value;
}

export function nullableText(obj: JsonRecord, key: string, path: string, pattern?: RegExp): string | null {
  return obj[key] === null || obj[key] === undefined ? null : text(obj, key, path, pattern);
}

export function literal<T extends string | number>(
  obj: JsonRecord,
  key: string,
  path: string,
  expected: T,
  code?: OcErrorCode,
): T {
  if (obj[key] !== expected) throw malformed(at(path, key), `must be ${JSON.stringify(expected)}`, code);
  return expected;
}

/** A JSON number that is a safe integer ≥ min (a numeric string is refused: §3.6). */
export function integer(obj: JsonRecord, key: string, path: string, min = 0): number {
  const value = obj[key];
  const where = at(path, key);
  if (value === undefined) throw malformed(where, "required");
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw malformed(where, "must be an integer number");
  if (value < min) throw malformed(where, `must be at least ${min}`);
  return value;
}

export function array(obj: JsonRecord, key: string, path: string, code?: OcErrorCode): unknown[] {
  const value = obj[key];
  if (!Array.isArray(value))
    throw malformed(at(path, key), value === undefined ? "required" : "must be an array", code);
  return value;
}

/** ISO 8601 UTC with `Z` and optional fraction; rejects impossible dates (2026-02-30) that Date would roll over. */
export function isoMillis(value: string): number | null {
  const match = ISO_UTC.exec(value);
  return (match && utcInstant(match)) ?? null;
}

export function timestamp(obj: JsonRecord, key: string, path: string): string {
  const value = text(obj, key, path);
  if (isoMillis(value) === null) throw malformed(at(path, key), "must be an ISO 8601 UTC timestamp ending in Z");
  return value;
}

/** Epoch ms of a timestamp the shape check already accepted. */
export function millis(value: string): number {
  return isoMillis(value) ?? Number.NaN;
}
