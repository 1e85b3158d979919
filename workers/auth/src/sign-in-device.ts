// The browser a sign-in comes from (issue 46): its User-Agent and approximate place go on the session row (the
// devices list), and its `oc_device` cookie (a random value kept for 400 days, host-only, never sent to another
// host) says whether the account has seen it. A sign-in from a browser the account has not signed in from within 90
// days is told to every address, except a recovery sign-in, which is told already (one mail per event).
import type { Context } from "hono";
import { randomToken, sha256Hex } from "../../../shared/crypto/digest";
import { orm } from "../../../shared/db/client";
import { noteDevice } from "../../../shared/db/devices";
import type { AuthMethod } from "../../../shared/db/sessions";
import { newDeviceMail } from "./account-notices";
import { keptUserAgent, placeOf } from "./device-label";
import type { AuthEnv } from "./env";
import { tellAccount } from "./tell-account";

export const DEVICE_COOKIE = "oc_device";
/** The longest a browser keeps a cookie (Chrome caps Max-Age at 400 days). */
const DEVICE_COOKIE_MAX_AGE = 400 * 24 * 60 * 60;
const DEVICE_VALUE = /^[A-Za-z0-9_-]{20,64}$/;

/** The User-Agent and place a new session row keeps. */
export function signInDevice(c: Context<AuthEnv>): { userAgent: string | null; place: string | null } {
  return { userAgent: keptUserAgent(c.req.header("user-agent")), place: placeOf(c.req.raw.cf) };
}

/** This browser's device value: the cookie's when well formed, else a new one set on the answer. */
function deviceValue(c: Context<AuthEnv>): string {
  for (const part of (c.req.header("cookie") ?? "").split(";")) {
    const [name, value] = part.trim().split("=");
    if (name === DEVICE_COOKIE && value && DEVICE_VALUE.test(value)) return value;
  }
  const fresh = randomToken(24);
  const cookie = `${DEVICE_COOKIE}=${fresh}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${DEVICE_COOKIE_MAX_AGE}`;
  c.header("Set-Cookie", cookie, { append: true });
  return fresh;
}

/** Notes the sign-in's browser for the account; mails every address when it is one not seen before. */
export async function noteSignInDevice(
  c: Context<AuthEnv>,
  accountId: string,
  method: AuthMethod,
  now: number,
): Promise<void> {
  const hash = await sha256Hex(deviceValue(c));
  const isNew = await noteDevice(orm(c.env.DB), accountId, hash, now);
  if (isNew && method !== "recovery") await tellAccount(c, accountId, (to) => newDeviceMail(to, method, now));
}
