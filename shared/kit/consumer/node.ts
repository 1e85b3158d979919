// Node middleware for a consumer site: Express/Connect style `(req, res, next)` and a plain `node:http` handler
// wrapper. Verifies the oc_session cookie or bearer token and sets `req.session` (the typed claims); required by
// default (401 `{ok:false, reason:"not_authenticated"}`), `{ optional: true }` lets anonymous requests through.
// Typed structurally, so it needs neither @types/node nor @types/express.
import { asVerifier, decideSession } from "./gate";
import type { SessionClaims, SessionFailure, SessionVerifier, SessionVerifierOptions } from "./session-verifier";

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

/** Sets req.session; true when the request may go on (verified, or optional mode), else answers the 401. */
async function authenticate(
  verifier: SessionVerifier,
  req: NodeRequestLike,
  res: NodeResponseLike,
  optional: boolean,
): Promise<boolean> {
  const decision = await decideSession(verifier, req.headers, optional);
  req.session = decision.session;
  req.sessionFailure = decision.failure;
  const { refusal } = decision;
  if (!refusal) return true;
  res.statusCode = refusal.status;
  for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
  res.end(refusal.body);
  return false;
}

/** Express / Connect: `app.use(ocSession({ jwksUrl, issuer }))`; errors go to `next(err)`. */
export function ocSession(verifier: SessionVerifier | SessionVerifierOptions, options: NodeSessionOptions = {}) {
  const v = asVerifier(verifier);
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
  const v = asVerifier(verifier);
  return async (req: Req, res: Res): Promise<void> => {
    if (await authenticate(v, req, res, options.optional ?? false)) await handler(req, res);
  };
}
