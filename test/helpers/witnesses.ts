// The three loopback witnesses vitest.config.ts starts (test/harness/witness-server.mjs, written from the C2SP specs
// alone) and what a test needs to run a project's log with some of them: the deployment's LOG_WITNESSES set on that
// project's integrator (its Durable Object) and on the app a read goes through, the witnesses told to trust the
// fleet's log key, admin switches (down, up) scoped to one log's origin, and an independent cosignature check.
import { createExecutionContext, env, runInDurableObject } from "cloudflare:test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, hex } from "@scure/base";
import { app } from "../../workers/fleet/src/app";
import { logKey } from "../../workers/fleet/src/log/key";
import type { FleetClient } from "./fleet";

export interface TestWitness {
  name: string;
  vkey: string;
  url: string;
}

/** The three witnesses, each `{name, vkey, url}`. */
export const WITNESSES: TestWitness[] = (
  JSON.parse((env as unknown as { TEST_WITNESSES: string }).TEST_WITNESSES) as { vkey: string; url: string }[]
).map((w) => ({ ...w, name: w.vkey.split("+")[0] as string }));

export const witnessConfig = (list: readonly TestWitness[]) =>
  JSON.stringify(list.map(({ vkey, url }) => ({ vkey, url })));

/** The project's integrator runs with `LOG_WITNESSES = config` (the deployment's list, for this project's log). */
export async function integratorWith(projectId: string, config: string): Promise<void> {
  const stub = env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(projectId));
  await runInDurableObject(stub, (instance) => {
    const object = instance as unknown as { env: Record<string, unknown> };
    object.env = { ...object.env, LOG_WITNESSES: config };
  });
}

/** `owner` reads `path` from the fleet app running with `LOG_WITNESSES = config`. */
export async function readWith(owner: FleetClient, path: string, config: string): Promise<Response> {
  const headers = new Headers({ "sec-fetch-site": "same-origin", "cf-connecting-ip": owner.ip });
  if (owner.cookie) headers.set("cookie", `oc_session=${owner.cookie}`);
  const request = new Request(`http://localhost:8788${path}`, { headers });
  return app.fetch(request, { ...env, LOG_WITNESSES: config }, createExecutionContext());
}

async function admin(witness: TestWitness, path: string, body: unknown) {
  const res = await fetch(`${witness.url}/admin/${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`witness ${witness.name} /admin/${path}: ${res.status} ${await res.text()}`);
}

/** Each witness trusts the fleet's log key for every origin (whatever key name signs). */
export async function trustFleet(witnesses: readonly TestWitness[]): Promise<void> {
  const publicKey = base64.encode(logKey(env as never).publicKey);
  await Promise.all(witnesses.map((w) => admin(w, "trust", { prefix: "", public_key: publicKey })));
}

export const goDown = (w: TestWitness, origin: string) => admin(w, "down", { mode: "reset", origin });
export const comeUp = (w: TestWitness, origin: string) => admin(w, "up", { origin });

export async function witnessState(w: TestWitness, origin: string): Promise<{ size: number; root: string | null }> {
  return (await fetch(`${w.url}/admin/state?origin=${encodeURIComponent(origin)}`)).json();
}

export async function witnessRequests(w: TestWitness, origin: string) {
  const all = (await (await fetch(`${w.url}/admin/requests`)).json()) as {
    origin?: string;
    old?: number;
    size?: number;
    status: number;
  }[];
  return all.filter((r) => r.origin === origin);
}

/** POSTs an add-checkpoint body to a witness as any client could: its status, content type and body. */
export async function addCheckpoint(w: TestWitness, body: string) {
  const res = await fetch(`${w.url}/add-checkpoint`, { method: "POST", body });
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
}

/**
 * Whether `note` carries a valid cosignature/v1 by `w` over its text, checked from the spec here (not with the
 * fleet's code): key ID = SHA-256(name ‖ "\n" ‖ 0x04 ‖ key)[:4], bytes key ID ‖ u64 time ‖ Ed25519 signature over
 * "cosignature/v1\ntime <t>\n" ‖ the note's text.
 */
export function cosignedBy(note: string, w: TestWitness): boolean {
  const split = note.indexOf("\n\n");
  const text = note.slice(0, split + 1);
  const material = base64.decode(w.vkey.split("+").slice(2).join("+"));
  const publicKey = material.slice(1);
  const id = sha256(new Uint8Array([...new TextEncoder().encode(`${w.name}\n`), 0x04, ...publicKey])).slice(0, 4);
  return note
    .slice(split + 2)
    .split("\n")
    .some((line) => {
      const [dash, name, sig] = line.split(" ");
      if (dash !== "—" || name !== w.name || !sig) return false;
      const blob = base64.decode(sig);
      if (blob.length !== 76 || hex.encode(blob.slice(0, 4)) !== hex.encode(id)) return false;
      const time = new DataView(blob.buffer, blob.byteOffset + 4, 8).getBigUint64(0);
      const message = new TextEncoder().encode(`cosignature/v1\ntime ${time}\n${text}`);
      return ed25519.verify(blob.slice(12), message, publicKey);
    });
}
