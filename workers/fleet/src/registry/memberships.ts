// A session's role in a project, as registrations see it: this isolate keeps the roles it has read, so a warm
// registration reads none. A kept role is a guess the write re-checks in its own transaction (`stillMember`): a
// member removed or demoted since is refused there, and the entry is forgotten. Only roles read from D1 are kept,
// so an address that never was a member always costs a read and is refused before it touches any bucket.
import { and, eq } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { members } from "../../../../shared/db/schema";
import { ROLES, type Role } from "../roles";
import { type Condition, memberIn } from "./conditions";

const MAX_ENTRIES = 4096;
const roles = new Map<string, Role>();
const keyOf = (projectId: string, address: string) => `${projectId}\n${address}`;

const isRole = (value: string | undefined): value is Role => ROLES.some((r) => r === value);

/** The address's role in the project; `kept` when it came from this isolate rather than a read. */
export async function memberRole(
  db: Db,
  projectId: string,
  address: string,
): Promise<{ role: Role; kept: boolean } | undefined> {
  const key = keyOf(projectId, address);
  const kept = roles.get(key);
  if (kept) return { role: kept, kept: true };
  const row = await db
    .select({ role: members.role })
    .from(members)
    .where(and(eq(members.projectId, projectId), eq(members.address, address)))
    .get();
  if (!isRole(row?.role)) return undefined;
  if (roles.size >= MAX_ENTRIES) roles.delete(roles.keys().next().value as string);
  roles.set(key, row.role);
  return { role: row.role, kept: false };
}

/** The write's conditions: still a member (else 404), still in one of `allowed` (else 403 role_forbidden). */
export function stillMember(projectId: string, address: string, allowed: readonly Role[]): Condition[] {
  const forget = () => roles.delete(keyOf(projectId, address));
  return [
    { ...memberIn(projectId, address, ROLES), onFail: forget },
    { ...memberIn(projectId, address, allowed), reason: "role_forbidden", onFail: forget },
  ];
}
