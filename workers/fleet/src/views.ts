// Stored rows → the JSON the fleet answers with (times as ISO 8601 UTC; secrets never included).
import type { apiTokens, members } from "../../../shared/db/schema";
import { isoMs } from "../../../shared/time";
import type { ProjectRow } from "./access";
import { type Role, storedScope } from "./roles";

/** `place`: where the project's registry database is (its shard's place, registry/shards.ts). */
export function projectView(p: ProjectRow, place: string) {
  return {
    id: p.id,
    name: p.name,
    owner_address: p.ownerAddress,
    location: place,
    archived: p.archivedAt !== null,
    log_public: p.logPublicAt !== null,
    created_at: isoMs(p.createdAt),
    updated_at: isoMs(p.updatedAt),
  };
}

export function memberView(m: typeof members.$inferSelect) {
  return {
    id: m.id,
    project_id: m.projectId,
    address: m.address,
    role: m.role as Role,
    created_at: isoMs(m.createdAt),
  };
}

/** Whether a token works now, and if not, why (the first that applies). */
export function tokenStatus(t: typeof apiTokens.$inferSelect, creatorRole: string | null, now: number) {
  if (t.revokedAt !== null) return "revoked" as const;
  if (t.expiresAt <= now) return "expired" as const;
  if (creatorRole !== "owner") return "creator_not_owner" as const;
  return "active" as const;
}

export function tokenView(t: typeof apiTokens.$inferSelect, creatorRole: string | null, now: number) {
  return {
    id: t.id,
    project_id: t.projectId,
    name: t.name,
    hint: t.hint,
    scope: storedScope(t.scope),
    created_by: t.createdBy,
    status: tokenStatus(t, creatorRole, now),
    expires_at: isoMs(t.expiresAt),
    revoked: t.revokedAt !== null,
    last_used_at: t.lastUsedAt === null ? null : isoMs(t.lastUsedAt),
    created_at: isoMs(t.createdAt),
  };
}
