// Load shedding on the registration routes (issue 47, item 4): each registration passes this isolate's admission
// gate (gate.ts) before any other work (no caller lookup, no limiter call, no read), and one refused is answered
// 503 `overloaded` with Retry-After at once. Every other route passes untouched. Mounted in app.ts.
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../../../shared/errors";
import type { FleetEnv } from "../env";
import { AdmissionGate, shedLimits } from "./gate";

/** Every envelope registration route (POST): agent grants, actions, revocations, pledges and their resolutions. */
export const REGISTRATION_PATH =
  /^\/api\/(?:delegations(?:\/federation)?|subdelegations|actions|revocations|pledges|pledge-outcomes|pledge-abandonments|pledges\/[^/]+\/(?:outcome|abandon))$/;

/** Seconds a refused client should wait: the gate's queue is at most `budgetMs` long, so about one. */
export const SHED_RETRY_AFTER_S = 1;

/** This isolate's gate: what it holds is this isolate's own load, so it lives as long as the isolate. */
const gate = new AdmissionGate();

/** True for a request the gate judges: a POST to a registration route. */
export const isRegistration = (method: string, path: string) => method === "POST" && REGISTRATION_PATH.test(path);

export const shedRegistrations: MiddlewareHandler<FleetEnv> = async (c, next) => {
  if (!isRegistration(c.req.method, c.req.path)) return next();
  const limits = shedLimits({ maxInFlight: c.env.OVERLOAD_MAX_IN_FLIGHT, budgetMs: c.env.OVERLOAD_BUDGET_MS });
  const admission = gate.enter(Date.now(), limits);
  if (!admission.admitted) {
    throw new AppError("overloaded", { headers: { "Retry-After": String(SHED_RETRY_AFTER_S) } });
  }
  try {
    await next();
  } finally {
    gate.leave(admission.ticket, Date.now());
  }
};
