// OC Agent scope grammar and canonical form (oc-wire-formats §3.8): `product:verb(constraint,…)`, parsed exactly as
// the reference parser does so that the same bytes get the same verdict everywhere.

export type ScopeOp = "=" | "!=" | "<" | "<=" | ">" | ">=" | "*";

export interface ScopeConstraint {
  key: string;
  op: ScopeOp;
  /** Unquoted value text; null for the wildcard. */
  value: string | null;
  quoted: boolean;
}

export interface Scope {
  product: string;
  verb: string;
  constraints: ScopeConstraint[];
}

export type ScopeParse = { ok: true; scope: Scope } | { ok: false; detail: string };
export type ScopeListParse = { ok: true; scopes: string[] } | { ok: false; detail: string };

const IDENT = /^[a-z][a-z0-9_]*$/;
const BARE_VALUE = /^[A-Za-z0-9_.:/@+-]+$/;
// `key=*`, and the legacy `key*` the reference parser still reads (always re-emitted as `key=*`).
const WILDCARD = /^([a-z][a-z0-9_]*)(?:=\*|\*)$/;
// Tried in this order, each at its first occurrence; the first with a valid key before it wins.
const OPERATORS = [">=", "<=", "!=", "=", ">", "<"] as const;

class GrammarError extends Error {}

export function parseScope(input: unknown): ScopeParse {
  try {
    return { ok: true, scope: parse(input) };
  } catch (err) {
    if (err instanceof GrammarError) return { ok: false, detail: err.message };
    throw err;
  }
}

function parse(input: unknown): Scope {
  if (typeof input !== "string" || input === "") throw new GrammarError("scope must be a non-empty string");
  if (/\s/.test(input)) throw new GrammarError(`scope contains whitespace: ${JSON.stringify(input)}`);
  const colon = input.indexOf(":");
  if (colon < 0) throw new GrammarError(`scope has no product:verb separator: ${input}`);
  const product = input.slice(0, colon);
  if (!IDENT.test(product)) throw new GrammarError(`invalid product: ${product}`);
  const rest = input.slice(colon + 1);
  const paren = rest.indexOf("(");
  const verb = paren < 0 ? rest : rest.slice(0, paren);
  if (paren >= 0 && !rest.endsWith(")")) throw new GrammarError(`constraint list must end with ")": ${input}`);
  if (!IDENT.test(verb)) throw new GrammarError(`invalid verb: ${verb}`);
  const inner = paren < 0 ? "" : rest.slice(paren + 1, -1);
  const constraints = inner === "" ? [] : splitConstraints(inner).map(parseConstraint);
  const keys = new Set<string>();
  for (const { key } of constraints) {
    if (keys.has(key)) throw new GrammarError(`duplicate constraint key: ${key}`);
    keys.add(key);
  }
  return { product, verb, constraints };
}

/** Commas split constraints only at paren depth 0 and outside quotes (a backslash escapes inside quotes). */
function splitConstraints(inner: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i];
    if (quoted) {
      if (ch === "\\") i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      pieces.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  pieces.push(inner.slice(start));
  return pieces;
}

function parseConstraint(piece: string): ScopeConstraint {
  if (piece === "") throw new GrammarError("empty constraint");
  const wildcard = WILDCARD.exec(piece);
  if (wildcard?.[1]) return { key: wildcard[1], op: "*", value: null, quoted: false };
  for (const op of OPERATORS) {
    const index = piece.indexOf(op);
    const key = piece.slice(0, Math.max(index, 0));
    if (index <= 0 || !IDENT.test(key)) continue;
    return { key, op, ...parseValue(piece.slice(index + op.length)) };
  }
  throw new GrammarError(`constraint has no operator: ${piece}`);
}

function parseValue(raw: string): { value: string; quoted: boolean } {
  if (raw === "") throw new GrammarError("constraint value is empty");
  if (!raw.startsWith('"')) {
    if (!BARE_VALUE.test(raw)) throw new GrammarError(`invalid bare value: ${raw}`);
    return { value: raw, quoted: false };
  }
  if (raw.length < 2 || !raw.endsWith('"')) throw new GrammarError(`unterminated quoted value: ${raw}`);
  let value = "";
  const last = raw.length - 1;
  for (let i = 1; i < last; i++) {
    const ch = raw[i] as string;
    // A backslash escapes the next character; as the last character inside the quotes it is kept as is.
    if (ch === "\\" && i + 1 < last) value += raw[++i];
    else if (ch === '"') throw new GrammarError(`unescaped quote in value: ${raw}`);
    else value += ch;
  }
  return { value, quoted: true };
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function serialise({ key, op, value, quoted }: ScopeConstraint): string {
  if (op === "*") return `${key}=*`;
  const text = value ?? "";
  return `${key}${op}${quoted ? `"${text.replace(/["\\]/g, "\\$&")}"` : text}`;
}

/** Constraints sorted by key, no parentheses when there are none, quoted values re-escaped, case untouched. */
export function canonicalScope(scope: Scope): string {
  const constraints = [...scope.constraints].sort((a, b) => byCodeUnits(a.key, b.key)).map(serialise);
  return `${scope.product}:${scope.verb}${constraints.length ? `(${constraints.join(",")})` : ""}`;
}

/** Each scope canonicalised, then the list sorted by code units: the `scopes:` line and the envelope array. */
export function canonicalizeScopes(scopes: readonly unknown[]): ScopeListParse {
  const out: string[] = [];
  for (const [index, raw] of scopes.entries()) {
    const parsed = parseScope(raw);
    if (!parsed.ok) return { ok: false, detail: `scopes[${index}]: ${parsed.detail}` };
    out.push(canonicalScope(parsed.scope));
  }
  return { ok: true, scopes: out.sort(byCodeUnits) };
}
