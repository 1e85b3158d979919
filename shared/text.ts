// Text that people read as a name or that reaches a mail header: one set of rules, used by every schema and by the
// mail adapter. A line break in a header value starts a new header (CR/LF injection); a lone surrogate cannot be
// encoded; a bidi override or isolate makes a name read as something else (`evil<U+202E>moc.elppa`).
import { z } from "@hono/zod-openapi";
import { isWellFormed } from "./http/i-json";

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** Bidi embeddings, overrides, isolates and marks (Unicode TR 9): they reorder what the reader sees. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Why a header value is refused, or undefined when it may be sent. */
export function headerValueProblem(value: string): string | undefined {
  if (CONTROL.test(value)) return "must not hold line breaks or other control characters";
  if (!isWellFormed(value)) return "must be well-formed Unicode";
  return undefined;
}

/** Why a display name is refused, or undefined when it may be shown. */
export function displayTextProblem(value: string): string | undefined {
  return headerValueProblem(value) ?? (BIDI.test(value) ? "must not hold bidi control characters" : undefined);
}

/** A one-line name people read: trimmed, 1..max characters, no control, bidi or lone-surrogate characters. */
export const displayText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .superRefine((value, ctx) => {
      const problem = displayTextProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });
