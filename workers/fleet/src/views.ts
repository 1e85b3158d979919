// Stored rows → the JSON the fleet answers with (times as ISO 8601 UTC; secrets never included).
import type { apiTokens, members } from "../../../shared/db/schema";
import { isoMs } from "../../../shared/time";
import type { ProjectRow, Role } from "./access";

export function projectView(p: ProjectRow) {
  return {
    id: p.id,
    name: p.name,
    owner_address: p.ownerAddress,
    archived: p.archivedAt !== null,
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

export function tokenView(t: typeof apiTokens.$inferSelect) {
  return {
    id: t.id,
    project_id: t.projectId,
    name: t.name,
    hint: t.hint,
    expires_at: isoMs(t.expiresAt),
    revoked: t.revokedAt !== null,
    last_used_at: t.lastUsedAt === null ? null : isoMs(t.lastUsedAt),
    created_at: isoMs(t.createdAt),
  };
}
