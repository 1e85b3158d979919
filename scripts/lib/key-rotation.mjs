// Key rotation with overlap (issue 18), as pure functions of the current configuration: what each secret and
// variable becomes. scripts/keys.mjs writes the result for `wrangler secret bulk`; nothing here talks to Cloudflare.
// `fresh` is the new private JWK (scripts/dev-keys.mjs makes one), given so this runs anywhere, workerd included.

/** The longest a session token lives (the cookie's Max-Age), and the JWKS's cache time on top: a retired session
 * key stays published until every token it signed has expired and every cached copy of the key set has been read
 * again. */
export const SESSION_LIFETIME_MS = 30 * 24 * 3_600_000;
export const JWKS_CACHE_MS = 5 * 60_000;

const publicOf = ({ kty, crv, x, kid }) => ({ kty, crv, x, kid });

function privateJwk(text, name) {
  let jwk;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw new Error(`${name} is not JSON`);
  }
  if (jwk?.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.d !== "string" || typeof jwk.x !== "string" || !jwk.kid)
    throw new Error(`${name} is not an Ed25519 private JWK with a kid`);
  return jwk;
}

function publicList(text, name) {
  if (!text) return [];
  let list;
  try {
    list = JSON.parse(text);
  } catch {
    throw new Error(`${name} is not JSON`);
  }
  if (!Array.isArray(list)) throw new Error(`${name} is not a JSON array of public JWKs`);
  return list;
}

/**
 * A new session signing key; the current one's public half joins AUTH_PREVIOUS_KEYS until `now` plus a token's
 * lifetime and the JWKS cache time (its `oc_retire_at`), and previous keys already past theirs are dropped.
 */
export function rotateSessionKey({ signingKey, previousKeys, fresh, now = Date.now() }) {
  const current = privateJwk(signingKey, "AUTH_SIGNING_KEY");
  const kept = publicList(previousKeys, "AUTH_PREVIOUS_KEYS").filter(
    (k) => typeof k.oc_retire_at !== "string" || Date.parse(k.oc_retire_at) > now,
  );
  const retireAt = new Date(now + SESSION_LIFETIME_MS + JWKS_CACHE_MS).toISOString();
  return {
    secrets: {
      AUTH_SIGNING_KEY: JSON.stringify(fresh),
      AUTH_PREVIOUS_KEYS: JSON.stringify([{ ...publicOf(current), oc_retire_at: retireAt }, ...kept]),
    },
    oldKid: current.kid,
    newKid: fresh.kid,
    retireAt,
  };
}

/**
 * A new audit key for the fleet (bundles and checkpoints). Old bundles and checkpoints name the key that signed
 * them, so the old public key stays in the auth host's PUBLISHED_KEYS for good; the new one is added there first.
 */
export function rotateAuditKey({ signingKey, publishedKeys, fresh }) {
  const current = privateJwk(signingKey, "FLEET_SIGNING_KEY");
  const published = publicList(publishedKeys, "PUBLISHED_KEYS");
  const withOld = published.some((k) => k.kid === current.kid) ? published : [...published, publicOf(current)];
  return {
    secrets: { FLEET_SIGNING_KEY: JSON.stringify(fresh) },
    publishedKeys: JSON.stringify([...withOld, publicOf(fresh)]),
    oldKid: current.kid,
    newKid: fresh.kid,
  };
}
