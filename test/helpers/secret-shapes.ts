// What the log scan (log-scan.ts) looks for in a log line: the shapes of the secrets the services handle, and the
// test run's own secret values. Pure, so its own test (test/shared/secret-shapes.test.ts) shows each shape is caught.

export interface SecretShape {
  name: string;
  find: (line: string) => string | undefined;
}

const byPattern =
  (pattern: RegExp) =>
  (line: string): string | undefined =>
    pattern.exec(line)?.[0];

/** A run of base64 long enough to be a signature (a BIP-322 witness is ~140 characters), not hex (ids, hashes). */
function longBase64(line: string): string | undefined {
  for (const [run] of line.matchAll(/[A-Za-z0-9+/]{60,}={0,2}/g)) {
    if (/[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run)) return run;
  }
  return undefined;
}

export const SECRET_SHAPES: readonly SecretShape[] = [
  { name: "API token", find: byPattern(/ock_[0-9a-f]{64}/) },
  { name: "webhook signing secret", find: byPattern(/whsec_/) },
  // oc_session is a JWT; a lone base64url JSON header is one half-logged.
  { name: "JWT", find: byPattern(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+|eyJ[A-Za-z0-9_-]{20,}/) },
  { name: "email code", find: byPattern(/code\W{0,4}\d{6}(?!\d)/i) },
  { name: "long base64 (a signature)", find: longBase64 },
  { name: "email address", find: byPattern(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/) },
  { name: "bearer credential", find: byPattern(/\bbearer\s/i) },
  { name: "cookie", find: byPattern(/\b(?:set-)?cookie\b["']?\s*[:=]|oc_session=/i) },
];

/** Binding names whose values are secret in the test configuration (vitest.config.ts). */
const SECRET_BINDING = /SECRET|_API_KEY|MASTER_KEY|CODE_KEY|SIGNING_KEY/;

/** The test run's secret values: each secret binding's value, or a private JWK's `d`. */
export function knownSecrets(bindings: object): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(bindings)) {
    if (!SECRET_BINDING.test(name) || typeof value !== "string" || value.length < 8) continue;
    values.push(privateJwkPart(value) ?? value);
  }
  return values;
}

function privateJwkPart(value: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    const d = (parsed as { d?: unknown } | null)?.d;
    return typeof d === "string" ? d : undefined;
  } catch {
    return undefined;
  }
}

export interface Finding {
  shape: string;
  /** The line with the value masked: the report itself must not print the secret. */
  line: string;
}

/** The first secret-shaped value in each line that has one. */
export function findSecrets(lines: readonly string[], known: readonly string[] = []): Finding[] {
  const shapes: SecretShape[] = [
    ...SECRET_SHAPES,
    { name: "a secret binding's value", find: (line) => known.find((value) => line.includes(value)) },
  ];
  const findings: Finding[] = [];
  for (const line of lines) {
    for (const shape of shapes) {
      const found = shape.find(line);
      if (found === undefined) continue;
      findings.push({ shape: shape.name, line: line.split(found).join(`<${shape.name}>`) });
      break;
    }
  }
  return findings;
}
