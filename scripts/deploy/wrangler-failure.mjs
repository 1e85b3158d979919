// What a failed wrangler command said, reduced to what an operator acts on (issue 45): wrangler prints a Cloudflare
// API error over several lines (`✘ [ERROR] A request to the Cloudflare API (/accounts/…/workers/scripts/auth)
// failed.`, then the reason, `  Authentication error [code: 10000]`, then a hint paragraph and its `whoami`), and its
// last line of error is the least useful of them. Pure: the text in, the reason, headline and hint out.

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ESC of a terminal colour code is what is removed.
const stripColour = (line) => line.replace(/\x1b\[[0-9;]*m/g, "");
/** A line of a box wrangler draws around a table: nothing but its frame. */
const frameOnly = (line) => /^[│└┌├┬┴┼┤┐┘─╭╰\s]*$/.test(line);
/** The emoji wrangler opens a hint with, and the space after it. */
const leadingEmoji = (line) => line.replace(/^(?:\p{Extended_Pictographic}|\uFE0F|\s)+/u, "");

/**
 * From wrangler's output (stderr and stdout): `reason`, the API's `[code: N]` line, or else the error's headline;
 * `headline`, the `✘ [ERROR]` line when it says more than the reason (which request failed); `hint`, what wrangler
 * advises (its line naming CLOUDFLARE_ACCOUNT_ID, or its 📎 paragraph), and when its account table lists more than
 * one account and `accountIdSet` is false, that CLOUDFLARE_ACCOUNT_ID must choose.
 */
export function failureOf(output, { accountIdSet = false } = {}) {
  const lines = output.split("\n").map((l) => stripColour(l).trim());
  const headline = lines.find((l) => l.startsWith("✘"))?.replace(/^✘\s*\[ERROR\]\s*/, "");
  const coded = lines.find((l) => /\[code: \d+\]/.test(l));
  const reason =
    coded ?? headline ?? lines.findLast((l) => l && !frameOnly(l) && /error|failed|not|denied|unable/i.test(l));
  const hints = [];
  const accountIdLine = lines.find((l) => l.includes("CLOUDFLARE_ACCOUNT_ID") && !l.startsWith("✘"));
  const clip = lines.findIndex((l) => l.startsWith("📎"));
  if (accountIdLine) hints.push(accountIdLine);
  else if (clip >= 0) {
    const end = lines.findIndex((l, i) => i > clip && !l);
    hints.push(
      lines
        .slice(clip, end < 0 ? undefined : end)
        .map(leadingEmoji)
        .join(" "),
    );
  }
  // whoami's table after an authentication error: a row per account (name, 32 hex digits).
  const accounts = lines.filter((l) => /^│.*│\s*[0-9a-f]{32}\s*│$/.test(l)).length;
  if (accounts > 1 && !accountIdLine && !accountIdSet) {
    hints.push(`The credentials reach ${accounts} accounts: set CLOUDFLARE_ACCOUNT_ID to the one to deploy to.`);
  }
  return {
    reason,
    headline: headline && headline !== reason ? headline : undefined,
    hint: hints.length > 0 ? hints.join(" ") : undefined,
  };
}

/**
 * The deploy's failure for a step: one line naming the step (its worker or database; without one, the command) and
 * wrangler's reason, then at most two indented lines: the request that failed and wrangler's hint.
 */
export function describeFailure({ step, command, output, exitCode, accountIdSet }) {
  const { reason, headline, hint } = failureOf(output, { accountIdSet });
  return [
    `${step ? `${step} failed (${command})` : `${command} failed`}: ${reason ?? `exit ${exitCode}`}`,
    ...(headline ? [`  ${headline}`] : []),
    ...(hint ? [`  hint: ${hint}`] : []),
  ].join("\n");
}
