export const ENTRIES: Record<string, string> & { consumer: string };
export function importPath(name: string): string;
export const nobleSecp256k1: { name: string; setup(build: unknown): void };
