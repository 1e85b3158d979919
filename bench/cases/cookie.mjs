// Consumer cookie verification per second on one core, inside workerd: the integrator kit's verifier against bare
// WebCrypto Ed25519 `verify` of the same token's signature. Each request loops `n` times; the figure is
// n / (best time of n-loop request − best time of an n=0 request), best of 5, so HTTP is not measured.
import { benchSecrets, benchWorker, startStack } from "../lib/stack.mjs";

const ISSUER = "http://localhost:8787";

async function best(url, tries = 5) {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries; i++) {
    const start = performance.now();
    const res = await fetch(url);
    const body = await res.json();
    if (body.ok !== body.n) throw new Error(`verification failed: ${JSON.stringify(body)}`);
    min = Math.min(min, performance.now() - start);
  }
  return min;
}

export async function cookie({ fx, bundles, n, log }) {
  const { signingJwk } = benchSecrets();
  const key = await fx.loadSigningKey(JSON.stringify(signingJwk));
  const now = Date.now();
  const id = "0123456789abcdef0123456789abcdef";
  const token = await fx.signSessionToken(
    {
      sub: id,
      did_oc: `did:oc:${id}`,
      jti: "bench-jti",
      display_name: "bench",
      primary_btc: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
      display_identity: { kind: "btc", value: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" },
      step_up_at: null,
      sudo_at: now,
    },
    key,
    { issuer: ISSUER, now, expiresAt: now + 86_400_000 },
  );
  const { d: _d, ...publicJwk } = signingJwk;
  const stack = await startStack(
    [
      benchWorker("cookie", bundles.cookie, {
        d1Databases: {},
        bindings: { TOKEN: token, JWKS: JSON.stringify({ keys: [publicJwk] }), ISSUER },
      }),
    ],
    ["cookie"],
  );
  try {
    const base = stack.urls.cookie;
    const result = {};
    for (const side of ["kit", "webcrypto"]) {
      await best(`${base}/${side}?n=${n}`, 2); // warm-up (JWKS read, key import, JIT)
      const empty = await best(`${base}/${side}?n=0`);
      const full = await best(`${base}/${side}?n=${n}`);
      result[side] = (n * 1000) / Math.max(full - empty, 1e-3);
      log(`cookie ${side}: ${result[side].toFixed(0)}/s (n=${n}: ${full.toFixed(1)} ms, n=0: ${empty.toFixed(1)} ms)`);
    }
    return { project: result.kit, baseline: result.webcrypto, tokenBytes: token.length };
  } finally {
    await stack.dispose().catch(() => {});
  }
}
