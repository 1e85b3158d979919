// Strict parser of the OC Attest canonical message (SPEC §7.1 step 1, which the SDK skips) and the typed
// views of the registered extensions. Any failure is one `detail` string; the verifier maps it to decode_error.
import {
  ADDRESS_TEXT,
  ATTEST_ACK,
  ATTEST_HEADER,
  ATTEST_PURPOSE,
  CORE_KEYS,
  EXTENSION_KEY,
  EXTENSION_VALUE,
  NONCE,
  parseUtcTimestamp,
} from "./canonical";
import { type Identity, parseIdentities } from "./identities";

export type AttestNetwork = "mainnet" | "testnet" | "signet";
const NETWORKS: ReadonlySet<string> = new Set<AttestNetwork>(["mainnet", "testnet", "signet"]);

export interface ParsedAttestation {
  address: string;
  identities: Identity[];
  nonce: string;
  /** As written in the message. */
  issuedAt: string;
  issuedAtMs: number;
  /** Every extension line, unknown keys included. */
  extensions: Record<string, string>;
  /** `network:` extension; mainnet when absent. */
  network: AttestNetwork;
  /** `bond:` in sats, only when it is a positive base-10 integer (otherwise ignored, as the SDK does). */
  bond?: bigint;
  aud?: string;
  /** `expires:` as epoch ms. */
  expires?: number;
}

export type ParseAttestationResult = { ok: true; message: ParsedAttestation } | { ok: false; detail: string };

const CORE_LINE_COUNT = 7;

function fail(detail: string): ParseAttestationResult {
  return { ok: false, detail };
}

/** The value after `<name>: `, or undefined when the line has another name or more than one space. */
function coreValue(line: string, name: string): string | undefined {
  const prefix = `${name}: `;
  if (!line.startsWith(prefix)) return undefined;
  const value = line.slice(prefix.length);
  return value.startsWith(" ") ? undefined : value;
}

function parseExtensions(lines: readonly string[]): Record<string, string> | string {
  const extensions: Record<string, string> = {};
  let previous = "";
  for (const line of lines) {
    const colon = line.indexOf(":");
    const key = colon < 0 ? "" : line.slice(0, colon);
    if (!EXTENSION_KEY.test(key))
      return `extension line ${JSON.stringify(line)}: key must be lowercase letters or underscores`;
    if (CORE_KEYS.has(key)) return `extension ${key}: repeats a core line name`;
    if (line[colon + 1] !== " ") return `extension ${key}: one space must follow the colon`;
    const value = line.slice(colon + 2);
    if (!EXTENSION_VALUE.test(value)) return `extension ${key}: empty, control character or extra space`;
    // Strictly ascending: unsorted keys and repeated keys are both non-canonical.
    if (key <= previous) return `extension ${key}: keys must be sorted and unique`;
    previous = key;
    extensions[key] = value;
  }
  return extensions;
}

export function parseAttestationMessage(msg: string): ParseAttestationResult {
  if (typeof msg !== "string") return fail("message is not a string");
  if (!msg.endsWith("\n") || msg.endsWith("\n\n")) return fail("message must end with exactly one LF");
  if (msg.includes("\r")) return fail("message contains CR (lines end in LF only)");
  const lines = msg.slice(0, -1).split("\n");
  if (lines.length < CORE_LINE_COUNT) return fail("message has fewer than seven core lines");
  const [header, identitiesLine, addressLine, purpose, nonceLine, issuedLine, ack] = lines as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (header !== ATTEST_HEADER) return fail("line 1 must be exactly 'orangecheck'");
  const identitiesValue = coreValue(identitiesLine, "identities");
  if (identitiesValue === undefined) return fail("line 2 must be 'identities: <list>'");
  const identities = parseIdentities(identitiesValue);
  if (!identities) return fail("identities: malformed binding or longer than 512 bytes");
  const address = coreValue(addressLine, "address");
  if (address === undefined || !ADDRESS_TEXT.test(address)) return fail("line 3 must be 'address: <address>'");
  if (purpose !== ATTEST_PURPOSE) return fail("line 4 must be the purpose literal");
  const nonce = coreValue(nonceLine, "nonce");
  if (nonce === undefined || !NONCE.test(nonce)) return fail("line 5 must be 'nonce: <32 lowercase hex>'");
  const issuedAt = coreValue(issuedLine, "issued_at");
  const issuedAtMs = issuedAt === undefined ? undefined : parseUtcTimestamp(issuedAt);
  if (issuedAt === undefined || issuedAtMs === undefined) return fail("line 6 must be 'issued_at: <RFC 3339 UTC>'");
  if (ack !== ATTEST_ACK) return fail("line 7 must be the ack literal");

  const extensions = parseExtensions(lines.slice(CORE_LINE_COUNT));
  if (typeof extensions === "string") return fail(extensions);
  const network = extensions.network ?? "mainnet";
  if (!NETWORKS.has(network)) return fail("network: must be mainnet, testnet or signet");
  let expires: number | undefined;
  if (extensions.expires !== undefined) {
    // Fail closed: an unreadable expiry must not turn into an attestation that never lapses.
    expires = parseUtcTimestamp(extensions.expires);
    if (expires === undefined) return fail("expires: must be an RFC 3339 UTC timestamp");
  }
  const bondText = extensions.bond;
  const bond = bondText !== undefined && /^[0-9]+$/.test(bondText) ? BigInt(bondText) : undefined;

  const message: ParsedAttestation = {
    address,
    identities,
    nonce,
    issuedAt,
    issuedAtMs,
    extensions,
    network: network as AttestNetwork,
  };
  if (bond !== undefined && bond > 0n) message.bond = bond;
  if (extensions.aud !== undefined) message.aud = extensions.aud;
  if (expires !== undefined) message.expires = expires;
  return { ok: true, message };
}
