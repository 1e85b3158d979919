// A fleet client for route tests: signed in as a Bitcoin address (an account, a live session row and a cookie in
// the shared D1, as the auth host would have made them) or holding a project API token; its own client IP.
import { env, SELF } from "cloudflare:test";
import { randomHex, randomToken, sha256Hex } from "../../shared/crypto/digest";
import { DAY } from "../../shared/time";
import { authDb } from "./auth-db";
import { freshIp } from "./browser";
import { mintToken } from "./tokens";
import { newWallet } from "./wallet";

export const FLEET = "http://localhost:8788";

export class FleetClient {
  readonly ip = freshIp();
  cookie?: string;
  bearer?: string;
  address?: string;

  async fetch(path: string, init: RequestInit & { json?: unknown; fetchMetadata?: boolean } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has("sec-fetch-site") && init.fetchMetadata !== false) headers.set("sec-fetch-site", "same-origin");
    headers.set("cf-connecting-ip", this.ip);
    if (this.cookie) headers.set("cookie", `oc_session=${this.cookie}`);
    if (this.bearer) headers.set("authorization", `Bearer ${this.bearer}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    return SELF.fetch(`${FLEET}${path}`, { ...init, headers, body });
  }

  async call<T = Record<string, unknown>>(method: string, path: string, json?: unknown) {
    const res = await this.fetch(path, { method, ...(json !== undefined && { json }) });
    return { status: res.status, body: (await res.json()) as T & { ok: boolean; reason?: string } };
  }
}

/** A client signed in as a fresh (or given) Bitcoin address; `signingKey` signs its cookie instead of the test key. */
export async function signedIn(
  address: string = newWallet().address,
  options: { signingKey?: string } = {},
): Promise<FleetClient> {
  const id = randomHex(16);
  const didOc = `did:oc:${id}`;
  const now = Date.now();
  const jti = randomToken(18);
  const db = authDb();
  await db.batch([
    db
      .prepare(
        "INSERT INTO accounts (id, did_oc, primary_btc, display_identity_kind, created_at, updated_at) VALUES (?, ?, ?, 'btc', ?, ?)",
      )
      .bind(id, didOc, address, now, now),
    db
      .prepare("INSERT INTO account_identities (kind, value, account_id, created_at) VALUES ('btc', ?, ?, ?)")
      .bind(address, id, now),
    db
      .prepare(
        "INSERT INTO sessions (id, token_hash, account_id, roster_id, authenticated_at, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .bind(crypto.randomUUID(), await sha256Hex(jti), id, crypto.randomUUID(), now, now, now + 30 * DAY, now),
  ]);
  const client = new FleetClient();
  client.address = address;
  client.cookie = await mintToken(
    {
      sub: id,
      did_oc: didOc,
      jti,
      display_name: null,
      primary_btc: address,
      display_identity: { kind: "btc", value: address },
      step_up_at: null,
      sudo_at: null,
    },
    options,
  );
  return client;
}

/** A signed-in owner with a new project. */
export async function ownerWithProject(name = "Test project") {
  const owner = await signedIn();
  const res = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name });
  if (res.status !== 201) throw new Error(`project create: ${res.status} ${JSON.stringify(res.body)}`);
  return { owner, projectId: res.body.project.id };
}

/**
 * Subscribes the project to every event at the test receiver (which answers 2xx): a registration keeps its outbox
 * event only when the project has an active endpoint to deliver it to (d1-migrations/0009).
 */
export async function subscribed(owner: FleetClient, projectId: string): Promise<void> {
  const res = await owner.call("POST", "/api/webhooks/endpoints", {
    project_id: projectId,
    url: `${env.TEST_RECEIVER as string}/ok/${randomHex(8)}`,
    event_types: ["*"],
  });
  if (res.status !== 201) throw new Error(`endpoint create: ${res.status} ${JSON.stringify(res.body)}`);
}
