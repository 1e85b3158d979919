// `npm run keys` after security review 2, item 8: `rotate session` says what to change on the fleet, and `retire
// <kid>` takes a compromised session key out of AUTH_PREVIOUS_KEYS at once; a refusal is one line and a non-zero exit.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generateSigningJwk } from "../../scripts/dev-keys.mjs";

const ROOT = path.join(import.meta.dirname, "../..");

function keys(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [path.join(ROOT, "scripts/keys.mjs"), ...args], {
    cwd: ROOT,
    env: { ...process.env, AUTH_SIGNING_KEY: "", AUTH_PREVIOUS_KEYS: "", PUBLISHED_KEYS: "", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

function expectOneLine(err: string) {
  expect(err.trim().split("\n"), err).toHaveLength(1);
  expect(err).not.toMatch(/^\s+at /m);
}

const publicOf = ({ d: _d, ...jwk }: ReturnType<typeof generateSigningJwk>) => jwk;
/** The JSON the command prints for the fleet's AUTH_PUBLIC_KEYS. */
const fleetValue = (said: string) =>
  JSON.parse(/AUTH_PUBLIC_KEYS: set it to (\[.*\]) and deploy/.exec(said)?.[1] ?? "null") as Record<string, string>[];

let dir: string;
const current = generateSigningJwk();
const compromised = generateSigningJwk();
const staying = generateSigningJwk();
const audit = generateSigningJwk();
const retireAt = new Date(Date.now() + 86_400_000).toISOString();
const config = {
  AUTH_SIGNING_KEY: JSON.stringify(current),
  AUTH_PREVIOUS_KEYS: JSON.stringify([
    { ...publicOf(compromised), oc_retire_at: retireAt },
    { ...publicOf(staying), oc_retire_at: retireAt },
  ]),
  PUBLISHED_KEYS: JSON.stringify([publicOf(audit)]),
};

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "oc-keys-"));
});

describe("npm run keys: the fleet and retire", () => {
  it("--help lists retire <kid>", () => {
    const { code, out } = keys(["--help"]);
    expect(code).toBe(0);
    expect(out).toContain("npm run keys -- retire <kid>");
  });

  it("rotate session prints the fleet's new AUTH_PUBLIC_KEYS, and that a fleet without it needs nothing", () => {
    const out = path.join(dir, "rotate.json");
    const { code, out: said, err } = keys(["rotate", "session", "--out", out], config);
    expect(code, err).toBe(0);
    expect(said).toContain("without AUTH_PUBLIC_KEYS nothing to change");
    const secrets = JSON.parse(readFileSync(out, "utf8")) as Record<string, string>;
    const next = JSON.parse(secrets.AUTH_SIGNING_KEY ?? "{}") as { kid: string };
    const fleet = fleetValue(said);
    expect(fleet.map((k) => k.kid)).toEqual([next.kid, current.kid, compromised.kid, staying.kid]);
    expect(fleet.slice(1)).toEqual(JSON.parse(secrets.AUTH_PREVIOUS_KEYS ?? "[]"));
    expect(fleet.every((k) => !("d" in k))).toBe(true);
  });

  it("retire <kid> writes AUTH_PREVIOUS_KEYS without it (mode 0600) and prints the steps", () => {
    const out = path.join(dir, "retire.json");
    const { code, out: said, err } = keys(["retire", compromised.kid, "--out", out], config);
    expect(code, err).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const previous = JSON.parse(
      (JSON.parse(readFileSync(out, "utf8")) as Record<string, string>).AUTH_PREVIOUS_KEYS ?? "",
    ) as Record<string, string>[];
    expect(previous).toEqual([{ ...publicOf(staying), oc_retire_at: retireAt }]);
    expect(said).toContain(`npx wrangler secret bulk ${out}`);
    expect(said).toContain(`its JWKS drops ${compromised.kid} at once`);
    expect(said).toContain("within 5 minutes");
    expect(said).toContain(`sessions signed by ${compromised.kid} then stop verifying`);
    expect(fleetValue(said).map((k) => k.kid)).toEqual([current.kid, staying.kid]);
  });

  it("retire refuses the current signing key, an audit key, an unknown kid and a missing one: one line, exit 2", () => {
    const cases: [string[], string][] = [
      [["retire", current.kid], "rotate first"],
      [["retire", audit.kid], "is an audit key: it stays published"],
      [["retire", "no-such-kid"], "no session key no-such-kid in AUTH_PREVIOUS_KEYS"],
      // base64url kids may begin with "-" (a thumbprint did, once in 64 runs): still the kid, not an unknown flag
      [["retire", "-w-kid"], "no session key -w-kid in AUTH_PREVIOUS_KEYS"],
      [["retire"], "retire <kid>"],
    ];
    for (const [args, says] of cases) {
      const { code, err } = keys([...args, "--out", path.join(dir, "refused.json")], config);
      expect(code, args.join(" ")).toBe(2);
      expectOneLine(err);
      expect(err).toContain(says);
    }
  });
});
