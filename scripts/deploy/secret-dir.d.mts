// Types of secret-dir.mjs for the TypeScript tests.
export const SECRET_DIR_PREFIX: string;
export function sweepLeftovers(options: { tmp?: string; deployRoot: string }): string[];
export function openSecretDir(options?: { tmp?: string; onSignal?: (signal: string) => void }): {
  dir: string;
  write(name: string, value: string): string;
  close(): void;
};
