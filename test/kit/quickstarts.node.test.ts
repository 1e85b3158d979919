// The kit README's quickstarts cannot rot (issue 45): every ```ts block of packages/kit/README.md (each opens with
// `// <file>.ts`) is written into a fresh project that installs the packed kit (test/fixtures/kit/quickstarts), type-
// checked under NodeNext strict and under Bundler with DOM, then the Express and the webhook quickstarts are
// compiled and run as printed: real session tokens against a loopback JWKS (each refusal says why), and one genuine
// delivery posted twice runs the handler once.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningJwk } from "../../scripts/dev-keys.mjs";
import { type SessionSubject, signSessionToken } from "../../shared/auth/session-token";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { deliveryHeaders, newWebhookSecret } from "../../shared/webhooks";
import { type Background, background, freePort, run, until } from "../helpers/child-processes";
import { KIT_DIR, packKit, ROOT } from "../helpers/kit-tarball";

/** The README's ```ts blocks by the file name their first line gives. */
function quickstarts(readme: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const [, code = ""] of readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    const name = /^\/\/ ([\w-]+\.ts)\n/.exec(code)?.[1];
    if (!name) throw new Error(`a \`\`\`ts block of the README does not open with "// <file>.ts":\n${code}`);
    if (blocks.has(name)) throw new Error(`two README blocks named ${name}`);
    blocks.set(name, code);
  }
  return blocks;
}

const README = readFileSync(path.join(KIT_DIR, "README.md"), "utf8");
const blocks = quickstarts(README);
const running: Background[] = [];
let work: string;
let project: string;
let jwksServer: http.Server;
let authOrigin: string;
const jwk = generateSigningJwk();
const { d: _d, ...publicJwk } = jwk;

const tsc = (...args: string[]) => run(path.join(project, "node_modules", ".bin", "tsc"), args, { cwd: project });

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "oc-kit-quickstarts-"));
  const packed = packKit(work);
  cpSync(packed.tarball, path.join(work, "open-oc-kit.tgz"));
  project = path.join(work, "quickstarts");
  cpSync(path.join(ROOT, "test", "fixtures", "kit", "quickstarts"), project, { recursive: true });
  mkdirSync(path.join(project, "src"));
  for (const [name, code] of blocks) writeFileSync(path.join(project, "src", name), code);
  const npm = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: project });
  if (npm.code !== 0) throw new Error(`npm install failed:\n${npm.stderr}`);
  jwksServer = http.createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ keys: [{ ...publicJwk, use: "sig" }] }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, "127.0.0.1", r));
  authOrigin = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
}, 300_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await new Promise((r) => jwksServer?.close(r));
  if (work) rmSync(work, { recursive: true, force: true });
}, 30_000);

/** Starts a compiled quickstart with its environment; resolves once it answers on its port. */
async function start(file: string, env: Record<string, string>): Promise<{ base: string; proc: Background }> {
  const port = await freePort();
  const proc = background(process.execPath, [path.join("dist", file)], {
    cwd: project,
    env: { ...process.env, ...env, PORT: String(port) },
  });
  running.push(proc);
  const base = `http://127.0.0.1:${port}`;
  await until(
    `${file} listening`,
    () =>
      fetch(base).then(
        () => true,
        () => false,
      ),
    proc,
    30_000,
  );
  return { base, proc };
}

async function sessionToken(options: { sudoAt?: number | null; expired?: boolean } = {}): Promise<string> {
  const key = await loadSigningKey(JSON.stringify(jwk));
  const now = options.expired ? Date.now() - 2 * 86_400_000 : Date.now();
  const subject: SessionSubject = {
    sub: "acct1",
    did_oc: "did:oc:0123456789abcdef0123456789abcdef",
    jti: crypto.randomUUID(),
    display_name: null,
    primary_btc: null,
    display_identity: { kind: "did", value: "did:oc:0123456789abcdef0123456789abcdef" },
    step_up_at: null,
    sudo_at: options.sudoAt === undefined ? Math.floor(now / 1000) : options.sudoAt,
  };
  return signSessionToken(subject, key, { issuer: authOrigin, now, expiresAt: now + 60_000 });
}

