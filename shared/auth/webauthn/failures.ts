// Why a WebAuthn answer was refused, as a tagged union, and its wire reason by one exhaustive switch. The library
// (@simplewebauthn/server) throws plain Errors whose messages are its only classification; they are read here, in
// one place, and never echoed (they can quote the challenge and whatever the client sent).
import type { Reason } from "../../errors";

export type WebAuthnFailure =
  | { kind: "origin" }
  | { kind: "rp_id" }
  | { kind: "user_verification" }
  | { kind: "user_presence" }
  | { kind: "signature" }
  | { kind: "counter" }
  | { kind: "algorithm" }
  | { kind: "attestation" }
  | { kind: "malformed" };

/**
 * The library's wording for each class, anchored at the start of its own text: some messages quote client-chosen
 * text (a `type`, a format), which must not pick the class. First match wins; anything else is malformed.
 */
const LIBRARY_MESSAGES: readonly [RegExp, WebAuthnFailure["kind"]][] = [
  [/^Unexpected (registration|authentication) response origin/, "origin"],
  [/^(Detected cross-origin|Unexpected cross-origin|Unexpected top origin)/, "origin"],
  [/^User verification (was )?required/, "user_verification"],
  [/^User (not present|presence was required)/, "user_presence"],
  [/^Response counter value/, "counter"],
  [/^(Unexpected public key alg|Credential public key was missing numeric alg)/, "algorithm"],
  [/^(None attestation|Unsupported Attestation Format)/, "attestation"],
  [/\((Packed|FIDOU2F|TPM|Android Key|Apple|SafetyNet)\b/, "attestation"],
];

/** The library's thrown error as a failure (the RP ID mismatch is the one it names by class). */
export function classifyLibraryError(err: unknown): WebAuthnFailure {
  if (!(err instanceof Error)) return { kind: "malformed" };
  if (err.name === "UnexpectedRPIDHash") return { kind: "rp_id" };
  const match = LIBRARY_MESSAGES.find(([pattern]) => pattern.test(err.message));
  return { kind: match ? match[1] : "malformed" };
}

/** The table reason and the detail a person (or an integrator) reads for a refusal. */
export function failureReason(failure: WebAuthnFailure): { reason: Reason; detail: string } {
  switch (failure.kind) {
    case "origin":
      return { reason: "webauthn_response_invalid", detail: "the answer was made for another origin" };
    case "rp_id":
      return { reason: "webauthn_response_invalid", detail: "the answer was made for another RP ID" };
    case "user_verification":
      return { reason: "webauthn_response_invalid", detail: "user verification (PIN or biometrics) is required" };
    case "user_presence":
      return { reason: "webauthn_response_invalid", detail: "the key did not report a person present" };
    case "signature":
      return { reason: "webauthn_response_invalid", detail: "the signature does not verify" };
    case "counter":
      return { reason: "webauthn_counter_regressed", detail: "the signature counter did not increase" };
    case "algorithm":
      return { reason: "webauthn_response_invalid", detail: "the key's algorithm is not one this host accepts" };
    case "attestation":
      return { reason: "webauthn_response_invalid", detail: "the attestation statement does not verify" };
    case "malformed":
      return { reason: "webauthn_response_invalid", detail: "the answer is not a well-formed WebAuthn response" };
  }
}
