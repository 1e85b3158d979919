// OC Attest identity bindings (oc-wire-formats §1.2): the `identities:` line's format and parse, builder
// validation with typed errors, and the discovery-time equivalences (twitter ≡ x, nostr npub ≡ hex).
import { bech32, hex } from "@scure/base";
import { AttestBuildError } from "./build-error";

export interface Identity {
  protocol: string;
  identifier: string;
}

export const IDENTITY_PROTOCOL = /^[a-z][a-z0-9_-]*$/;
/** ATT §2.1.1: the whole identities value is at most 512 UTF-8 bytes. */
export const MAX_IDENTITIES_BYTES = 512;

const encoder = new TextEncoder();

function assertBuildable({ protocol, identifier }: Identity): void {
  if (typeof protocol !== "string" || !IDENTITY_PROTOCOL.test(protocol)) {
    throw new AttestBuildError(
      "identity_protocol",
      `invalid identity protocol ${JSON.stringify(protocol)}: must match ${IDENTITY_PROTOCOL}`,
    );
  }
  if (typeof identifier !== "string" || identifier.length === 0) {
    throw new AttestBuildError("identity_identifier", "invalid identity identifier: must be non-empty");
  }
  if (/[\r\n]/.test(identifier)) {
    throw new AttestBuildError("identity_identifier", "invalid identity identifier: contains a newline (CR or LF)");
  }
  if (identifier.includes(",")) {
    throw new AttestBuildError("identity_identifier", "invalid identity identifier: contains a comma");
  }
  // The parser trims each half (as the SDK does), so surrounding whitespace would not survive a round trip.
  if (identifier.trim() !== identifier) {
    throw new AttestBuildError("identity_identifier", "invalid identity identifier: leading or trailing whitespace");
  }
}

/** The `identities:` value: bindings rendered `protocol:identifier`, sorted by code unit, joined by `,`. */
export function formatIdentities(identities: readonly Identity[]): string {
  for (const identity of identities) assertBuildable(identity);
  const value = identities
    .map(({ protocol, identifier }) => `${protocol}:${identifier}`)
    .sort()
    .join(",");
  if (encoder.encode(value).length > MAX_IDENTITIES_BYTES) {
    throw new AttestBuildError("identities_too_long", `identities exceed ${MAX_IDENTITIES_BYTES} UTF-8 bytes`);
  }
  return value;
}

/** Parses an `identities:` value; undefined when any binding is malformed or the value is too long. */
export function parseIdentities(value: string): Identity[] | undefined {
  if (value === "") return [];
  if (encoder.encode(value).length > MAX_IDENTITIES_BYTES) return undefined;
  const identities: Identity[] = [];
  for (const binding of value.split(",")) {
    const colon = binding.indexOf(":");
    if (colon < 0) return undefined;
    const protocol = binding.slice(0, colon).trim();
    const identifier = binding.slice(colon + 1).trim();
    if (!IDENTITY_PROTOCOL.test(protocol) || identifier === "") return undefined;
    identities.push({ protocol, identifier });
  }
  return identities;
}

// ATT CHANGELOG: `twitter:` is the legacy name of `x:`.
function protocolAlias(protocol: string): string {
  return protocol === "twitter" ? "x" : protocol;
}

/** A nostr identifier as 64 lowercase hex, from an npub or hex form; undefined when it is neither. */
export function nostrPubkeyHex(identifier: string): string | undefined {
  const text = identifier.toLowerCase();
  if (/^[0-9a-f]{64}$/.test(text)) return text;
  try {
    const decoded = bech32.decode(text as `${string}1${string}`);
    const bytes = bech32.fromWords(decoded.words);
    return decoded.prefix === "npub" && bytes.length === 32 ? hex.encode(bytes) : undefined;
  } catch {
    return undefined;
  }
}

/** Discovery-time identity equality; identifiers are otherwise compared exactly, as signed. */
export function sameIdentity(a: Identity, b: Identity): boolean {
  const protocol = protocolAlias(a.protocol);
  if (protocol !== protocolAlias(b.protocol)) return false;
  if (a.identifier === b.identifier) return true;
  if (protocol === "nostr") {
    const left = nostrPubkeyHex(a.identifier);
    return left !== undefined && left === nostrPubkeyHex(b.identifier);
  }
  return false;
}
