// Node middleware for a consumer site: Express/Connect style `(req, res, next)` and a plain `node:http` handler
// wrapper. Verifies the oc_session cookie or bearer token and sets `req.oc.session` (the typed claims; `req.oc`,
// never `req.session`, which express-session owns). Required by default: 401 `{ok:false, reason, detail}` with the
// reason ("session_missing", "session_expired", …); `{ optional: true }` lets anonymous requests through.
// Typed structurally, so it needs neither @types/node nor @types/express; with @types/express, `req.oc` is typed
// by the declaration below.
import { decideSession, type Refusal, sessionRefusal } from "./gate";
import type { SessionClaims } from "./session-verifier";
import { type SessionSourceOptions, verifierFor } from "./source";
import { nextState, type OcState } from "./state";

export type { OcState } from "./state";

declare global {
  namespace Express {
    interface Request {
      /** What the kit's gates found: `{ session, reason?, stake?, freshness? }` (@open-oc/kit). */
      oc?: OcState | undefined;
    }
  }
}

/** What is read from an IncomingMessage / Express request, and where the kit puts what it found. */
export interface NodeRequestLike {
  headers: Record<string, string | string[] | undefined>;
  oc?: OcState | undefined;
}

/** What is used of a ServerResponse / Express response. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

export type NodeSessionOptions = SessionSourceOptions & {
  /** Let requests without a valid session through with `req.oc.session` undefined. */
  optional?: boolean;
};

/** Writes a gate's refusal to a Node response (every Node gate of the kit answers this way). */
export function sendRefusal(res: NodeResponseLike, refusal: Refusal): void {
  res.statusCode = refusal.status;
  for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
  res.end(JSON.stringify(refusal.body));
}

type Verify = (req: NodeRequestLike, res: NodeResponseLike) => Promise<boolean>;

/** Sets req.oc; true when the request may go on (verified, or optional mode), else answers the refusal. */
function authenticate(options: NodeSessionOptions): Verify {
  const verifier = verifierFor("ocSession", options);
  return async (req, res) => {
    const decision = await decideSession(verifier, req.headers);
    req.oc = nextState(req.oc, { session: decision.session, reason: decision.ok ? undefined : decision.reason });
    if (decision.ok || options.optional) return true;
    sendRefusal(res, sessionRefusal(decision.reason));
    return false;
  };
}

/** Express / Connect: `app.use(ocSession({ authOrigin }))`, then `req.oc?.session`; errors go to `next(err)`. */
export function ocSession(options: NodeSessionOptions) {
  const verify = authenticate(options);
  return (req: NodeRequestLike, res: NodeResponseLike, next: (err?: unknown) => void): void => {
    verify(req, res).then(
      (go) => {
        if (go) next();
      },
      (err) => next(err),
    );
  };
}

/** node:http: `http.createServer(withSession({ authOrigin }, (req, res) => …))`; the handler sees req.oc. */
export function withSession<Req extends NodeRequestLike, Res extends NodeResponseLike>(
  options: NodeSessionOptions,
  handler: (req: Req & { oc: OcState & { session?: SessionClaims | undefined } }, res: Res) => unknown,
) {
  const verify = authenticate(options);
  return async (req: Req, res: Res): Promise<void> => {
    if (await verify(req, res)) await handler(req as Req & { oc: OcState }, res);
  };
}
