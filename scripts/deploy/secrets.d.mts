// Types of secrets.mjs for the TypeScript tests.
export function generateSecrets(names: string[], fleetKey?: Record<string, string>): Record<string, string>;
