// Types of smoke.mjs for the TypeScript tests.
export function smokeCheck(
  origins: { auth: string; fleet: string },
  options?: { say?: (line: string) => void; waitMs?: number },
): Promise<void>;
