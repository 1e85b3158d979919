// The reasons docs/errors.md promises, read from the page's own tables (a test compares what a worker serves with
// this, never with the table it serves from).

/** The rows `| \`reason\` | status | … |` of the section that starts at `heading`, up to the next heading. */
function rows(page: string, heading: string): Map<string, number> {
  const start = page.indexOf(heading);
  if (start < 0) throw new Error(`docs/errors.md has no section "${heading}"`);
  const end = page.indexOf("\n## ", start + heading.length);
  const section = page.slice(start, end < 0 ? undefined : end);
  const reasons = new Map<string, number>();
  for (const match of section.matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\|/gm))
    reasons.set(match[1] as string, Number(match[2]));
  return reasons;
}

/** The registry's compatibility reasons: reason → status, in the page's order. */
export const compatibilityReasons = (page: string) => rows(page, "## The registry's compatibility reasons");

/** The refusals that shed load (a 503 with Retry-After): reason → status. */
export const overloadReasons = (page: string) => rows(page, "## Overload");

/** The auth host's session errors: reason → status. */
export const authHostReasons = (page: string) => rows(page, "## The auth host's session errors");
