// Consumer cookie verification per second on one core, inside workerd: the integrator kit's verifier against bare
// WebCrypto Ed25519 `verify` of the same token's signature. Each request loops `n` times; the figure is
// n / (best time of n-loop request − best time of an n=0 request), best of 5, so HTTP is not measured. Five passes
// of both sides; the figure is the median pass's.
import { medianBy } from "../lib/load.mjs";
import { benchSecrets, benchWorker, startStack } from "../lib/stack.mjs";

const ISSUER = "http://localhost:8787";
/** Passes per run; odd, so the median is one pass. */
const PASSES = 5;

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
    const rate = async (side) => {
      const empty = await best(`${base}/${side}?n=0`);
      const full = await best(`${base}/${side}?n=${n}`);
      return (n * 1000) / Math.max(full - empty, 1e-3);
    };
    for (const side of ["kit", "webcrypto"]) await best(`${base}/${side}?n=${n}`, 2); // warm-up (JWKS, key import, JIT)
    // Passes, each measuring both sides back to back (the first side alternating): a pass's ratio compares two
    // figures taken within a second of each other, and the median pass is the row's figure (issue 31, item 7).
    const passes = [];
    for (let pass = 0; pass < PASSES; pass++) {
      const order = pass % 2 === 0 ? ["kit", "webcrypto"] : ["webcrypto", "kit"];
      const result = {};
      for (const side of order) result[side] = await rate(side);
      passes.push({ project: result.kit, baseline: result.webcrypto, ratio: result.kit / result.webcrypto });
      log(`cookie pass ${pass + 1}: kit ${result.kit.toFixed(0)}/s, webcrypto ${result.webcrypto.toFixed(0)}/s`);
    }
    return { ...medianBy(passes, (pass) => pass.ratio), passes, tokenBytes: token.length };
  } finally {
    await stack.dispose().catch(() => {});
  }
}
