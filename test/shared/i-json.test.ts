// I-JSON on every JSON body (security review items 7 and 14): a name repeated in one object at any depth, and a lone
// surrogate in any string, are refused before any route reads the body; canonical JSON refuses lone surrogates too,
// and agrees byte for byte with an independent RFC 8785 implementation on well-formed input.
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalJson, type JsonValue } from "../../shared/envelopes/canonical-json";
import { checkIJson } from "../../shared/http/i-json";

describe("I-JSON check", () => {
  it.each([
    ['{"a":1,"a":2}', "top level"],
    ['{"x":{"b":1,"c":2,"b":3}}', "nested object"],
    ['[{"k":1},{"k":1,"k":2}]', "object inside an array"],
    ['{"a":1,"\\u0061":2}', "same name once escaped"],
    ['{"envelope":{"id":"x"},"envelope":{"id":"y"}}', "a second envelope member"],
  ])("attack: a repeated name is refused (%s, %s)", (text) => {
    expect(checkIJson(text)).toMatchObject({ ok: false, reason: "duplicate_json_key" });
  });

  it.each([
    ['{"a":"\\ud800x"}', "high surrogate in a value"],
    ['{"a":"x\\udc00"}', "low surrogate in a value"],
    ['{"\\ud800":1}', "lone surrogate in a name"],
    ['["\\udfff\\ud800"]', "reversed pair"],
  ])("attack: a lone surrogate is refused (%s, %s)", (text) => {
    expect(checkIJson(text)).toMatchObject({ ok: false, reason: "json_lone_surrogate" });
  });

  it("accepts the same name in sibling objects, escaped quotes, strings that look like names, and real pairs", () => {
    for (const text of [
      '{"a":{"k":1},"b":{"k":2}}',
      '[{"k":1},{"k":2}]',
      '{"a":"\\"b\\":1","b":2}',
      '{"smile":"\\ud83d\\ude00","s":"😀"}',
      '{"a":[1,{"a":2}],"b":"a"}',
    ]) {
      expect(checkIJson(text), text).toEqual({ ok: true });
    }
  });
});

describe("canonical JSON", () => {
  it("attack: refuses a lone surrogate instead of emitting it (two values, one canonical form)", () => {
    expect(() => canonicalJson({ a: "\ud800x" })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ "\udc00": 1 })).toThrow(CanonicalJsonError);
    expect(canonicalJson({ a: "\ud83d\ude00" })).toBe('{"a":"😀"}');
  });

  it("agrees with the independent canonicalize package (RFC 8785) on random well-formed JSON", () => {
    const json = fc.jsonValue({ maxDepth: 4 }).filter((v) => !JSON.stringify(v).includes("__proto__"));
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value as JsonValue)).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });
});
