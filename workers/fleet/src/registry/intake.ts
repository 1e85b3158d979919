// What every registration route does first: validated body, project write access (member or above), the
// envelope's bytes exactly as sent, and the session address that rules 4 and 8 compare against.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError, type Reason } from "../../../../shared/errors";
import { rawMember } from "../../../../shared/http/raw-json";
import { type Access, atLeast, projectAccess } from "../access";
import type { FleetEnv } from "../env";
import { ProjectId } from "../schemas";

export const RegistrationBody = z
  .strictObject({ project_id: ProjectId, envelope: z.record(z.string(), z.unknown()) })
  .openapi("RegistrationRequest");

/** The reasons every registration route can answer with (the OpenAPI description lists them per route). */
export const REGISTRATION_ERRORS: Reason[] = [
  "invalid_body",
  "malformed_json",
  "canonicalization_failed",
  "id_mismatch",
  "malformed_signature",
  "envelope_signature_invalid",
  "unauthenticated",
  "not_found",
  "already_registered",
  "rate_limited",
];

export interface Intake {
  access: Access;
  /** The envelope's bytes as received (stored, exported and delivered unchanged). */
  raw: string;
  /** The session address, or for a bearer token the owner's who created it (DECISIONS 28, 12). */
  sessionAddress: string;
}

/** `withRaw: false` for bodies that carry no envelope of their own (the flat action form). */
export async function intake(c: Context<FleetEnv>, projectId: string, withRaw = true): Promise<Intake> {
  const access = await projectAccess(c, projectId, { write: true });
  atLeast(access, "member");
  const raw = withRaw ? rawMember(await c.req.text(), "envelope") : "";
  if (raw === undefined) throw new AppError("invalid_body", { detail: "envelope: required" });
  const sessionAddress = access.caller.address;
  if (!sessionAddress) throw new AppError("role_forbidden", { detail: "registering needs a Bitcoin account" });
  return { access, raw, sessionAddress };
}

/** Turns a library refusal into the spec's error envelope; the OC code, when any, leads the detail. */
export function refuse(failure: { reason: Reason; detail: string }): never {
  throw new AppError(failure.reason, { detail: failure.detail });
}
