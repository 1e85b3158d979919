// The fleet across a session-key rotation (security review 2, item 8): AUTH_PUBLIC_KEYS names the keys from before
// it, and the auth stub's JWKS (vitest.config.ts) also has the key the host rotated to. A cookie of the new key is
// accepted on its first request; a kid in neither is refused and reads the JWKS at most once per interval; the
// fleet's audit key, published in the same JWKS, never verifies a session.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signedIn } from "../helpers/fleet";

const bindings = env as unknown as { AUTH: Fetcher; TEST_ROTATED_SIGNING_KEY: string; FLEET_SIGNING_KEY: string };

/** How many times the auth stub has answered its JWKS (to any test file of this project). */
async function jwksReads(): Promise<number> {
  const res = await bindings.AUTH.fetch("http://auth.test/__test/jwks-reads");
  return ((await res.json()) as { reads: number }).reads;
}

/** A private JWK whose kid no JWKS has: what a forged or foreign token names. */
async function madeUpKey(): Promise<string> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return JSON.stringify({ kty: "OKP", crv: "Ed25519", x: jwk.x, d: jwk.d, kid: `made-up-${crypto.randomUUID()}` });
}

describe("fleet session keys across a rotation", () => {
  it("accepts a cookie of a session key rotated in after AUTH_PUBLIC_KEYS was set, on its first request", async () => {
    const before = await jwksReads();
    const clients = await Promise.all(
      [1, 2, 3].map(() => signedIn(undefined, { signingKey: bindings.TEST_ROTATED_SIGNING_KEY })),
    );
    // Concurrent first requests: they share the one read.
    const answers = await Promise.all(clients.map((client) => client.call("GET", "/api/projects")));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    // One read at most: none when an earlier test of this file has already read the rotated key.
    expect((await jwksReads()) - before).toBeLessThanOrEqual(1);
  });

  it("refuses a kid that is in no key set (401) and reads the JWKS for it at most once per interval", async () => {
    const before = await jwksReads();
    const first = await signedIn(undefined, { signingKey: await madeUpKey() });
    const refused = await first.call("GET", "/api/projects");
    expect(refused.status).toBe(401);
    expect(refused.body.reason).toBe("unauthenticated");
    const afterFirst = await jwksReads();
    expect(afterFirst - before).toBeLessThanOrEqual(1);
    // More made-up kids within the interval, concurrently: refused, and not one more read.
    const others = await Promise.all(
      [1, 2, 3, 4].map(async () => signedIn(undefined, { signingKey: await madeUpKey() })),
    );
    const answers = await Promise.all(others.map((client) => client.call("GET", "/api/projects")));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401]);
    expect(await jwksReads()).toBe(afterFirst);
  });

  it("refuses a cookie signed by the fleet's audit key, though the JWKS publishes it", async () => {
    const client = await signedIn(undefined, { signingKey: bindings.FLEET_SIGNING_KEY });
    const res = await client.call("GET", "/api/projects");
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe("unauthenticated");
  });
});
