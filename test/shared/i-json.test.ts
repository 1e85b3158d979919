// I-JSON on every JSON body (security review items 7 and 14): a name repeated in one object at any depth, and a lone
// surrogate in any string, are refused before any route reads the body; canonical JSON refuses lone surrogates too,
// and agrees byte for byte with an independent RFC 8785 implementation on well-formed input.
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalJson, type JsonValue } from "../../shared/envelopes/canonical-json";
import { checkIJson, isWellFormed } from "../../shared/http/i-json";

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

describe("I-JSON check on text that did not come from UTF-8", () => {
  // The check reads strings without escapes as they stand when the whole text is well-formed (any body decoded from
  // UTF-8 is); a text holding a raw lone surrogate is decoded string by string, as before.
  it("attack: a raw lone surrogate is refused, in a value and in a name", () => {
    for (const text of ['{"a":"\ud800"}', '{"\udc00":1}', '["x\udbff"]']) {
      expect(checkIJson(text), escape(text)).toMatchObject({ ok: false, reason: "json_lone_surrogate" });
    }
  });

  it("accepts a pair whose halves are one raw and one escaped, and a raw pair beside a repeated raw name", () => {
    expect(checkIJson('{"a":"\ud83d\\ude00"}')).toEqual({ ok: true });
    expect(checkIJson('{"😀":1,"😀":2}')).toMatchObject({ ok: false, reason: "duplicate_json_key" });
  });

  it("agrees with decoding every string on random JSON texts, lone surrogates included", () => {
    const slow = (text: string) => {
      // The reference: every string decoded, each object's names collected.
      const names: Set<string>[] = [];
      const objects: boolean[] = [];
      let expectName = false;
      for (let i = 0; i < text.length; i++) {
        const ch = text[i];
        if (ch === '"') {
          let end = i + 1;
          while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
          const value = JSON.parse(text.slice(i, end + 1)) as string;
          if (!isWellFormed(value)) return "json_lone_surrogate";
          const own = names.at(-1);
          if (objects.at(-1) && expectName && own) {
            if (own.has(value)) return "duplicate_json_key";
            own.add(value);
            expectName = false;
          }
          i = end;
        } else if (ch === "{" || ch === "[") {
          objects.push(ch === "{");
          names.push(new Set());
          expectName = ch === "{";
        } else if (ch === "}" || ch === "]") {
          objects.pop();
          names.pop();
          expectName = false;
        } else if (ch === ",") expectName = objects.at(-1) === true;
      }
      return "ok";
    };
    const key = fc.constantFrom("a", "b", "\ud800", "\udc00", "😀", "\u0061");
    const leaf = fc.oneof(fc.string({ unit: "binary", maxLength: 6 }), key, fc.integer());
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, leaf, tie("object"), fc.array(tie("value"), { maxLength: 3 })),
      object: fc.array(fc.tuple(key, tie("value")), { maxLength: 4 }),
    }));
    // Objects written by hand, so a name can repeat; strings escaped by JSON.stringify or left raw at random.
    const render = (v: unknown, raw: boolean): string =>
      Array.isArray(v)
        ? v.length > 0 &&
          Array.isArray(v[0]) &&
          v.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === "string")
          ? `{${(v as [string, unknown][]).map(([k, x]) => `${quote(k, raw)}:${render(x, raw)}`).join(",")}}`
          : `[${v.map((x) => render(x, raw)).join(",")}]`
        : typeof v === "string"
          ? quote(v, raw)
          : JSON.stringify(v);
    const escapeRaw = (ch: string) =>
      ch === '"' || ch === "\\" || ch.charCodeAt(0) < 0x20 ? JSON.stringify(ch).slice(1, -1) : ch;
    const quote = (text: string, raw: boolean) =>
      raw ? `"${Array.from(text, escapeRaw).join("")}"` : JSON.stringify(text);
    fc.assert(
      fc.property(json.value, fc.boolean(), (value, raw) => {
        const text = render(value, raw);
        const got = checkIJson(text);
        expect(got.ok ? "ok" : got.reason, escape(text)).toBe(slow(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("canonical JSON", () => {
  it("attack: refuses a lone surrogate instead of emitting it (two values, one canonical form)", () => {
    expect(() => canonicalJson({ a: "\ud800x" })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ "\udc00": 1 })).toThrow(CanonicalJsonError);
    expect(canonicalJson({ a: "\ud83d\ude00" })).toBe('{"a":"😀"}');
  });

  it("escapes every character as RFC 8785 does: the short forms, \\u00xx in lower case for other controls", () => {
    const specials = ["\u007f", "\u0080", "\u2028", "\u2029", "\ufeff", "\uffff", "\ud83d\ude00", "é"];
    const units = [...Array.from({ length: 0x80 }, (_, code) => String.fromCharCode(code)), ...specials];
    for (const unit of units) {
      const value = { [`k${unit}`]: [`a${unit}b`, unit] };
      expect(canonicalJson(value)).toBe(canonicalize(value));
    }
    expect(canonicalJson('\b\f\n\r\t"\\\u0001\u001f/')).toBe('"\\b\\f\\n\\r\\t\\"\\\\\\u0001\\u001f/"');
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
