// Whether a request carries a credential, before it is checked: such a request decides who the caller is at the
// primary (shared/db/read-replicas.ts, issue 26). A malformed bearer counts as none (service-spec Authentication 3).
import type { Context } from "hono";
import { readSessionCookies } from "../../../shared/auth/cookie";
import { hasBearer } from "./caller";

export function hasCredential(c: Context): boolean {
  return hasBearer(c) || readSessionCookies(c.req.header("cookie")).length > 0;
}
