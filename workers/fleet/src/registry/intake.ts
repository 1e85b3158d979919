// What every registration route does first: validated body, project write access (member or above), the
// envelope's bytes exactly as sent, and the session address that rules 4 and 8 compare against. With the kept
// parents, tokens and memberships (parents.ts, caller.ts, memberships.ts) and the conditional write (store.ts), a
// warm registration costs one D1 round trip with a token (the batch) and two with a session (its row, the batch).
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { Db } from "../../../../shared/db/client";
import { AppError, errorResponse, type Reason } from "../../../../shared/errors";
import { rawMember } from "../../../../shared/http/raw-json";
import { noteRefusal } from "../../../../shared/http/request-log";
import { atLeast } from "../access";
import { forgetToken, requireCaller } from "../caller";
import type { FleetEnv } from "../env";
import { takeProjectToken } from "../limits";
import { ROLES, scopeRole } from "../roles";
import { ProjectId } from "../schemas";
import { type Condition, firstFailing, projectWritable, tokenLive } from "./conditions";
import { memberRole, stillMember } from "./memberships";
import { forgetProjectShard, projectDb } from "./shards";

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
  "insert_failed",
];

export interface Intake {
  db: Db;
  /** What the registration's write must still find true (registry/conditions.ts): the caller's access. */
  conditions: Condition[];
  /** The envelope's bytes as received (stored, exported and delivered unchanged). */
  raw: string;
  /** The session address, or for a bearer token the owner's who created it (DECISIONS 28, 12). */
  sessionAddress: string;
}

const WRITERS = ROLES.slice(ROLES.indexOf("member"));

/**
 * Write access to the project, checked without a read where nothing can have changed: a token's project and scope
 * are fixed at creation, so it only needs the write's conditions (live, creator still an owner, project not
 * archived). A session's role comes from this isolate's memberships (read once), and the write re-checks it. `withRaw: false` for bodies that
 * carry no envelope of their own (the flat action form).
 */
export async function intake(c: Context<FleetEnv>, projectId: string, withRaw = true): Promise<Intake> {
  const caller = requireCaller(c);
  if (caller.kind === "token" && caller.projectId !== projectId) throw new AppError("not_found");
  const db = await projectDb(c.env, projectId);
  let access: Condition[];
  let guessed: boolean;
  if (caller.kind === "token") {
    atLeast({ role: scopeRole(caller.scope) }, "member");
    // The token first: a dead token is answered 401 whatever else has changed, as a read of it would.
    const forget = () => forgetToken(caller.tokenHash);
    access = [{ ...tokenLive(caller, Date.now()), onFail: forget }, projectWritable(projectId)];
    guessed = caller.guessed;
  } else {
    const member = caller.address ? await memberRole(db, projectId, caller.address) : undefined;
    if (!member || !caller.address) throw new AppError("not_found");
    atLeast(member, "member");
    access = [projectWritable(projectId), ...stillMember(projectId, caller.address, WRITERS)];
    guessed = member.kept;
  }
  if (guessed) c.set("guessedAccess", { conditions: access, db, projectId });
  await takeProjectToken(c, projectId, caller, db);
  const raw = withRaw ? rawMember(await c.req.text(), "envelope") : "";
  if (raw === undefined) throw new AppError("invalid_body", { detail: "envelope: required" });
  const sessionAddress = caller.address;
  if (!sessionAddress) throw new AppError("role_forbidden", { detail: "registering needs a Bitcoin account" });
  return { db, conditions: [...access], raw, sessionAddress };
}

/**
 * Mounted before the routes: when a registration that took its access from this isolate's memory (a kept token
 * or role) is refused for any reason but 401, the access is read before the refusal is answered, and a lost access
 * answers instead. A caller whose token was revoked or who left the project learns nothing about the project's
 * envelopes from which refusal it gets; a caller whose access holds pays one read on a refusal, as before.
 */
export const confirmRefusedAccess: MiddlewareHandler<FleetEnv> = async (c, next) => {
  await next();
  const guessed = c.get("guessedAccess");
  if (!guessed || c.res.status < 400 || c.res.status === 401) return;
  const failing = await firstFailing(guessed.db, guessed.conditions);
  if (!failing) return;
  // The project is not where this isolate remembered it (moved): found again on the next request.
  if (failing.reason === "not_found") forgetProjectShard(guessed.projectId);
  failing.onFail?.();
  const refusal = new AppError(failing.reason, failing.detail ? { detail: failing.detail } : {});
  noteRefusal(c, refusal);
  c.res = errorResponse(refusal);
};

/** Turns a library refusal into the spec's error envelope; the OC code, when any, leads the detail. */
export function refuse(failure: { reason: Reason; detail: string }): never {
  throw new AppError(failure.reason, { detail: failure.detail });
}

/** Refuses with the check's reason unless it passed. */
export function mustHold(check: { ok: true } | { ok: false; reason: Reason; detail: string }): void {
  if (!check.ok) refuse(check);
}
