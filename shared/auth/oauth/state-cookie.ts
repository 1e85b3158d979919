// Binds a started sign-in to the browser that started it (ASVS 10.1.2, OA-01: a `state` carried to another
// browser is refused, so nobody can sign a victim into the attacker's account by luring them to a callback URL).
// Host-only, scoped to the provider's callback path, and gone after 10 minutes like the flow it names.
import { OAUTH_STATE_TTL_MS } from "./state-store";

export const STATE_COOKIE = "oc_oauth_state";

function callbackPath(providerId: string): string {
  return `/api/auth/${providerId}/callback`;
}

export function stateCookie(state: string, providerId: string): string {
  const maxAge = Math.floor(OAUTH_STATE_TTL_MS / 1000);
  return `${STATE_COOKIE}=${state}; Path=${callbackPath(providerId)}; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAge}`;
}

/** Clears the cookie once its flow is used (Expires in the past: every browser honours it). */
export function clearedStateCookie(providerId: string): string {
  return `${STATE_COOKIE}=; Path=${callbackPath(providerId)}; HttpOnly; Secure; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

/** Whether the browser's Cookie header holds `state` in a state cookie. */
export function browserStartedFlow(cookieHeader: string | undefined, state: string): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(";").some((part) => {
    const eq = part.indexOf("=");
    return eq > 0 && part.slice(0, eq).trim() === STATE_COOKIE && part.slice(eq + 1).trim() === state;
  });
}
