// What the fleet's request log says of its caller (shared/http/request-log.ts): the kind identifyCaller resolved,
// and for a token its project (a token belongs to one project). A credential refused at identification is logged
// anonymous, beside the refusal's reason.
import type { Context } from "hono";
import type { CallerKind } from "../../../shared/http/request-line";
import type { FleetEnv } from "./env";

export function loggedCaller(c: Context<FleetEnv>): { kind: CallerKind; project?: string } | undefined {
  const caller = c.get("caller");
  if (!caller) return undefined;
  return caller.kind === "token" ? { kind: "token", project: caller.projectId } : { kind: "session" };
}
