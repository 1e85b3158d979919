// Types of wrangler-failure.mjs for the TypeScript tests.
export function failureOf(
  output: string,
  options?: { accountIdSet?: boolean },
): { reason: string | undefined; headline: string | undefined; hint: string | undefined };
export function describeFailure(input: {
  step?: string;
  command: string;
  output: string;
  exitCode: number | null;
  accountIdSet?: boolean;
}): string;
