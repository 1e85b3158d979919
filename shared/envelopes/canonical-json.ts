// RFC 8785 canonical JSON as OC envelopes use it (oc-wire-formats §3.6): keys sorted by UTF-16 code units at every
// level, no whitespace, integers in plain decimal, minimal string escapes, undefined members omitted.
// "Canonical bytes" of an envelope are this text plus one final LF.

import { isWellFormed } from "../http/i-json";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue | undefined };

export class CanonicalJsonError extends Error {
  override name = "CanonicalJsonError";
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

function canonicalString(value: string): string {
  // RFC 8785 takes I-JSON: a lone surrogate would be emitted raw and become U+FFFD when encoded, so two different
  // values would share one canonical form, one id and one signature.
  if (!isWellFormed(value)) throw new CanonicalJsonError("strings must be well-formed Unicode (no lone surrogate)");
  let out = '"';
  for (const ch of value) {
    const short = SHORT_ESCAPES[ch];
    const code = ch.charCodeAt(0);
    if (short) out += short;
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

function canonicalNumber(value: number): string {
  if (!Number.isFinite(value)) throw new CanonicalJsonError("numbers must be finite");
  if (Object.is(value, -0)) return "0";
  // ECMAScript's shortest round-trip form is RFC 8785's number serialisation.
  return String(value);
}

export function canonicalJson(value: JsonValue | undefined): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return canonicalNumber(value);
  if (typeof value === "string") return canonicalString(value);
  if (Array.isArray(value))
    return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(",")}]`;
  if (typeof value === "object") {
    const members = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${canonicalString(key)}:${canonicalJson(value[key])}`);
    return `{${members.join(",")}}`;
  }
  throw new CanonicalJsonError(`cannot canonicalise a ${typeof value}`);
}

/** The envelope's canonical bytes: canonical JSON and one final LF. */
export function canonicalBytes(value: JsonValue): string {
  return `${canonicalJson(value)}\n`;
}
