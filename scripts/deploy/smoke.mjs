// After a deploy (issue 28): each host answers its health check (the fleet's deep one: its bindings answer), the auth host publishes a JWKS with a session key
// and the fleet's audit key, and both serve their OpenAPI documents. A new custom domain or workers.dev name can take
// a minute to answer, so each check is tried for up to `waitMs` before it fails with one line naming the URL.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function expectJson(url, check, waitMs) {
  const until = Date.now() + waitMs;
  let last = "no answer";
  for (;;) {
    try {
      const res = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
      const body = await res.json().catch(() => undefined);
      const problem = res.ok ? check(body) : `answered ${res.status}`;
      if (!problem) return;
      last = problem;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    if (Date.now() > until) throw new Error(`smoke check ${url}: ${last}`);
    await sleep(3000);
  }
}

const jwksProblem = (body) => {
  const keys = Array.isArray(body?.keys) ? body.keys : [];
  if (!keys.some((k) => k.oc_use === "session")) return "no session key in the JWKS";
  if (!keys.some((k) => k.oc_use === "audit")) return "no audit key in the JWKS (PUBLISHED_KEYS)";
  return undefined;
};
const openapiProblem = (body) => (typeof body?.openapi === "string" ? undefined : "not an OpenAPI document");
const healthProblem = (body) => (body?.ok === true ? undefined : "not healthy");

/** Every check passes, or the first failure is thrown; `say` tells each passed one. */
export async function smokeCheck(origins, { say = console.log, waitMs = 120_000 } = {}) {
  const checks = [
    [`${origins.auth}/api/health`, healthProblem],
    [`${origins.auth}/api/auth/jwks`, jwksProblem],
    [`${origins.auth}/api/openapi`, openapiProblem],
    // The deep check: the fleet's D1, KV and Durable Objects answer.
    [`${origins.fleet}/api/health/deep`, healthProblem],
    [`${origins.fleet}/api/openapi`, openapiProblem],
  ];
  for (const [url, check] of checks) {
    await expectJson(url, check, waitMs);
    say(`ok ${url}`);
  }
}
