// fast-check generators for the fuzz suite: values built from each wire format's grammar (so acceptance paths run,
// not only refusals), and mutations of valid values (one field replaced, dropped or added; one splice of text).
import fc from "fast-check";

export const hex = (bytes: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
export const nonce = hex(16);
export const hex64 = hex(32);
/** Opaque address text as the shape checks accept it (base58/bech32 characters). */
export const addressText = fc.stringMatching(/^[A-Za-z0-9]{14,62}$/);

// 1970-2199: the instants the services write; the parsers also see any 4-digit year through the garbage inputs.
const MIN_MS = 0;
const MAX_MS = Date.UTC(2199, 11, 31, 23, 59, 59);
export const epochMs = fc.integer({ min: MIN_MS, max: MAX_MS });
/** `YYYY-MM-DDTHH:MM:SSZ` */
export const isoSecondsText = epochMs.map((ms) =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z"),
);
/** RFC 3339 UTC with an optional fraction of 1-9 digits. */
export const isoUtcText = fc
  .tuple(isoSecondsText, fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }))
  .map(([seconds, fraction]) => (fraction === undefined ? seconds : seconds.replace("Z", `.${fraction}Z`)));

/** Strings of every kind: ASCII, full Unicode (lone surrogates included), control characters, line breaks. */
export const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom("\n", "\r", "\t", " ", ":", ",", '"', "\\", "{", "}", "(", ")", "=", "a", "0") }),
);

/** Replaces one character range of `text` with `insert`: near-miss inputs that reach the parser's later checks. */
export function splice(text: string, at: number, remove: number, insert: string): string {
  const start = at % (text.length + 1);
  return text.slice(0, start) + insert + text.slice(start + (remove % 4));
}

export const spliced = (valid: fc.Arbitrary<string>) =>
  fc.tuple(valid, fc.nat(), fc.nat(), anyText).map(([text, at, remove, insert]) => splice(text, at, remove, insert));

type Json = unknown;

/** Every path to a member or element of a JSON value (the root excluded). */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...prefix, i], ...paths(item, [...prefix, i])]);
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...paths(item, [...prefix, key])]);
  }
  return [];
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export type Mutation = "replace" | "delete" | "add";

/** `value` with one member replaced by `junk`, deleted, or a sibling `extraKey: junk` added. */
export function mutate(value: Json, pick: number, how: Mutation, junk: Json, extraKey: string): Json {
  const all = paths(value);
  const copy = clone(value);
  if (all.length === 0) return junk;
  const path = all[pick % all.length] as (string | number)[];
  const last = path[path.length - 1] as string | number;
  let parent = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  if (how === "replace") parent[last] = junk;
  else if (how === "delete") {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (!Array.isArray(parent)) parent[extraKey] = junk;
  else parent.push(junk);
  return copy;
}

export const junkJson: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  anyText,
  fc.constantFrom(null, 0, -1, 1e21, 2 ** 53, 1.5, true, "", [], {}, "null", "x".repeat(70_000)),
);

/** Valid values of `valid`, each with one mutation. */
export const mutated = (valid: fc.Arbitrary<Json>) =>
  fc
    .tuple(
      valid,
      fc.nat(),
      fc.constantFrom<Mutation>("replace", "delete", "add"),
      junkJson,
      fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "constructor", "v", "id", "sig")),
    )
    .map(([value, pick, how, junk, key]) => mutate(value, pick, how, junk, key));

const ident = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);
const constraint = fc.oneof(
  fc
    .tuple(ident, fc.constantFrom("=", "!=", "<", "<=", ">", ">="), fc.stringMatching(/^[A-Za-z0-9_.:/@+-]{1,12}$/))
    .map(([k, op, v]) => `${k}${op}${v}`),
  fc
    .tuple(ident, fc.constantFrom("=", "!=", "<"), fc.stringMatching(/^[!-~]{0,12}$/))
    .map(([k, op, v]) => `${k}${op}"${v.replace(/["\\]/g, "\\$&")}"`),
  ident.map((k) => `${k}=*`),
);
/** An OC Agent scope `product:verb(constraint,…)` (§3.8), constraints unsorted, keys unique. */
export const scopeText = fc
  .tuple(ident, ident, fc.uniqueArray(constraint, { maxLength: 4, selector: (c) => /^[a-z0-9_]+/.exec(c)?.[0] }))
  .map(([p, v, cs]) => (cs.length ? `${p}:${v}(${cs.join(",")})` : `${p}:${v}`));
