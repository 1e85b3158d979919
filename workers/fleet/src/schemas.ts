// Named request and response schemas of the fleet registry (validation and the OpenAPI description).
import { z } from "@hono/zod-openapi";
import { PLACE } from "../../../shared/db/registry-shards";
import { displayText } from "../../../shared/text";
import { ID_PATTERNS } from "./ids";
import { PageQuery } from "./pagination";
import { ROLES, TOKEN_SCOPES } from "./roles";

const Name = displayText(100);
export const Address = z
  .string()
  .min(14)
  .max(90)
  .regex(/^[A-Za-z0-9]+$/, "must be a Bitcoin address");

export const ProjectId = z.string().regex(ID_PATTERNS.project, "must be proj_ followed by 24 lowercase hex");
export const MemberId = z.string().regex(ID_PATTERNS.member, "must be mem_ followed by 24 lowercase hex");
export const TokenId = z.string().regex(ID_PATTERNS.token, "must be tok_ followed by 24 lowercase hex");
export const Role = z.enum(ROLES);

export const IdParam = <T extends z.ZodString>(schema: T) => z.object({ id: schema });

export const ProjectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    owner_address: z.string(),
    location: z.string().openapi({
      description:
        "Where the project's registry database is: a D1 location hint (e.g. `weur`), a jurisdiction (`eu`), or `default`",
    }),
    archived: z.boolean(),
    log_public: z.boolean().openapi({
      description: "Whether anyone may read the project's log (PUT /api/projects/{id}/log-visibility)",
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Project");

export const MemberSchema = z
  .object({ id: z.string(), project_id: z.string(), address: z.string(), role: Role, created_at: z.string() })
  .openapi("Member");

export const TokenSchema = z
  .object({
    id: z.string(),
    project_id: z.string(),
    name: z.string(),
    hint: z.string(),
    scope: z.enum(TOKEN_SCOPES).openapi({ description: "owner (the default), register (envelopes and reads) or read" }),
    created_by: z.string().openapi({ description: "The owner the token acts as; it works only while they own" }),
    status: z.enum(["active", "revoked", "expired", "creator_not_owner"]),
    expires_at: z.string(),
    revoked: z.boolean(),
    last_used_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("ApiToken");

export const ListQuery = z.strictObject({ ...PageQuery });
export const ProjectListQuery = z.strictObject({ project_id: ProjectId, ...PageQuery });

export const ProjectCreate = z
  .strictObject({
    name: Name,
    location: z.string().regex(PLACE, "must be a place name").optional().openapi({
      description: "One of the places this registry has databases in (GET /dashboard/config.json); default: the first",
    }),
  })
  .openapi("ProjectCreate");
export const ProjectPatch = z.strictObject({ name: Name.optional() }).openapi("ProjectPatch");
export const TransferBody = z.strictObject({ address: Address }).openapi("ProjectTransfer");
export const MemberCreate = z
  .strictObject({ project_id: ProjectId, address: Address, role: Role })
  .openapi("MemberCreate");
export const MemberInvite = z.strictObject({ address: Address, role: Role }).openapi("MemberInvite");
export const MemberPatch = z.strictObject({ role: Role.optional() }).openapi("MemberPatch");
export const TokenCreate = z
  .strictObject({
    project_id: ProjectId,
    name: Name,
    expires_at: z.iso.datetime({ offset: false }).optional(),
    scope: z.enum(TOKEN_SCOPES).optional(),
  })
  .openapi("TokenCreate");
export const TokenPatch = z
  .strictObject({ name: Name.optional(), revoked: z.boolean().optional() })
  .openapi("TokenPatch");

export const AdminLogQuery = z.strictObject({
  project_id: ProjectId,
  limit: PageQuery.limit,
  before: z
    .string()
    .regex(/^\d{1,15}$/, "must be a log sequence number")
    .transform(Number)
    .optional(),
  event_type: z.string().max(64).optional(),
});

export const AdminLogEntry = z
  .object({
    seq: z.number().int(),
    project_id: z.string(),
    actor: z.string(),
    event_type: z.string(),
    target_id: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
  })
  .openapi("AdminLogEntry");

export const okWith = <T extends z.ZodRawShape>(shape: T) => z.object({ ok: z.literal(true), ...shape });
export const listOf = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z
    .object({ ok: z.literal(true), next_cursor: z.string().nullable() })
    .extend({ [key]: z.array(item) } as Record<K, z.ZodArray<T>>);
