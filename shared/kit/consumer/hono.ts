// Hono middleware for a consumer site (Workers, Bun, Node): verifies the request's oc_session cookie or bearer
// token with a session verifier and sets `c.var.session` (the typed claims). Required by default (401
// `{ok:false, reason:"not_authenticated"}`); `{ optional: true }` lets anonymous requests through.
import type { MiddlewareHandler } from "hono";
import { asVerifier, decideSession } from "./gate";
import type { SessionClaims, SessionFailure, SessionVerifier, SessionVerifierOptions } from "./session-verifier";

export interface SessionVariables {
  /** The verified claims, or undefined on an anonymous request in optional mode. */
  session: SessionClaims | undefined;
  /** Why the request is anonymous (optional mode), e.g. "no_token", "expired". */
  sessionFailure: SessionFailure | undefined;
}

export interface SessionMiddlewareOptions {
  /** Let requests without a valid session through with `c.var.session` undefined. */
  optional?: boolean;
}

/**
 * `app.use("/account/*", ocSession({ jwksUrl, issuer }))`. Pass a verifier (not options) when several middlewares
 * share one, so the JWKS cache is shared too. Create it at module scope so it lives as long as the isolate.
 */
export function ocSession(
  verifier: SessionVerifier | SessionVerifierOptions,
  options: SessionMiddlewareOptions = {},
): MiddlewareHandler<{ Variables: SessionVariables }> {
  const v = asVerifier(verifier);
  return async (c, next) => {
    const decision = await decideSession(v, c.req.raw.headers, options.optional ?? false);
    const { refusal } = decision;
    if (refusal) return new Response(refusal.body, { status: refusal.status, headers: refusal.headers });
    c.set("session", decision.session);
    c.set("sessionFailure", decision.failure);
    await next();
  };
}
