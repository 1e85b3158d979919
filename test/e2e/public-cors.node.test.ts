// Browsers as clients (issue 32): a consumer's page on another origin (a node server on 127.0.0.1) calls the public
// host's verification API from Chromium — GET /api/check (computed, then the cached hit), GET /api/discover, POST
// /api/verify with a JSON body (which needs a preflight) and a refused query — and shows what it read: statuses,
// ok, reasons and the exposed headers. The same page's fetch of a cookie route, or of a public route with
// credentials, is blocked by the browser (a TypeError). The stack reads a loopback Esplora API and nostr relay,
// where a real attestation is funded and published.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type SignedAttestation, signedAttestations } from "../harness/attestations";
import { diagnosed, pageErrors } from "../harness/browser-session";
import { ensureChromium, launchChromium, startStack } from "../harness/browser-stack.mjs";
import { startEsplora } from "../harness/esplora-server.mjs";
import { startRelay } from "../harness/nostr-relay.mjs";
import { attestationEventOf, fundAddress } from "../helpers/bonded-attestation";

/**
 * The consumer's page script, plain JS served beside the page: each call's outcome as a line a person reads, and
 * the same as data (window.outcomes). `blocked()` makes the calls the browser must refuse to let it read.
 */
const PAGE_SCRIPT = `
const api = document.body.dataset.api;
const list = document.getElementById("outcomes");
window.outcomes = [];
async function call(label, path, init) {
  let outcome;
  try {
    const res = await fetch(api + path, init);
    const body = await res.json();
    outcome = {
      label, status: res.status, ok: body.ok ?? null, reason: body.reason ?? null, count: body.count ?? null,
      sats: body.sats ?? null,
      requestId: res.headers.get("x-request-id"), cache: res.headers.get("x-cache"), rateLimit: res.headers.get("ratelimit"),
    };
  } catch (err) {
    outcome = { label, error: err.name };
  }
  window.outcomes.push(outcome);
  const item = document.createElement("li");
  item.textContent = outcome.error ? label + ": blocked (" + outcome.error + ")" : label + ": " + outcome.status +
    (outcome.ok === null ? "" : " ok=" + outcome.ok) + (outcome.count === null ? "" : " count=" + outcome.count) +
    (outcome.reason === null ? "" : " reason=" + outcome.reason);
  list.append(item);
}
const attestation = JSON.parse(document.body.dataset.attestation);
const check = "/api/check?addr=" + attestation.address + "&min_sats=100000&min_days=30";
(async () => {
  await call("check", check);
  // Past the browser's own HTTP cache (the answer is public for 60 s): the host's cached answer is what it reads.
  await call("check again", check, { cache: "no-store" });
  await call("discover", "/api/discover?addr=" + attestation.address);
  await call("verify", "/api/verify", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ addr: attestation.address, msg: attestation.message, sig: attestation.signature, scheme: "bip322" }),
  });
  await call("refused", "/api/check?addr=x");
  document.body.dataset.done = "public";
})();
window.blocked = async () => {
  await call("session", "/api/auth/me", { credentials: "include" });
  await call("logout", "/api/auth/logout", { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: "{}" });
  await call("check with credentials", check, { credentials: "include" });
  return window.outcomes.slice(-3);
};
`;

let stack: Awaited<ReturnType<typeof startStack>> | undefined;
let esplora: Awaited<ReturnType<typeof startEsplora>> | undefined;
let relay: Awaited<ReturnType<typeof startRelay>> | undefined;
let consumer: Server | undefined;
let consumerOrigin = "";
let browser: Browser | undefined;
let attestation: SignedAttestation;

/** A funded UTXO 40 days old for the attestation's address, and its envelope published on the relay. */
async function fundAndPublish(a: SignedAttestation, esploraUrl: string, relayUrl: string) {
  await fundAddress(esploraUrl, a.address);
  const socket = new WebSocket(relayUrl);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const ok = new Promise<unknown[]>((resolve) => socket.once("message", (m) => resolve(JSON.parse(String(m)))));
  socket.send(JSON.stringify(["EVENT", await attestationEventOf(a)]));
  expect((await ok)[2]).toBe(true);
  socket.close();
}

