// The soak's clients: each is a wallet with its own client IP (so per-IP limits never turn the soak into a 429
// test), signed in by BIP-322, owning a project (per-project limits likewise), a project API token, a webhook
// endpoint on the loopback receiver and a delegation to its agent. Its loop mixes sign-ins, registrations of distinct
// signed envelopes and /api/check calls. Every registration's outcome is recorded; a registration whose answer was
// lost (connection refused or reset while the stack restarts) is re-sent with the same bytes until it is 201 or
// 409 already_registered, so every envelope a client made is accounted for.
import { loadKit } from "../kit/load.mjs";
import { AUTH, FLEET } from "./stack.mjs";

const kit = await loadKit();
/** Every event type the fleet offers (its catalogue, GET /api/webhook-events), so every registration is delivered. */
let eventTypes;
async function allEventTypes(client) {
  eventTypes ??= client
    .request("setup-events", FLEET, "/api/webhook-events")
    .then((r) => r.body.events.map((e) => e.type));
  return eventTypes;
}
const SCOPE = "stamp:sign(mime=text/markdown)";
const TIMEOUT_MS = 30_000;
const PROXY_RESTART = "Your worker restarted mid-request";
/** Setup steps are re-sent this many times after a lost answer. */
const SETUP_TRIES = 5;

/** Status tallies per operation: { op: { status: count } }; network failures are "net". */
export class Tally {
  constructor() {
    this.byOp = {};
  }
  add(op, status) {
    this.byOp[op] ??= {};
    const row = this.byOp[op];
    row[status] = (row[status] ?? 0) + 1;
  }
  count(predicate) {
    let n = 0;
    for (const row of Object.values(this.byOp)) for (const [s, c] of Object.entries(row)) if (predicate(s)) n += c;
    return n;
  }
}

export class Client {
  constructor(index, { receiver, tally, accepted, fiveHundreds, checkAddress }) {
    this.index = index;
    this.ip = `10.${(index >> 8) & 255}.${index & 255}.${1 + (index % 200)}`;
    this.owner = kit.newKey();
    this.agent = kit.newKey();
    this.receiver = receiver;
    this.tally = tally;
    /** Map "project_id id" → kind, of every envelope the registry confirmed (201, or 409 on a re-send). */
    this.accepted = accepted;
    this.fiveHundreds = fiveHundreds;
    this.checkAddress = checkAddress;
  }

