// Offline verification of a downloaded audit bundle (DECISIONS 16): the manifest's Ed25519 signature against the
// auth host's JWKS (by the manifest's kid, among the keys marked `oc_use: "audit"` only), the sha256 of every byte
// before the manifest, then every envelope's id and signature again with the project's own parsers. Pure given the
// JWKS; WebCrypto, so Node 20+ and Workers.
import { base64urlnopad } from "@scure/base";
import { type AuditFormat, type Manifest, manifestBytes, splitBundle } from "../../audit/bundle-format";
import { sha256Hex } from "../../crypto/digest";
import { parseStored } from "../../envelopes/parse-stored";

export type BundleFailure =
  | "not_a_bundle" // no signed manifest of the format found
  | "unknown_kid" // the manifest's kid is not in the JWKS
  | "wrong_key_use" // the manifest's kid names a JWKS key not marked `oc_use: "audit"` (e.g. a session key)
  | "bad_signature" // the manifest's signature does not verify
  | "digest_mismatch" // the bytes before the manifest are not the ones it names
  | "envelope_invalid" // an envelope fails to parse, hashes to another id, or its signature fails
  | "count_mismatch"; // the manifest's total is not the number of envelopes

export type BundleVerification =
  | { ok: true; manifest: Manifest; format: AuditFormat; checked: number }
  | { ok: false; reason: BundleFailure; detail: string };

/** A JWKS entry as read here: `oc_use` is the auth host's marker ("session" or "audit", signing-key.ts). */
interface JwksEntry {
  kid?: unknown;
  kty?: unknown;
  crv?: unknown;
  oc_use?: unknown;
}

/** One envelope as a bundle row gives it: its registry kind, its id and its JSON. */
export interface Row {
  kind: string;
  id: string;
  envelope: unknown;
}

/** The format of a bundle, from its first bytes (as the export writes them). */
export function detectFormat(text: string): AuditFormat {
  if (text.startsWith('{"project_id":')) return "json";
  if (text.startsWith("kind,id,envelope")) return "csv";
  return "ndjson";
}

function rows(format: AuditFormat, body: string): Row[] {
  if (format === "json") return (JSON.parse(`${body}]}`) as { envelopes: Row[] }).envelopes;
  if (format === "csv") {
    const out: Row[] = [];
    const re = /^([a-z]+),([0-9a-f]{64}),"((?:[^"]|"")*)"\r\n/gm;
    for (const m of body.matchAll(re)) {
      out.push({ kind: m[1] ?? "", id: m[2] ?? "", envelope: JSON.parse((m[3] ?? "").replaceAll('""', '"')) });
    }
    return out;
  }
  return body
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Row);
}

/**
 * Why an envelope fails, or undefined when it parses by its kind's parser, hashes to `row.id` and its signature
 * verifies: the per-envelope check of a bundle, and of each new entry of a log a monitor reads (kit/log/monitor.ts).
 */
export async function checkEnvelope(row: Row): Promise<string | undefined> {
  const read = await parseStored(row.kind, row.envelope);
  if (!read.ok) return read.detail;
  if (read.parsed.id !== row.id) return `the envelope hashes to ${read.parsed.id}`;
  const sig = read.verifySignature();
  return sig.ok ? undefined : (sig.detail ?? "signature does not verify");
}

/**
 * Verifies a bundle's text against a JWKS (`{keys:[…]}`, as served at /.well-known/jwks.json): only its keys marked
 * `oc_use: "audit"` may have signed the manifest; an unmarked key counts as a session key, as signing-key.ts reads it.
 */
export async function verifyBundle(
  text: string,
  jwks: { keys?: unknown },
  format: AuditFormat = detectFormat(text),
): Promise<BundleVerification> {
  const split = splitBundle(text, format);
  if (!split) return { ok: false, reason: "not_a_bundle", detail: `no signed ${format} manifest found` };
  const { manifest, signature } = split.trailer;
  const keys = Array.isArray(jwks.keys) ? (jwks.keys as JwksEntry[]) : [];
  const named = keys.filter((k) => k.kid === manifest.kid && k.kty === "OKP" && k.crv === "Ed25519");
  // The auth host's JWKS also holds its session keys: one of those must never vouch for a bundle (issue 26).
  const jwk = named.find((k) => k.oc_use === "audit");
  if (!jwk && named.length > 0) {
    const detail = `kid ${manifest.kid} is in the JWKS but not marked oc_use "audit"`;
    return { ok: false, reason: "wrong_key_use", detail };
  }
  if (!jwk) return { ok: false, reason: "unknown_kid", detail: `kid ${manifest.kid} is not in the JWKS` };
  let valid = false;
  try {
    const { kty, crv, x } = jwk as { kty: string; crv: string; x: string };
    const key = await crypto.subtle.importKey("jwk", { kty, crv, x }, { name: "Ed25519" }, false, ["verify"]);
    valid = await crypto.subtle.verify("Ed25519", key, base64urlnopad.decode(signature), manifestBytes(manifest));
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: "bad_signature", detail: "the manifest's signature does not verify" };
  const digest = await sha256Hex(split.body);
  if (digest !== manifest.sha256) {
    return { ok: false, reason: "digest_mismatch", detail: `the body hashes to ${digest}, not ${manifest.sha256}` };
  }
  let list: Row[];
  try {
    list = rows(format, split.body);
  } catch {
    return { ok: false, reason: "not_a_bundle", detail: "the rows are not the format's JSON" };
  }
  for (const row of list) {
    const problem = await checkEnvelope(row);
    if (problem) return { ok: false, reason: "envelope_invalid", detail: `${row.kind} ${row.id}: ${problem}` };
  }
  if (list.length !== manifest.total) {
    const detail = `the manifest counts ${manifest.total} envelopes, the bundle holds ${list.length}`;
    return { ok: false, reason: "count_mismatch", detail };
  }
  return { ok: true, manifest, format, checked: list.length };
}
