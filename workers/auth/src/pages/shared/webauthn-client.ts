// The browser half of hardware keys, for any page of this host (the sign-in page's passkey button, the account
// security page's keys): options from this host's JSON API (./api.ts), the ceremony through @simplewebauthn/browser
// (which turns the JSON options into navigator.credentials calls and the answer back into JSON), the answer posted
// back. Only one ceremony runs at a time: starting one aborts the one in flight (the passkey autofill's, typically),
// which then reads as `cancelled`. Answers are the API's, so the pages' messages turn a refusal into the table's
// sentence.
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
  WebAuthnError,
} from "@simplewebauthn/browser";
import { api } from "./api";

/** Why the browser's side of a ceremony ended without an answer to post. */
export type CeremonyFailure = "cancelled" | "unsupported" | "failed";

export type Answer<T> =
  | { ok: true; body: T }
  | {
      ok: false;
      status: number;
      reason: string | undefined;
      ceremony?: CeremonyFailure;
      /** False when the host refused the options: no ceremony was started. */
      started?: false;
    };

/** A key as GET /api/auth/webauthn/credentials lists it. */
export interface Key {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  device_type: string;
  backed_up: boolean;
}

/** The browser's refusal as an answer: a dismissed prompt, a timeout or an abort is `cancelled`. */
function ceremonyFailed(err: unknown): Answer<never> {
  if (err instanceof WebAuthnError && err.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED")
    return { ok: false, status: 409, reason: "webauthn_already_registered" };
  const name = err instanceof WebAuthnError && err.cause instanceof Error ? err.cause.name : (err as Error)?.name;
  const cancelled = name === "AbortError" || name === "NotAllowedError";
  return { ok: false, status: 0, reason: undefined, ceremony: cancelled ? "cancelled" : "failed" };
}

const UNSUPPORTED: Answer<never> = { ok: false, status: 0, reason: undefined, ceremony: "unsupported" };

export const supportsKeys = (): boolean => browserSupportsWebAuthn();
export const supportsAutofill = (): Promise<boolean> => browserSupportsWebAuthnAutofill();

/** Registers a new key (or passkey) on the active account; `name` labels it. */
export async function registerKey(name?: string): Promise<Answer<{ key: Key }>> {
  if (!supportsKeys()) return UNSUPPORTED;
  const asked = await api<{ options: Parameters<typeof startRegistration>[0]["optionsJSON"] }>(
    "POST",
    "/api/auth/webauthn/register/options",
  );
  if (!asked.ok) return asked;
  let response: Awaited<ReturnType<typeof startRegistration>>;
  try {
    response = await startRegistration({ optionsJSON: asked.body.options });
  } catch (err) {
    return ceremonyFailed(err);
  }
  return api("POST", "/api/auth/webauthn/register", { response, ...(name && { name }) });
}

type RequestOptions = Parameters<typeof startAuthentication>[0]["optionsJSON"];

/** An assertion for the options at `optionsPath`, posted to `answerPath` with `extra`. */
async function assert<T>(
  optionsPath: string,
  answerPath: string,
  extra: Record<string, unknown>,
  autofill: boolean,
): Promise<Answer<T>> {
  if (!supportsKeys()) return UNSUPPORTED;
  const asked = await api<{ options: RequestOptions }>("POST", optionsPath);
  if (!asked.ok) return { ...asked, started: false };
  let response: Awaited<ReturnType<typeof startAuthentication>>;
  try {
    response = await startAuthentication({ optionsJSON: asked.body.options, useBrowserAutofill: autofill });
  } catch (err) {
    return ceremonyFailed(err);
  }
  return api("POST", answerPath, { response, ...extra });
}

/**
 * Signs in with a passkey the browser holds for this host. `autofill`: wait for the person to pick one in the
 * autofill of an `autocomplete="… webauthn"` field (conditional mediation) instead of opening a prompt now.
 */
export function passkeySignIn<T>(add: boolean, autofill = false): Promise<Answer<T>> {
  return assert("/api/auth/webauthn/signin/options", "/api/auth/webauthn/signin", { add }, autofill);
}

/** Confirms it is you with one of the active account's keys (refreshes the session's step_up_at). */
export function stepUp(): Promise<Answer<{ step_up_at: string }>> {
  return assert("/api/auth/webauthn/stepup/options", "/api/auth/webauthn/stepup", {}, false);
}

export const listKeys = () => api<{ keys: Key[] }>("GET", "/api/auth/webauthn/credentials");

export const renameKey = (id: string, name: string) =>
  api<{ key: Key }>("PATCH", `/api/auth/webauthn/credentials/${encodeURIComponent(id)}`, { name });

/** Revokes a key; when the host asks for a step-up first, runs it and tries once more. */
export async function revokeKey(id: string): Promise<Answer<{ ok: true }>> {
  const path = `/api/auth/webauthn/credentials/${encodeURIComponent(id)}`;
  const first = await api<{ ok: true }>("DELETE", path);
  if (first.ok || first.reason !== "step_up_required") return first;
  const stepped = await stepUp();
  return stepped.ok ? api("DELETE", path) : stepped;
}
