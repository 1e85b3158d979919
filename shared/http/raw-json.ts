// The exact bytes of one member of a JSON object, as the client sent them: registration stores the envelope as
// received (DECISIONS 2), never a re-serialisation. The text must already have parsed as JSON.

/** Index just past the JSON value starting at `start` (strings, objects, arrays, literals, numbers). */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let i = start;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (depth === 0) return i + 1;
    } else if (ch === "{" || ch === "[") {
      depth++;
    } else if (depth === 0 && /[\s,}\]]/.test(ch ?? "")) {
      return i; // end of a number or literal
    } else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return i;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i] ?? "")) i++;
  return i;
}

/**
 * The raw text of `key` in the top-level object `text`, or undefined when absent. A repeated key yields its last
 * occurrence, the one JSON.parse (and so the validator) reads: the first would store bytes nobody checked.
 */
export function rawMember(text: string, key: string): string | undefined {
  let found: string | undefined;
  let i = skipSpace(text, 0);
  if (text[i] !== "{") return undefined;
  i = skipSpace(text, i + 1);
  while (i < text.length && text[i] !== "}") {
    const keyEnd = valueEnd(text, i);
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    i = skipSpace(text, i + 1); // past ':'
    const end = valueEnd(text, i);
    if (name === key) found = text.slice(i, end);
    i = skipSpace(text, end);
    if (text[i] === ",") i = skipSpace(text, i + 1);
  }
  return found;
}