/** The consumer's origin: its page (naming the API and the attestation to ask about) and its script. */
function startConsumer(apiOrigin: string, a: SignedAttestation): Promise<string> {
  const data = (value: string) => value.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A shop</title></head>
<body data-api="${data(apiOrigin)}" data-attestation="${data(JSON.stringify({ address: a.address, message: a.message, signature: a.signature }))}">
<h1>Bond check</h1><ul id="outcomes"></ul><script src="/page.js"></script></body></html>`;
  const server = createServer((req, res) => {
    if (req.url === "/page.js") res.writeHead(200, { "content-type": "text/javascript" }).end(PAGE_SCRIPT);
    else if (req.url === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    else res.writeHead(404).end();
  });
  consumer = server;
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  ensureChromium();
  esplora = await startEsplora();
  relay = await startRelay();
  stack = await startStack({
    auth: 8867,
    fleet: 8868,
    authInspector: 9297,
    fleetInspector: 9298,
    stateDir: ".build/e2e-public-cors-state",
    env: { ESPLORA_URL: esplora.url, NOSTR_RELAYS: relay.url, STRIPE_SECRET_KEY: "" },
  });
  const found = signedAttestations().find((s) => s.name === "p2wpkh");
  if (!found) throw new Error("no p2wpkh fixture");
  attestation = found;
  await fundAndPublish(attestation, esplora.url, relay.url);
  consumerOrigin = await startConsumer(stack.authOrigin, attestation);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => (consumer ? consumer.close(resolve) : resolve(undefined)));
  await esplora?.close();
  await relay?.close();
});

type Outcome = Record<string, string | number | boolean | null>;

describe("a page on another origin calls the public verification API", () => {
  let page: Page;
  let errors: string[];

  it("reads every answer: statuses, ok, reasons and the exposed headers; no console error", async () => {
    page = await (await (browser as Browser).newContext()).newPage();
    errors = pageErrors(page);
    await diagnosed(page, stack?.logFile ?? "", async () => {
      await page.goto(`${consumerOrigin}/`);
      await page.waitForSelector("body[data-done=public]", { timeout: 30_000 });
    });
    const shown = await page.locator("#outcomes li").allInnerTexts();
    expect(shown).toEqual([
      "check: 200 ok=true",
      "check again: 200 ok=true",
      "discover: 200 count=1",
      "verify: 200 ok=true",
      "refused: 400 ok=false reason=invalid_query",
    ]);
    const outcomes = (await page.evaluate("window.outcomes")) as Outcome[];
    const [check, again, discover, verify, refused] = outcomes;
    expect(check).toMatchObject({ sats: 150_000, cache: null });
    // The second read is the cached answer, served before the router: its headers are readable too.
    expect(again).toMatchObject({ sats: 150_000, cache: "HIT" });
    expect(discover).toMatchObject({ count: 1 });
    // A JSON body is not a simple request: Chromium sent it only because the preflight passed (logout's did not).
    expect(verify).toMatchObject({ ok: true });
    for (const outcome of [check, again, discover, verify, refused]) {
      expect(outcome?.requestId, String(outcome?.label)).toMatch(/\S/);
      expect(outcome?.rateLimit, String(outcome?.label)).toMatch(/^limit=60, remaining=\d+/);
    }
    expect(errors).toEqual([]);
  });

  it("cannot read a cookie route, nor a public one with credentials: the browser blocks them", async () => {
    const blocked = (await page.evaluate("window.blocked()")) as Outcome[];
    expect(blocked).toEqual([
      { label: "session", error: "TypeError" },
      { label: "logout", error: "TypeError" },
      { label: "check with credentials", error: "TypeError" },
    ]);
    expect(await page.locator("#outcomes li").last().textContent()).toBe("check with credentials: blocked (TypeError)");
    // What Chromium says of each: the CORS policy, for the reason that applies; nothing else went wrong.
    const said = errors.filter((error) => error !== "Failed to load resource: net::ERR_FAILED");
    expect(said).toHaveLength(3);
    expect(said[0]).toMatch(/\/api\/auth\/me' .*CORS policy: No 'Access-Control-Allow-Origin' header/);
    expect(said[1]).toMatch(/\/api\/auth\/logout' .*CORS policy: Response to preflight request doesn't pass/);
    expect(said[2]).toMatch(
      /\/api\/check\?.*CORS policy: .*must not be the wildcard '\*' when .*credentials mode is 'include'/,
    );
  });
});
