// Key rotation with overlap (issue 18) and the retirement of a compromised session key, as pure functions of the
// current configuration: what each secret and variable becomes. scripts/keys.mjs writes the result for `wrangler
// secret bulk`; nothing here talks to Cloudflare.
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
 * The fleet's AUTH_PUBLIC_KEYS for an auth host with this signing key and these previous keys: every key the auth
 * host's JWKS holds for sessions, each previous one with its `oc_retire_at`, so it leaves the fleet when it leaves
 * the JWKS. Rebuilt from the public members: the value is a plain variable, not a secret.
 */
const fleetPublicKeys = (current, previous) =>
  JSON.stringify([
    publicOf(current),
    ...previous.map((k) => ({ ...publicOf(k), ...(k.oc_retire_at !== undefined && { oc_retire_at: k.oc_retire_at }) })),
  ]);

/**
 * A new session signing key; the current one's public half joins AUTH_PREVIOUS_KEYS until `now` plus a token's
 * lifetime and the JWKS cache time (its `oc_retire_at`), and previous keys already past theirs are dropped.
 * `fleetPublicKeys` is what a fleet that sets AUTH_PUBLIC_KEYS sets it to (one that does not reads the new key from
 * the JWKS on its first token).
 */
export function rotateSessionKey({ signingKey, previousKeys, fresh, now = Date.now() }) {
  const current = privateJwk(signingKey, "AUTH_SIGNING_KEY");
  const kept = publicList(previousKeys, "AUTH_PREVIOUS_KEYS").filter(
    (k) => typeof k.oc_retire_at !== "string" || Date.parse(k.oc_retire_at) > now,
  );
  const retireAt = new Date(now + SESSION_LIFETIME_MS + JWKS_CACHE_MS).toISOString();
  const previous = [{ ...publicOf(current), oc_retire_at: retireAt }, ...kept];
  return {
    secrets: {
      AUTH_SIGNING_KEY: JSON.stringify(fresh),
      AUTH_PREVIOUS_KEYS: JSON.stringify(previous),
    },
    fleetPublicKeys: fleetPublicKeys(fresh, previous),
    oldKid: current.kid,
    newKid: fresh.kid,
    retireAt,
  };
}

/**
 * A compromised session key out of AUTH_PREVIOUS_KEYS now, rather than at its `oc_retire_at`: the auth host's JWKS
 * drops it once applied, and every token it signed stops verifying. The key signing now cannot be retired (rotate
 * first), nor an audit key (old bundles and checkpoints name it: it stays published), nor a kid the list lacks.
 */
export function retireSessionKey({ signingKey, previousKeys, publishedKeys, kid }) {
  const current = privateJwk(signingKey, "AUTH_SIGNING_KEY");
  if (kid === current.kid)
    throw new Error(
      `${kid} is the current AUTH_SIGNING_KEY: rotate first (npm run keys -- rotate session), then retire it`,
    );
  if (publicList(publishedKeys, "PUBLISHED_KEYS").some((k) => k.kid === kid))
    throw new Error(
      `${kid} is an audit key: it stays published so old bundles and checkpoints verify; rotate it (npm run keys -- rotate audit) instead`,
    );
  const previous = publicList(previousKeys, "AUTH_PREVIOUS_KEYS");
  if (!previous.some((k) => k.kid === kid)) {
    const held = previous.map((k) => k.kid).join(", ") || "none";
    throw new Error(`no session key ${kid} in AUTH_PREVIOUS_KEYS (it holds: ${held})`);
  }
  const kept = previous.filter((k) => k.kid !== kid);
  return {
    secrets: { AUTH_PREVIOUS_KEYS: JSON.stringify(kept) },
    fleetPublicKeys: fleetPublicKeys(current, kept),
    kid,
    kept: kept.length,
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
