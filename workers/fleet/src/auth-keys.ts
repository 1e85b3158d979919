// The auth host's session keys as this isolate holds them (shared/auth/jwks-keys.ts decides when to read): the
// AUTH_PUBLIC_KEYS variable, if set, is the starting set, and the JWKS read through the AUTH binding adds to it, so
// a rotated session key is accepted on its first token without editing the variable.
import { configuredSessionKeys, cookieKids, createJwksKeys } from "../../../shared/auth/jwks-keys";
import type { PublicJwk } from "../../../shared/crypto/signing-key";
import { AppError } from "../../../shared/errors";
import type { FleetBindings } from "./env";

const held = createJwksKeys();

async function readJwks(env: Pick<FleetBindings, "AUTH" | "AUTH_ORIGIN">): Promise<unknown> {
  const res = await env.AUTH.fetch(new Request(`${env.AUTH_ORIGIN}/api/auth/jwks`));
  if (!res.ok) return undefined;
  return ((await res.json()) as { keys?: unknown }).keys;
}

/** The keys that may verify the request's session cookies; 401 when the cookies name keys and none was ever read. */
export async function sessionKeys(
  env: Pick<FleetBindings, "AUTH" | "AUTH_ORIGIN" | "AUTH_PUBLIC_KEYS">,
  cookieHeader: string | undefined,
  now: number,
): Promise<PublicJwk[]> {
  const kids = cookieKids(cookieHeader);
  const configured = configuredSessionKeys(env.AUTH_PUBLIC_KEYS);
  const keys = await held.keysFor(kids, configured, now, () => readJwks(env));
  if (keys.length === 0 && kids.length > 0) {
    throw new AppError("unauthenticated", { detail: "auth host keys unavailable" });
  }
  return keys;
}
