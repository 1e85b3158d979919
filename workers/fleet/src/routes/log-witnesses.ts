// The log screen's view of the witnesses (issue 48; docs/log.md "Witnesses"): for each configured witness, the size
// it last cosigned for the project's log, whether that is the checkpoint served now, and its last problem in plain
// codes (a fork or rollback signal, a refusal, no answer) with the sizes involved. Project members and the
// project's tokens read it, as the rest of the log; a malformed LOG_WITNESSES is said here, not as a 500.
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { splitNote } from "../../../../shared/tlog/note";
import { routeGroup } from "../../../../shared/validate";
import { projectAccess } from "../access";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { readState } from "../log/store";
import { witnessesOf } from "../log/witness/config";
import { freshState } from "../log/witness/state";
import { readWitnessStates } from "../log/witness/store";
import { ProjectId } from "../schemas";

export const logWitnessRoutes = routeGroup<FleetEnv>();

const Problem = z.object({
  reason: z.enum(["witness_conflict", "witness_refused", "witness_unreachable", "cosignature_invalid"]).openapi({
    description:
      "witness_conflict: the witness holds a larger tree, or one at its size our log is not consistent with (a fork " +
      "or rollback signal); witness_refused: it refused the checkpoint otherwise (it may not know this log or its " +
      "key); witness_unreachable: no answer in time; cosignature_invalid: its answer held no valid cosignature",
  }),
  checkpoint_size: z.number().int(),
  witness_size: z.number().int().nullable(),
  at: z.number().int(),
});

const WitnessView = z.object({
  name: z.string(),
  vkey: z.string(),
  cosigned_size: z.number().int().nullable(),
  cosigned_at: z.number().int().nullable(),
  current: z.boolean().openapi({ description: "It cosigned exactly the checkpoint served now" }),
  problem: Problem.nullable(),
  next_attempt_at: z.number().int().nullable(),
});

logWitnessRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/log/witnesses",
    summary: "The project's log as its witnesses saw it: each one's last cosigned size and last problem",
    middleware: [routeLimit("log-witnesses")],
    request: { query: z.strictObject({ project_id: ProjectId }) },
    responses: {
      200: json(
        z.object({
          ok: z.literal(true),
          size: z.number().int(),
          configuration_error: z.string().nullable(),
          witnesses: z.array(WitnessView),
        }),
        "The witnesses (times in ms)",
      ),
      ...errorResponses("invalid_query", "unauthenticated", "not_found"),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    const list = witnessesOf(c.env);
    const configured = list.ok ? list.witnesses : [];
    const [state, states] = await Promise.all([
      readState(access.db, project_id),
      configured.length > 0 ? readWitnessStates(access.db, project_id) : new Map(),
    ]);
    const text = state && splitNote(state.checkpoint)?.text;
    const witnesses = configured.map((w) => {
      const s = states.get(w.name) ?? freshState(w.name);
      return {
        name: w.name,
        vkey: w.vkey,
        cosigned_size: s.cosignedSize,
        cosigned_at: s.cosignedAt,
        current: text !== undefined && s.checkpoint === text,
        problem:
          s.problem && s.problemSize !== null && s.problemAt !== null
            ? { reason: s.problem, checkpoint_size: s.problemSize, witness_size: s.witnessSize, at: s.problemAt }
            : null,
        next_attempt_at: s.problem ? s.retryAt : null,
      };
    });
    const configuration_error = list.ok ? null : list.error;
    return c.json({ ok: true as const, size: state?.size ?? 0, configuration_error, witnesses }, 200, {
      "Cache-Control": "no-store",
    });
  },
);
