// Reading an `orangecheck-auth` challenge answer (GET and POST /api/challenge), pure. Hosts disagree on `expiresAt`:
// this one (and service-spec.md) sends ISO 8601 with milliseconds; the published SDKs read unix milliseconds and
// the OrangeCheck host sends that, with the ISO form beside it as `expiresAtIso`. Both are read here, so code built
// on the kit works against either host (docs/compat.md, "Challenge expiresAt").
import { utcInstant } from "../../time";

/** A challenge to sign, with its expiry in both forms whatever the host sent. */
export interface IssuedChallenge {
  message: string;
  nonce: string;
  /** Unix milliseconds. */
  expiresAt: number;
  /** ISO 8601 UTC with milliseconds. */
  expiresAtIso: string;
}

/** A verified challenge (POST answered ok true). The host may omit the echoed fields. */
export interface VerifiedChallenge {
  address: string;
  nonce?: string;
  expiresAt?: number;
  audience?: string;
  purpose?: string;
}

/** A reader's failure: the answer lacks what a challenge (or a verdict) must hold; `detail` names the field. */
export type ReadFailure = { ok: false; reason: "malformed"; detail: string };

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;
const DIGITS = /^\d{1,16}$/;

/**
 * Epoch milliseconds of an expiry as a host wrote it: a number or a string of digits (unix ms, the SDKs' form),
 * or an ISO 8601 UTC string (this host's form). Anything else, or a date that does not exist, is undefined.
 */
export function expiryMs(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  if (DIGITS.test(value)) return Number(value);
  const match = ISO_UTC.exec(value);
  return match ? utcInstant(match) : undefined;
}

function record(body: unknown): Record<string, unknown> | undefined {
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

/** The expiry of an answer: `expiresAt` in either form, else `expiresAtIso`. */
function answerExpiry(fields: Record<string, unknown>): number | undefined {
  return expiryMs(fields.expiresAt) ?? expiryMs(fields.expiresAtIso);
}

/** The answer of `GET /api/challenge`. */
export function readChallenge(body: unknown): { ok: true; challenge: IssuedChallenge } | ReadFailure {
  const fields = record(body);
  if (!fields) return { ok: false, reason: "malformed", detail: "not a JSON object" };
  const { message, nonce } = fields;
  if (typeof message !== "string" || message === "") return { ok: false, reason: "malformed", detail: "message" };
  if (typeof nonce !== "string" || nonce === "") return { ok: false, reason: "malformed", detail: "nonce" };
  const expiresAt = answerExpiry(fields);
  if (expiresAt === undefined) return { ok: false, reason: "malformed", detail: "expiresAt" };
  return { ok: true, challenge: { message, nonce, expiresAt, expiresAtIso: new Date(expiresAt).toISOString() } };
}

/** The `ok: true` answer of `POST /api/challenge`; echoed fields that are absent or unreadable are left out. */
export function readVerifiedChallenge(body: unknown): { ok: true; verified: VerifiedChallenge } | ReadFailure {
  const fields = record(body);
  if (fields?.ok !== true) return { ok: false, reason: "malformed", detail: "not an ok answer" };
  const { address, nonce, audience, purpose } = fields;
  if (typeof address !== "string" || address === "") return { ok: false, reason: "malformed", detail: "address" };
  const expiresAt = answerExpiry(fields);
  return {
    ok: true,
    verified: {
      address,
      ...(typeof nonce === "string" && { nonce }),
      ...(typeof audience === "string" && { audience }),
      ...(typeof purpose === "string" && { purpose }),
      ...(expiresAt !== undefined && { expiresAt }),
    },
  };
}
