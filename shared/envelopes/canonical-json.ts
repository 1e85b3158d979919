// RFC 8785 canonical JSON as OC envelopes use it (oc-wire-formats §3.6): keys sorted by UTF-16 code units at every
// level, no whitespace, integers in plain decimal, minimal string escapes, undefined members omitted.
// "Canonical bytes" of an envelope are this text plus one final LF.

import { isWellFormed } from "../http/i-json";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue | undefined };

export class CanonicalJsonError extends Error {
  override name = "CanonicalJsonError";
}

function canonicalString(value: string): string {
  // RFC 8785 takes I-JSON: a lone surrogate would be emitted raw and become U+FFFD when encoded, so two different
  // values would share one canonical form, one id and one signature.
  if (!isWellFormed(value)) throw new CanonicalJsonError("strings must be well-formed Unicode (no lone surrogate)");
  // RFC 8785 §3.2.2.2 serialises strings as ECMAScript's JSON.stringify does (the short escapes, \u00xx in lower
  // case for the other controls, everything else as is); with lone surrogates refused above, the two agree exactly.
  // One native call instead of a string built a character at a time: that loop was an eighth of what a registration
  // allocated (docs/scale.md, "The latency tail").
  return JSON.stringify(value);
}

function canonicalNumber(value: number): string {
  if (!Number.isFinite(value)) throw new CanonicalJsonError("numbers must be finite");
  if (Object.is(value, -0)) return "0";
  // ECMAScript's shortest round-trip form is RFC 8785's number serialisation.
  return String(value);
}

/** True when the keys are in UTF-16 code unit order, the order `sort()` gives strings. */
function inOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if ((keys[i - 1] as string) > (keys[i] as string)) return false;
  return true;
}

export function canonicalJson(value: JsonValue | undefined): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return canonicalNumber(value);
  if (typeof value === "string") return canonicalString(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      out += `${i === 0 ? "" : ","}${canonicalJson(item === undefined ? null : item)}`;
    }
    return `${out}]`;
  }
  if (typeof value === "object") {
    const keys = Object.keys(value);
    // Signed envelopes mostly arrive canonical already: their keys need no sort (nor the copy a sort makes).
    if (!inOrder(keys)) keys.sort();
    let out = "";
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const member = value[key];
      if (member !== undefined) out += `${out === "" ? "" : ","}${canonicalString(key)}:${canonicalJson(member)}`;
    }
    return `{${out}}`;
  }
  throw new CanonicalJsonError(`cannot canonicalise a ${typeof value}`);
}

/** The envelope's canonical bytes: canonical JSON and one final LF. */
export function canonicalBytes(value: JsonValue): string {
  return `${canonicalJson(value)}\n`;
}
