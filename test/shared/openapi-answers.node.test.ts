// The auth host's OpenAPI document against real answers (issue 16, item 3): the whole stack started as `npm start`
// starts it (on its own ports, with a loopback Esplora API and nostr relay), a real attestation funded and
// published, and each documented 2xx response schema — challenge, JWKS, verify, check, discover, reasons — compiled
// with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1; installed beside the OpenAPI validator) must accept
// what the host answered. The host forwards verify, check and discover, so those answers come from the verify worker.
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { Signer } from "bip322-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { signedAttestations } from "../harness/attestations";
import { startStack } from "../harness/browser-stack.mjs";
import { startEsplora } from "../harness/esplora-server.mjs";
import { startRelay } from "../harness/nostr-relay.mjs";
import { attestationEventOf, fundAddress } from "../helpers/bonded-attestation";

const AUTH = "http://localhost:8827";

type Json = Record<string, unknown>;
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Json }> }> }>>;
  components: { schemas: Record<string, Json> };
}

let stack: Awaited<ReturnType<typeof startStack>> | undefined;
let esplora: Awaited<ReturnType<typeof startEsplora>>;
let relay: Awaited<ReturnType<typeof startRelay>>;
let document: OpenApiDocument;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/** The documented JSON schema of one answer, with the document's components beside it so its $refs resolve. */
function validatorFor(method: string, path: string, status: number) {
  const schema = document.paths[path]?.[method]?.responses[String(status)]?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${path} documents no JSON ${status}`);
  return ajv.compile({ ...schema, components: document.components });
}

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${AUTH}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Asserts the answer has the documented status and that the documented schema accepts its body. */
async function expectDocumented(method: string, path: string, body?: unknown, status = 200): Promise<Json> {
  const answer = await call(method.toUpperCase(), path, body);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
  const validate = validatorFor(method, path.split("?")[0] ?? path, status);
  expect(validate(answer.body), `${method} ${path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  return answer.body;
}

async function publish(event: unknown): Promise<void> {
  const socket = new WebSocket(relay.url);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const ok = new Promise<unknown[]>((resolve) => socket.once("message", (m) => resolve(JSON.parse(String(m)))));
  socket.send(JSON.stringify(["EVENT", event]));
  expect((await ok)[2]).toBe(true);
  socket.close();
}

beforeAll(async () => {
  esplora = await startEsplora();
  relay = await startRelay();
  stack = await startStack({
    auth: 8827,
    fleet: 8828,
    authInspector: 9267,
    fleetInspector: 9268,
    stateDir: ".build/openapi-answers-state",
    env: { ESPLORA_URL: esplora.url, NOSTR_RELAYS: relay.url },
  });
  document = (await (await fetch(`${AUTH}/api/openapi`)).json()) as OpenApiDocument;
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await esplora?.close();
  await relay?.close();
});

describe("the auth host's documented 2xx schemas accept real answers", () => {
  it("challenge: GET issues one, POST verifies it (ok true) and refuses a replay (ok false)", async () => {
    const key = generateSigningWif(undefined, "p2wpkh");
    const query = new URLSearchParams({ addr: key.address, audience: AUTH, purpose: "login" });
    const challenge = await expectDocumented("get", `/api/challenge?${query}`);
    const signed = {
      message: challenge.message,
      signature: Signer.sign(key.wif, key.address, String(challenge.message)),
      expectedNonce: challenge.nonce,
    };
    expect(await expectDocumented("post", "/api/challenge", signed)).toMatchObject({ ok: true });
    expect(await expectDocumented("post", "/api/challenge", signed)).toMatchObject({ ok: false });
    // The compiled schema has teeth: the published SDK's form of expiresAt (unix ms) is not the documented one.
    expect(validatorFor("get", "/api/challenge", 200)({ ...challenge, expiresAt: Date.now() })).toBe(false);
  });

  it("jwks at both paths, and the reason table", async () => {
    for (const path of ["/.well-known/jwks.json", "/api/auth/jwks"]) {
      expect(((await expectDocumented("get", path)).keys as unknown[]).length).toBeGreaterThan(0);
    }
    expect(((await expectDocumented("get", "/api/reasons")).reasons as unknown[]).length).toBeGreaterThan(70);
  });

  it("verify, check and discover (forwarded to the verify worker) for a funded, published attestation", async () => {
    const a = signedAttestations().find((s) => s.name === "p2wpkh");
    if (!a) throw new Error("no p2wpkh fixture");
    await fundAddress(esplora.url, a.address);
    await publish(await attestationEventOf(a));

    const verified = await expectDocumented("post", "/api/verify", {
      addr: a.address,
      msg: a.message,
      sig: a.signature,
      scheme: "bip322",
    });
    expect(verified).toMatchObject({ ok: true, metrics: { sats_bonded: 150_000, days_unspent: 40 } });
    const checked = await expectDocumented("get", `/api/check?addr=${a.address}&min_sats=100000&min_days=30`);
    expect(checked).toMatchObject({ ok: true, sats: 150_000 });
    const below = await expectDocumented("get", `/api/check?addr=${a.address}&min_days=41`);
    expect(below).toMatchObject({ ok: false, reasons: ["below_min_days"] });
    await expectDocumented("get", `/api/check?id=${"0".repeat(64)}`, undefined, 404);
    const found = await expectDocumented("get", `/api/discover?addr=${a.address}&limit=1`);
    expect(found).toMatchObject({ count: 1, total: 1 });
  });
});
