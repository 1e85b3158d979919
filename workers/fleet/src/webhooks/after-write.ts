// After a registration answers 201, its event is fanned out and delivered in the background (waitUntil), so the
// client does not wait for receivers; the cron sweep catches anything this misses.
import type { MiddlewareHandler } from "hono";
import type { FleetEnv } from "../env";
import { dispatch } from "./dispatch";

export const dispatchAfterWrite: MiddlewareHandler<FleetEnv> = async (c, next) => {
  await next();
  if (c.req.method === "POST" && c.res.status === 201) {
    c.executionCtx.waitUntil(
      dispatch(c.env).catch((err: unknown) => console.error("webhook dispatch failed", { error: String(err) })),
    );
  }
};
