// JSON shape checks for the envelope parsers: field presence and JSON types only (value grammar is canonical.ts).
// Sub-objects are closed (their unknown keys are unsigned data); the top level is open (PLG SPEC §3.7).

type Leaf = "string" | "number" | "string|null";
export type Rule = Leaf | { shape: Shape; nullable?: boolean };
/** Key → rule; a key ending in `?` may be absent. */
export type Shape = Record<string, Rule>;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function leafProblem(value: unknown, rule: Leaf, path: string): string | undefined {
  if (rule === "string|null")
    return value === null || typeof value === "string" ? undefined : `${path}: string or null`;
  return typeof value === rule ? undefined : `${path}: expected a ${rule}`;
}

/** First shape problem as `path: what`, or undefined. `open` lets unknown keys through (top level only). */
export function shapeProblem(value: unknown, shape: Shape, path = "", open = false): string | undefined {
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (!isRecord(value)) return `${path || "(root)"}: expected an object`;
  const known = new Set<string>();
  for (const [spec, rule] of Object.entries(shape)) {
    const optional = spec.endsWith("?");
    const key = optional ? spec.slice(0, -1) : spec;
    known.add(key);
    if (!(key in value)) {
      if (optional) continue;
      return `${at(key)}: required`;
    }
    const field = value[key];
    const problem =
      typeof rule === "string"
        ? leafProblem(field, rule, at(key))
        : rule.nullable && field === null
          ? undefined
          : shapeProblem(field, rule.shape, at(key));
    if (problem) return problem;
  }
  if (!open) {
    const extra = Object.keys(value).find((key) => !known.has(key));
    if (extra !== undefined) return `${at(extra)}: unknown field`;
  }
  return undefined;
}

export const SIG_SHAPE: Shape = { alg: "string", pubkey: "string", value: "string" };
