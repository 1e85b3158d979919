// Accessibility as the browser tests check it: axe-core (the engine behind most accessibility checkers) run in the
// page as it is shown, against WCAG 2.1 A and AA. Its script is handed to the page through the DevTools protocol
// (page.evaluate), not as a <script> tag, so the pages' own Content-Security-Policy stays exactly as served.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** What a failed check says: axe's rule, its impact, and where (the first few elements it names). */
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The impacts that fail a test: a person cannot use the page (critical) or is seriously hindered (serious). */
const FAILING = new Set(["serious", "critical"]);

/** The page's serious and critical WCAG 2.1 AA violations, one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] })
      .then((r) => r.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map((n) => ({ target: n.target })) })))`,
  )) as Violation[];
  return violations
    .filter((v) => v.impact !== null && FAILING.has(v.impact))
    .map((v) => {
      const where = v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(" "))
        .join(", ");
      return `axe ${v.impact} ${v.id}: ${v.help} (${where}${v.nodes.length > 3 ? `, +${v.nodes.length - 3}` : ""})`;
    });
}
