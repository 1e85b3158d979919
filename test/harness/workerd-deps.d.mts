// Types for workerd-deps.mjs (imported by vitest.config.ts).
export function importSpecifiers(source: string): string[];
export function workerdDependencies(root: string, setupFiles: string[]): string[];
