// Types for checks.mjs (its test imports the pure parts).
export function commandsOf(scripts: Record<string, string>, names: string[]): string[];
export function runAll(commands: string[], lanes: number, cwd: string): Promise<string[]>;
