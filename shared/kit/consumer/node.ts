// Node middleware for a consumer site: Express/Connect style `(req, res, next)` and a plain `node:http` handler
// wrapper. Verifies the oc_session cookie or bearer token and sets `req.session` (the typed claims); required by
// default (401 `{ok:false, reason:"not_authenticated"}`), `{ optional: true }` lets anonymous requests through.
// Typed structurally, so it needs neither @types/node nor @types/express.
import {
  createSessionVerifier,
  type SessionClaims,
  type SessionFailure,
  type SessionVerifier,
  type SessionVerifierOptions,
} from "./session-verifier";

/** What is read from an IncomingMessage / Express request. */
export interface NodeRequestLike {
  headers: Record<string, string | string[] | undefined>;
  session?: SessionClaims | undefined;
  sessionFailure?: SessionFailure | undefined;
}

/** What is used of a ServerResponse / Express response. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

export interface NodeSessionOptions {
  optional?: boolean;
}

function toVerifier(verifier: SessionVerifier | SessionVerifierOptions): SessionVerifier {
  return "verify" in verifier ? verifier : createSessionVerifier(verifier);
}

function refuse(res: NodeResponseLike): void {
  res.statusCode = 401;
  res.setHeader("content-type", "application/json");
  res.setHeader("cache-control", "no-store");
  res.end(JSON.stringify({ ok: false, reason: "not_authenticated" }));
}

/** Sets req.session; true when the request may go on (verified, or optional mode). */
async function authenticate(
  verifier: SessionVerifier,
  req: NodeRequestLike,
  res: NodeResponseLike,
  optional: boolean,
): Promise<boolean> {
  const result = await verifier.verifyRequest(req.headers);
  req.session = result.ok ? result.claims : undefined;
  req.sessionFailure = result.ok ? undefined : result.reason;
  if (result.ok || optional) return true;
  refuse(res);
  return false;
}

/** Express / Connect: `app.use(ocSession({ jwksUrl, issuer }))`; errors go to `next(err)`. */
export function ocSession(verifier: SessionVerifier | SessionVerifierOptions, options: NodeSessionOptions = {}) {
  const v = toVerifier(verifier);
  return (req: NodeRequestLike, res: NodeResponseLike, next: (err?: unknown) => void): void => {
    authenticate(v, req, res, options.optional ?? false).then(
      (go) => {
        if (go) next();
      },
      (err) => next(err),
    );
  };
}

/** node:http: `http.createServer(withSession(verifier, (req, res) => …))`; the handler sees req.session. */
export function withSession<Req extends NodeRequestLike, Res extends NodeResponseLike>(
  verifier: SessionVerifier | SessionVerifierOptions,
  handler: (req: Req & { session?: SessionClaims }, res: Res) => unknown,
  options: NodeSessionOptions = {},
) {
  const v = toVerifier(verifier);
  return async (req: Req, res: Res): Promise<void> => {
    if (await authenticate(v, req, res, options.optional ?? false)) await handler(req, res);
  };
}
