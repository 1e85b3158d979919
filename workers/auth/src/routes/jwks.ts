// The public signing keys, for consumers that verify oc_session locally (no call back to this host).
import { createRoute } from "@hono/zod-openapi";
import { parsePreviousKeys, publishedJwk } from "../../../../shared/crypto/signing-key";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { errorResponses, JwksSchema, json } from "../schemas";
import { verificationKeys } from "../session-context";

/** Consumers may cache the key set this long; a rotation keeps the old key published for longer than this. */
export const JWKS_MAX_AGE_SECONDS = 300;

export const jwksRoutes = routeGroup<AuthEnv>();

for (const path of ["/api/auth/jwks", "/.well-known/jwks.json"]) {
  jwksRoutes.openapi(
    createRoute({
      method: "get",
      path,
      summary: "The Ed25519 public keys (JWKS) that verify oc_session tokens",
      responses: { 200: json(JwksSchema, "The key set"), ...errorResponses("signing_key_unset") },
    }),
    async (c) => {
      c.header("Cache-Control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
      c.header("Access-Control-Allow-Origin", "*");
      // Session keys first; published keys (the fleet's audit key) are marked `oc_use: "audit"`, so a consumer (and
      // the fleet) never lets them verify a session.
      const session = (await verificationKeys(c.env)).map((k) => publishedJwk(k, "session"));
      const published = parsePreviousKeys(c.env.PUBLISHED_KEYS).map((k) => publishedJwk(k, "audit"));
      return c.json({ keys: [...session, ...published] }, 200);
    },
  );
}
