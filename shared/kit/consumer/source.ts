// Where every gate of the kit gets its sessions, one option shape for all of them (ocSession, requireStake,
// requireFresh, requireStepUp): the auth host's origin, from which the JWKS and the issuer derive (each may be
// overridden), or a verifier made once and shared so the JWKS cache is shared too.
import {
  type AuthOriginOptions,
  createSessionVerifier,
  type SessionVerifier,
  type SessionVerifierOptions,
} from "./session-verifier";

/** `{ authOrigin }` (with optional `jwksUrl`, `issuer` overrides), or `{ verifier }` from createSessionVerifier. */
export type SessionSource =
  | (AuthOriginOptions & { verifier?: SessionVerifier })
  | (Partial<AuthOriginOptions> & { verifier: SessionVerifier });

/** What a gate passes on to the verifier it makes when none is given. */
export type SessionSourceOptions = SessionSource & Pick<SessionVerifierOptions, "fetch" | "now">;

/** The verifier a gate's options name: the one given, or one made for authOrigin. */
export function verifierFor(name: string, options: SessionSourceOptions): SessionVerifier {
  if (options.verifier) return options.verifier;
  if (options.authOrigin === undefined) throw new TypeError(`${name}: give authOrigin or a verifier`);
  return createSessionVerifier({
    authOrigin: options.authOrigin,
    ...(options.jwksUrl !== undefined && { jwksUrl: options.jwksUrl }),
    ...(options.issuer !== undefined && { issuer: options.issuer }),
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.now && { now: options.now }),
  });
}
