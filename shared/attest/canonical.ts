// The OC Attest v1 canonical message (oc-wire-formats §1.1, §1.3): its literals and grammar, and the builder
// that renders it byte for byte as the reference SDK does. The strict parser is in parse.ts.
import { utcInstant } from "../time";
import { AttestBuildError } from "./build-error";
import { formatIdentities, type Identity } from "./identities";

export const ATTEST_HEADER = "orangecheck";
export const ATTEST_PURPOSE = "purpose: portable reputation attestation (non-custodial)";
export const ATTEST_ACK = "ack: I attest control of this address and bind it to my identities.";

export const NONCE = /^[0-9a-f]{32}$/;
/** Base58 and bech32 characters only; whether it decodes is checked at verification. */
export const ADDRESS_TEXT = /^[A-Za-z0-9]+$/;
// The ABNF says `1*(a-z)`, but the registered `relay_hints` key needs the underscore.
export const EXTENSION_KEY = /^[a-z][a-z_]*$/;
/** Non-empty, exactly one space after the colon (so no leading whitespace), no control characters. */
export const EXTENSION_VALUE = /^[^\s\p{Cc}]\P{Cc}*$/u;
/** Core line names: an extension of the same name would confuse key-based (non-positional) parsers. */
export const CORE_KEYS: ReadonlySet<string> = new Set([
  "identities",
  "address",
  "purpose",
  "nonce",
  "issued_at",
  "ack",
]);

const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/** RFC 3339 date-time in UTC (`Z`), any fraction up to nanoseconds → epoch ms; undefined if not a real instant. */
export function parseUtcTimestamp(value: string): number | undefined {
  const match = UTC_TIMESTAMP.exec(value);
  return match ? utcInstant(match) : undefined;
}

export type ExtensionValue = string | number | bigint | null | undefined;

export interface AttestationInput {
  address: string;
  identities: readonly Identity[];
  /** 32 lowercase hex characters (16 random bytes). */
  nonce: string;
  /** RFC 3339 UTC ending in `Z`, written as given (the id depends on the exact bytes). */
  issuedAt: string;
  extensions?: Readonly<Record<string, ExtensionValue>>;
}

function stringify(key: string, value: string | number | bigint): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new AttestBuildError("extension_value", `extension ${key}: not a finite number`);
    // BigInt prints every integer in plain base 10, where String(1e21) would give "1e+21".
    return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  }
  return value;
}

/** Lower-cases keys, drops empty and null values, stringifies the rest, sorts by key (SDK rules). */
function extensionLines(extensions: Readonly<Record<string, ExtensionValue>>): string[] {
  const entries = new Map<string, string>();
  for (const [rawKey, rawValue] of Object.entries(extensions)) {
    if (rawValue === null || rawValue === undefined || rawValue === "") continue;
    const key = rawKey.toLowerCase();
    if (!EXTENSION_KEY.test(key) || CORE_KEYS.has(key)) {
      throw new AttestBuildError("extension_key", `invalid extension key ${JSON.stringify(rawKey)}`);
    }
    if (entries.has(key)) throw new AttestBuildError("extension_key", `duplicate extension key ${key}`);
    const value = stringify(key, rawValue);
    if (!EXTENSION_VALUE.test(value)) {
      throw new AttestBuildError("extension_value", `extension ${key}: newline, control character or leading space`);
    }
    if (key === "bond" && !/^[0-9]+$/.test(value)) {
      throw new AttestBuildError("extension_value", "extension bond: must be a base-10 integer of sats");
    }
    entries.set(key, value);
  }
  return [...entries.keys()].sort().map((key) => `${key}: ${entries.get(key)}`);
}

/** Seven core lines, then the extensions; every line ends in LF. Throws AttestBuildError on bad input. */
export function buildAttestationMessage(input: AttestationInput): string {
  const identities = formatIdentities(input.identities);
  if (typeof input.address !== "string" || !ADDRESS_TEXT.test(input.address)) {
    throw new AttestBuildError("address", "address must be a non-empty base58 or bech32 string");
  }
  if (typeof input.nonce !== "string" || !NONCE.test(input.nonce)) {
    throw new AttestBuildError("nonce", "nonce must be 32 lowercase hex characters");
  }
  if (typeof input.issuedAt !== "string" || parseUtcTimestamp(input.issuedAt) === undefined) {
    throw new AttestBuildError("issued_at", "issued_at must be an RFC 3339 UTC timestamp ending in Z");
  }
  const lines = [
    ATTEST_HEADER,
    `identities: ${identities}`,
    `address: ${input.address}`,
    ATTEST_PURPOSE,
    `nonce: ${input.nonce}`,
    `issued_at: ${input.issuedAt}`,
    ATTEST_ACK,
    ...extensionLines(input.extensions ?? {}),
  ];
  return `${lines.join("\n")}\n`;
}
