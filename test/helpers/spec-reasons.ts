// The reasons of service-spec.md's fleet error table, read from the spec's own text (a test compares what a worker
// serves with this, never with the table it serves from).

/** Splits "a (403), b (400: x, y), c" on the commas outside parentheses. */
function splitTopLevel(cell: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of cell) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  return [...parts, current];
}

/** Reason → status, in the spec table's order. */
export function specReasons(spec: string): Map<string, number> {
  const table = spec.slice(spec.indexOf("| Class | reason (HTTP) |"), spec.indexOf("These are 70 reasons."));
  const reasons = new Map<string, number>();
  for (const row of table.split("\n").slice(2)) {
    const [, klass = "", cell = ""] = row.split("|").map((c) => c.trim());
    const classStatus = /\((\d{3})\)/.exec(klass)?.[1];
    for (const entry of splitTopLevel(cell)) {
      const match = /^([a-z_]+)(?: \((\d{3}))?/.exec(entry.trim());
      if (match) reasons.set(match[1] as string, Number(match[2] ?? classStatus));
    }
  }
  return reasons;
}

/** The auth host's error table of the spec ("Auth host errors"): reason → status, undefined where none is named. */
export function specAuthHostReasons(spec: string): Map<string, number | undefined> {
  const section = spec.slice(spec.indexOf("### Auth host errors"), spec.indexOf("### Verification API codes"));
  const reasons = new Map<string, number | undefined>();
  for (const match of section.matchAll(/\| (\d{3}) ([a-z_]+) \|/g)) reasons.set(match[2] as string, Number(match[1]));
  for (const match of section.matchAll(/reason: '([a-z_]+)'/g)) reasons.set(match[1] as string, undefined);
  return reasons;
}
