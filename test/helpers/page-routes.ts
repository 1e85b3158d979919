// The pages a worker can answer, read from its own router (so a new page is covered by every page test): each GET
// route whose path has no parameter or wildcard.
import type { Hono } from "hono";

// biome-ignore lint/suspicious/noExplicitAny: any worker's app, whatever its bindings.
export function getRoutes(app: Hono<any>): string[] {
  const paths = app.routes
    .filter((r) => r.method === "GET" && !r.path.includes(":") && !r.path.includes("*"))
    .map((r) => r.path);
  return [...new Set(paths)];
}

export const CSP_RULES = ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"];

/** The headers every HTML answer must carry; the CSP allows no inline script. */
export function htmlHeaderProblems(res: Response): string[] {
  const problems: string[] = [];
  const csp = res.headers.get("content-security-policy") ?? "";
  if (!csp) problems.push("no Content-Security-Policy");
  for (const rule of CSP_RULES) if (!csp.includes(rule)) problems.push(`CSP lacks ${rule}`);
  const script = /script-src ([^;]*)/.exec(csp)?.[1] ?? "";
  if (/unsafe-inline|unsafe-eval|\*/.test(script)) problems.push(`script-src too open: ${script}`);
  if (res.headers.get("x-content-type-options") !== "nosniff") problems.push("no nosniff");
  if (res.headers.get("x-frame-options") !== "DENY") problems.push("no X-Frame-Options DENY");
  if (!res.headers.get("referrer-policy")) problems.push("no Referrer-Policy");
  return problems;
}
