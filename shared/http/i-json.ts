// I-JSON (RFC 7493), which RFC 8785 canonical JSON requires of its input, checked on a request body's text: no
// object names a member twice (at any depth; names compare after unescaping, so "a" and "\u0061" are one name), and
// every string is well-formed Unicode (no lone surrogate, which UTF-8 cannot carry). JSON.parse accepts both (it
// keeps the last duplicate), so a signed envelope could otherwise mean one thing to a verifier and another to whoever
// reads the stored bytes, or two different values could share one canonical form, one id and one signature.
// Hand-written: a small scanner over text that JSON.parse has already accepted, so it only needs to find strings.

export type IJsonViolation =
  | { ok: false; reason: "duplicate_json_key"; detail: string }
  | { ok: false; reason: "json_lone_surrogate"; detail: string };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the string holds no lone surrogate. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

interface Frame {
  names?: Set<string>; // objects only
  expectName: boolean;
}

/** The first I-JSON violation in `text` (which must already parse as JSON), or `{ ok: true }`. */
export function checkIJson(text: string): { ok: true } | IJsonViolation {
  const stack: Frame[] = [];
  // A body decoded from UTF-8 cannot hold a raw lone surrogate: then only strings with escapes need decoding and a
  // check of their own, and a string without one is read as the slice it is (or not at all, when it is no name).
  const rawWellFormed = isWellFormed(text);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const top = stack[stack.length - 1];
    if (ch === '"') {
      let end = i + 1;
      let escaped = false;
      while (end < text.length && text[end] !== '"') {
        if (text[end] === "\\") {
          escaped = true;
          end += 2;
        } else end += 1;
      }
      const isName = top?.names !== undefined && top.expectName;
      const decode = escaped || !rawWellFormed;
      const value = decode ? (JSON.parse(text.slice(i, end + 1)) as string) : isName ? text.slice(i + 1, end) : "";
      if (decode && !isWellFormed(value)) {
        return { ok: false, reason: "json_lone_surrogate", detail: "a string holds a lone UTF-16 surrogate" };
      }
      if (isName && top?.names) {
        if (top.names.has(value)) {
          return { ok: false, reason: "duplicate_json_key", detail: `the name ${JSON.stringify(value)} is repeated` };
        }
        top.names.add(value);
        top.expectName = false;
      }
      i = end;
    } else if (ch === "{") {
      stack.push({ names: new Set(), expectName: true });
    } else if (ch === "[") {
      stack.push({ expectName: false });
    } else if (ch === "}" || ch === "]") {
      stack.pop();
    } else if (ch === "," && top?.names) {
      top.expectName = true;
    }
  }
  return { ok: true };
}
