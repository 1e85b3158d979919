// The signed audit bundle (DECISIONS 16): envelope lines exactly as registered, then one manifest that names the
// sha256 of every byte before it and is signed with the service's Ed25519 key. Verifiable offline with the JWKS
// (scripts/verify-bundle.mjs); pure, so the export and the verifier share it.
import { base64urlnopad } from "@scure/base";
import { canonicalJson, type JsonValue } from "../envelopes/canonical-json";

export const BUNDLE_FORMAT = "oc-audit-bundle/1";
export const AUDIT_FORMATS = ["ndjson", "json", "csv"] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

/** Replay order (service-spec rule 13): sub-delegations follow the delegations they narrow. */
export const REPLAY_ORDER = [
  "delegation",
  "subdelegation",
  "revocation",
  "action",
  "pledge",
  "outcome",
  "abandonment",
] as const;
export type EnvelopeKind = (typeof REPLAY_ORDER)[number];

export interface Manifest {
  format: typeof BUNDLE_FORMAT;
  bundle_id: string;
  project_id: string;
  generated_at: string;
  export_format: AuditFormat;
  counts: Record<EnvelopeKind, number>;
  total: number;
  sha256: string;
  kid: string;
  alg: "EdDSA";
}

export interface BundleRow {
  kind: string;
  id: string;
  body: string;
}

const csvQuote = (value: string) => `"${value.replaceAll('"', '""')}"`;

/** The bytes that open the bundle, before any row. */
export function bundleHead(format: AuditFormat, projectId: string): string {
  if (format === "json") return `{"project_id":${JSON.stringify(projectId)},"envelopes":[`;
  if (format === "csv") return "kind,id,envelope\r\n";
  return "";
}

/**
 * An envelope's bytes on one line. In valid JSON a CR or LF can only be insignificant whitespace (inside strings
 * they must be escaped), so turning each into a space keeps the same JSON value, the same length and every id.
 */
const oneLine = (json: string) => json.replace(/[\r\n]/g, " ");

/**
 * One row; `first` matters only to the JSON array's commas. json and csv embed the envelope bytes unchanged; ndjson
 * needs one record per line, so a pretty-printed envelope's line breaks become spaces there (and only there).
 */
export function bundleRow(format: AuditFormat, row: BundleRow, first: boolean): string {
  if (format === "json")
    return `${first ? "" : ","}{"kind":${JSON.stringify(row.kind)},"id":"${row.id}","envelope":${row.body}}`;
  if (format === "csv") return `${row.kind},${row.id},${csvQuote(row.body)}\r\n`;
  return `{"kind":${JSON.stringify(row.kind)},"id":"${row.id}","envelope":${oneLine(row.body)}}\n`;
}

/** The trailer: the manifest and its signature (base64url Ed25519 over the manifest's canonical JSON). */
export function bundleTail(format: AuditFormat, manifest: Manifest, signature: string): string {
  const signed = `{"manifest":${canonicalJson(manifest as unknown as JsonValue)},"signature":"${signature}"}`;
  if (format === "json") return `],${signed.slice(1, -1)}}\n`;
  if (format === "csv") return `# ${signed}\r\n`;
  return `${signed}\n`;
}

/** The bytes a signature's message is built from. */
export function manifestBytes(manifest: Manifest): Uint8Array {
  return new TextEncoder().encode(canonicalJson(manifest as unknown as JsonValue));
}

export function encodeSignature(bytes: Uint8Array): string {
  return base64urlnopad.encode(bytes);
}

/**
 * Splits a served bundle into the digested part and its trailer (the inverse of the writers above), for the
 * verifier. Returns undefined when the text is not a bundle of the given format.
 */
export function splitBundle(
  text: string,
  format: AuditFormat,
): { body: string; trailer: { manifest: Manifest; signature: string } } | undefined {
  const marker = format === "json" ? '],"manifest":' : format === "csv" ? "# {" : '{"manifest":';
  const at = text.lastIndexOf(marker);
  if (at < 0) return undefined;
  const body = text.slice(0, at);
  const trailerText =
    format === "json"
      ? `{${text
          .slice(at + 2)
          .trim()
          .slice(0, -1)}}`
      : text.slice(at + (format === "csv" ? 2 : 0)).trim();
  try {
    return { body, trailer: JSON.parse(trailerText) as { manifest: Manifest; signature: string } };
  } catch {
    return undefined;
  }
}
