// The sub-scope relation (oc-wire-formats §3.9) that decides whether an exercised or sub-delegated scope stays
// inside a grant, and the optional registry check of §3.8 (strict or permissive).
import { parseScope, type Scope, type ScopeConstraint } from "./scope";

/** Keys whose values compare as integers under <, <=, >, >=. */
export const NUMERIC_SCOPE_KEYS: ReadonlySet<string> = new Set([
  "max_bytes",
  "max_bytes_per_msg",
  "max_msgs",
  "max_bytes_out",
  "max_rps",
  "max_sats",
  "max_fee_sats",
  "max_invocations",
  "kind",
]);

export const REGISTERED_SCOPES: Readonly<Record<string, readonly string[]>> = {
  "lock:seal": ["recipient", "mime", "max_bytes"],
  "lock:chat": ["recipient", "max_bytes_per_msg", "max_msgs"],
  "stamp:sign": ["mime", "max_bytes", "content_hash_prefix"],
  "vote:cast": ["poll_id", "choice"],
  "nostr:publish": ["kind", "relay", "max_bytes"],
  "http:request": ["origin", "method", "max_rps", "max_bytes_out"],
  "ln:send": ["max_sats", "node", "max_fee_sats"],
  "mcp:invoke": ["server", "tool", "max_invocations"],
};

function toScope(value: Scope | string): Scope | null {
  if (typeof value !== "string") return value;
  const parsed = parseScope(value);
  return parsed.ok ? parsed.scope : null;
}

interface Range {
  lo: number;
  hi: number;
}

// Decimal integers only: Number() would also read "1e3", "0x10" or "" and give different verdicts.
function range({ op, value }: ScopeConstraint): Range | null {
  if (value === null || !/^-?\d+$/.test(value)) return null;
  const n = Number(value);
  if (!Number.isSafeInteger(n)) return null;
  if (op === "=") return { lo: n, hi: n };
  if (op === "<") return { lo: -Infinity, hi: n - 1 };
  if (op === "<=") return { lo: -Infinity, hi: n };
  if (op === ">") return { lo: n + 1, hi: Infinity };
  if (op === ">=") return { lo: n, hi: Infinity };
  return null;
}

function admits(granted: ScopeConstraint, exercised: ScopeConstraint | undefined): boolean {
  if (granted.op === "*") return true;
  if (!exercised) return false;
  if (granted.op === "=") return exercised.op === "=" && exercised.value === granted.value;
  if (granted.op === "!=") {
    return (
      (exercised.op === "=" && exercised.value !== granted.value) ||
      (exercised.op === "!=" && exercised.value === granted.value)
    );
  }
  if (!NUMERIC_SCOPE_KEYS.has(granted.key)) return false;
  const outer = range(granted);
  const inner = range(exercised);
  return outer !== null && inner !== null && outer.lo <= inner.lo && inner.hi <= outer.hi;
}

/** exercised ⊑ granted: same product and verb, and every granted constraint admits the exercised one. */
export function isSubScope(exercised: Scope | string, granted: Scope | string): boolean {
  const ex = toScope(exercised);
  const gr = toScope(granted);
  if (!ex || !gr || ex.product !== gr.product || ex.verb !== gr.verb) return false;
  const byKey = new Map(ex.constraints.map((c) => [c.key, c] as const));
  return gr.constraints.every((constraint) => admits(constraint, byKey.get(constraint.key)));
}

/** An action or sub-delegated scope passes if it is a sub-scope of at least one granted scope. */
export function isGrantedBy(exercised: Scope | string, grants: readonly (Scope | string)[]): boolean {
  return grants.some((granted) => isSubScope(exercised, granted));
}

export type RegistryMode = "strict" | "permissive";

/**
 * Strict: unknown product:verb or unregistered key fails. Permissive: unknown scopes pass and unknown keys are
 * ignored. The registry deliberately does not run at registration (see docs/conformance.md).
 */
export function checkScopeRegistry(scope: Scope, mode: RegistryMode): { ok: true } | { ok: false; detail: string } {
  if (mode === "permissive") return { ok: true };
  const name = `${scope.product}:${scope.verb}`;
  const keys = REGISTERED_SCOPES[name];
  if (!keys) return { ok: false, detail: `unregistered scope ${name}` };
  const unknown = scope.constraints.find((c) => !keys.includes(c.key));
  return unknown ? { ok: false, detail: `unregistered key ${unknown.key} for ${name}` } : { ok: true };
}