  async request(op, base, path, init = {}) {
    const headers = { "cf-connecting-ip": this.ip, "sec-fetch-site": "same-origin", ...init.headers };
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const body = init.json !== undefined ? JSON.stringify(init.json) : undefined;
    let res;
    try {
      res = await fetch(`${base}${path}`, {
        method: init.method ?? "GET",
        headers,
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      this.tally.add(op, err?.name === "TimeoutError" ? "timeout" : "net");
      this.lastFailure = Date.now();
      return { status: 0, body: undefined, headers: new Headers() };
    }
    const text = await res.text().catch(() => "");
    // wrangler dev's own proxy (not the workers) drops a request in flight when it swaps the worker under it; the
    // request may or may not have run: it is a lost answer, like a reset connection.
    if (res.status === 503 && text.startsWith(PROXY_RESTART)) {
      this.tally.add(op, "proxy-503");
      this.lastFailure = Date.now();
      return { status: 0, body: undefined, headers: new Headers() };
    }
    this.tally.add(op, res.status);
    if (res.status >= 500)
      this.fiveHundreds.push({ op, path, status: res.status, body: text.slice(0, 300), at: Date.now() });
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers };
  }

  /** GET a challenge, sign it (BIP-322), POST it: the wallet sign-in; keeps the cookie. */
  async signIn(op = "signin") {
    const params = new URLSearchParams({ addr: this.owner.address, audience: AUTH, purpose: "login" });
    const challenge = await this.request(`${op}:challenge`, AUTH, `/api/challenge?${params}`);
    if (challenge.status !== 200) return false;
    const { message, nonce } = challenge.body;
    const res = await this.request(op, AUTH, "/api/auth/signin", {
      method: "POST",
      json: { address: this.owner.address, message, signature: this.owner.sign(message), nonce },
    });
    const cookie = /^oc_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
    if (cookie) this.cookie = cookie;
    return res.status === 200;
  }

  /** Sign-in, project, token, webhook endpoint, delegation: true when all worked. */
  /** A setup request, re-sent after a lost answer. */
  async setupRequest(op, base, path, init) {
    for (let i = 1; ; i++) {
      const res = await this.request(op, base, path, init);
      if (res.status !== 0 || i >= SETUP_TRIES) return res;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async setup() {
    let signedIn = false;
    for (let i = 0; i < SETUP_TRIES && !signedIn; i++) signedIn = await this.signIn("setup-signin");
    if (!signedIn) return false;
    const cookie = { cookie: `oc_session=${this.cookie}` };
    const project = await this.setupRequest("setup-project", FLEET, "/api/projects", {
      method: "POST",
      headers: cookie,
      json: { name: `soak ${this.index}` },
    });
    this.projectId = project.body?.project?.id;
    if (!this.projectId) return false;
    const token = await this.setupRequest("setup-token", FLEET, "/api/tokens", {
      method: "POST",
      headers: cookie,
      json: { project_id: this.projectId, name: "soak" },
    });
    this.token = token.body?.secret;
    this.hookPath = `/ok/soak-${this.index}`;
    const hook = await this.setupRequest("setup-webhook", FLEET, "/api/webhooks/endpoints", {
      method: "POST",
      headers: cookie,
      json: {
        project_id: this.projectId,
        url: `${this.receiver.url}${this.hookPath}`,
        event_types: await allEventTypes(this),
      },
    });
    if (!this.token || !hook.body?.secret) return false;
    await fetch(`${this.receiver.url}/__admin/secret`, {
      method: "PUT",
      body: JSON.stringify({ path: this.hookPath, secret: hook.body.secret }),
    });
    this.delegationId = await this.registerDelegation();
    return this.delegationId !== undefined;
  }

  /** Registers `envelope`; re-sends the same bytes after a lost answer. Returns the final status. */
  async register(op, path, envelope, id, deadline) {
    for (;;) {
      const res = await this.request(op, FLEET, path, {
        method: "POST",
        headers: { authorization: `Bearer ${this.token}` },
        json: { project_id: this.projectId, envelope },
      });
      const lost = res.status === 0;
      if (res.status === 201 || (res.status === 409 && res.body?.reason === "already_registered")) {
        this.accepted.set(`${this.projectId} ${id}`, { kind: envelope.kind, resent: res.status === 409 });
      }
      if (!lost || Date.now() > deadline) return res.status;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async registerDelegation(deadline = Date.now() + 120_000) {
    const built = await kit.delegation({ agent: this.agent.address, scopes: [SCOPE] }, this.owner);
    const status = await this.register("delegation", "/api/delegations", built.envelope, built.id, deadline);
    return status === 201 || status === 409 ? built.id : undefined;
  }

  async registerAction(deadline) {
    const built = await kit.action(
      {
        delegation_id: this.delegationId,
        scope_exercised: SCOPE,
        content: `soak ${this.index} ${Math.random()}`,
        content_mime: "text/markdown",
      },
      this.agent,
    );
    await this.register("action", "/api/actions", built.envelope, built.id, deadline);
  }

  async check() {
    await this.request("check", AUTH, `/api/check?addr=${this.checkAddress}&min_sats=100000&min_days=30`);
  }

  /** The mixed loop until `until` (epoch ms): actions 50 %, checks 30 %, sign-ins 10 %, delegations 10 %. */
  async loop(until) {
    while (Date.now() < until) {
      const pick = Math.random();
      // A lost answer is re-sent for up to a minute past the end of the phase (the stack may be restarting).
      const deadline = until + 60_000;
      if (pick < 0.5) await this.registerAction(deadline);
      else if (pick < 0.8) await this.check();
      else if (pick < 0.9) await this.signIn();
      else await this.registerDelegation(deadline);
      // A refused connection answers at once: do not spin while the stack is down.
      if (Date.now() - (this.lastFailure ?? 0) < 1000) await new Promise((r) => setTimeout(r, 250));
    }
  }
}
