// Identifier forms of fleet records: a type prefix and 24 lowercase hex (96 random bits).
import { randomHex } from "../../../shared/crypto/digest";

export const ID_PATTERNS = {
  project: /^proj_[0-9a-f]{24}$/,
  member: /^mem_[0-9a-f]{24}$/,
  token: /^tok_[0-9a-f]{24}$/,
  bundle: /^bnd_[0-9a-f]{24}$/,
  event: /^evt_[0-9a-f]{24}$/,
} as const;

export function newId(prefix: "proj" | "mem" | "tok" | "bnd" | "evt" | "whe" | "pay"): string {
  return `${prefix}_${randomHex(12)}`;
}

/** API token secrets: `ock_` + 64 hex (DECISIONS 13), 256 random bits. */
export const TOKEN_SECRET = /^ock_[0-9a-f]{64}$/;

export function newTokenSecret(): string {
  return `ock_${randomHex(32)}`;
}