describe("the kit README's quickstarts", () => {
  it("are the three ```ts blocks, each named by its first line", () => {
    expect([...blocks.keys()].sort()).toEqual(["express.ts", "webhook.ts", "worker.ts"]);
  });

  it("type-check under NodeNext strict and under Bundler with DOM, with zero errors", async () => {
    for (const config of ["tsconfig.json", "tsconfig.bundler.json"]) {
      const checked = await tsc("--noEmit", "-p", config);
      expect({ config, code: checked.code, output: checked.stdout + checked.stderr }).toEqual({
        config,
        code: 0,
        output: "",
      });
    }
  }, 120_000);

  it("Express: runs as printed; req.oc carries the session, and every refusal says why", async () => {
    const built = await tsc("-p", "tsconfig.json");
    expect(built.code, built.stdout).toBe(0);
    const { base } = await start("express.js", { AUTH_ORIGIN: authOrigin });
    const get = async (route: string, token?: string, method = "GET") => {
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      const res = await fetch(`${base}${route}`, { method, headers, signal: AbortSignal.timeout(10_000) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const token = await sessionToken();
    expect(await get("/me", token)).toEqual({
      status: 200,
      body: { did_oc: "did:oc:0123456789abcdef0123456789abcdef" },
    });
    expect(await get("/me")).toMatchObject({ status: 401, body: { ok: false, reason: "session_missing" } });
    expect(await get("/me", await sessionToken({ expired: true }))).toMatchObject({
      status: 401,
      body: { reason: "session_expired" },
    });
    const at = token.lastIndexOf(".") + 1;
    const tampered = `${token.slice(0, at)}${token[at] === "A" ? "B" : "A"}${token.slice(at + 1)}`;
    expect(await get("/me", tampered)).toMatchObject({ status: 401, body: { reason: "session_bad_signature" } });
    expect(await get("/account/delete", token, "POST")).toEqual({
      status: 200,
      body: { deleted: "did:oc:0123456789abcdef0123456789abcdef" },
    });
    expect(await get("/account/delete", await sessionToken({ sudoAt: null }), "POST")).toMatchObject({
      status: 403,
      body: { ok: false, reason: "sudo_required", maxAge: 600 },
    });
  }, 120_000);

  it("webhook: the same genuine delivery posted twice runs the handler once; no X-Service-* header is needed", async () => {
    const built = await tsc("-p", "tsconfig.json");
    expect(built.code, built.stdout).toBe(0);
    const secret = newWebhookSecret();
    const { base, proc } = await start("webhook.js", { WEBHOOK_SECRET: secret });
    const body = JSON.stringify({ id: "evt_1", project_id: "proj_1", kind: "agent-delegation", envelope: null });
    const headers = await deliveryHeaders({
      secret,
      body,
      eventType: "delegation.registered",
      deliveryId: "del_1.1",
      idempotencyKey: `idem_${crypto.randomUUID()}`,
      attempt: 1,
      manual: false,
      now: Date.now(),
    });
    const post = async (h: Record<string, string>) => {
      const res = await fetch(base, { method: "POST", headers: h, body, signal: AbortSignal.timeout(10_000) });
      return { status: res.status, body: await res.json() };
    };
    expect(await post(headers)).toEqual({ status: 200, body: { ok: true } });
    expect(await post(headers)).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    // A proxy that drops the fleet's own headers: the Standard Webhooks ones verify alone (here: already handled).
    const standardOnly = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^x-service-/i.test(name)));
    expect(await post(standardOnly)).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(await post({ ...headers, "webhook-signature": `v1,${"A".repeat(43)}=` })).toEqual({
      status: 401,
      body: { ok: false, reason: "invalid_signature" },
    });
    const handled = proc
      .output()
      .split("\n")
      .filter((line) => line.startsWith("handled "));
    expect(handled).toEqual(["handled delegation.registered evt_1"]);
  }, 120_000);
});
