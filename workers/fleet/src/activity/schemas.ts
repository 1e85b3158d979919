// The activity routes' request and answer schemas (validation and the OpenAPI description; issue 30).
import { z } from "@hono/zod-openapi";
import { okWith } from "../schemas";
import { HEALTH } from "./health";
import { LATENCY_BOUNDS_MS } from "./latency";
import { KINDS } from "./series";
import { WINDOWS } from "./windows";

export const WindowQuery = {
  window: z.enum(WINDOWS).default("24h").openapi({
    description: "The last 24 hours by the hour (the default), or the last 7 or 30 days by the day; UTC",
  }),
};

const WindowShape = {
  window: z.enum(WINDOWS),
  bucket: z.enum(["hour", "day"]),
  time_zone: z.literal("UTC"),
  from: z.string().openapi({ description: "The first point's start (inclusive)" }),
  until: z.string().openapi({ description: "The last point's end (exclusive); the last point is still running" }),
};

const KindCounts = z.object(
  Object.fromEntries(KINDS.map((k) => [k, z.number().int()])) as Record<(typeof KINDS)[number], z.ZodNumber>,
);
const Refused = z.object({
  project: z.number().int().openapi({ description: "Refused by the project's bucket (all its callers)" }),
  caller: z.number().int().openapi({ description: "Refused by one caller's share of it" }),
});

export const ActivityAnswer = okWith({
  project_id: z.string(),
  ...WindowShape,
  points: z.array(
    z.object({
      at: z.string(),
      registrations: z.number().int(),
      by_kind: KindCounts,
      log_size: z.number().int().openapi({ description: "Leaves in the project's log at the point's end" }),
      refused: Refused,
    }),
  ),
  totals: z.object({ registrations: z.number().int(), by_kind: KindCounts, refused: Refused }),
  log_size: z.number().int().openapi({ description: "Leaves in the log now (its latest checkpoint's size)" }),
  limits: z.object({
    project_per_minute: z.number().int(),
    caller_per_minute: z.number().int(),
  }),
}).openapi("ProjectActivity");

const Latency = z
  .object({ p50: z.number().nullable(), p90: z.number().nullable(), p99: z.number().nullable() })
  .openapi({
    description: `Attempt latency percentiles in ms, each the upper bound of its histogram bucket (${LATENCY_BOUNDS_MS.join(", ")} ms; slower: the 8,000 ms time-out); null without attempts`,
  });
const Outcomes = {
  succeeded: z.number().int(),
  retried: z.number().int().openapi({ description: "Attempts that failed and will be tried again" }),
  failed: z.number().int().openapi({ description: "Attempts that failed for good (the last of their delivery)" }),
};
const LastFailure = z
  .object({ at: z.string(), reason: z.string() })
  .nullable()
  .openapi({ description: "The latest failed attempt in the period, with its reason" });

export const Health = z.enum(HEALTH).openapi({
  description:
    "paused: the endpoint is paused; idle: no attempt in 24 hours; failing: at least half of the attempts of its latest hour with attempts failed; degrading: an attempt failed in 24 hours; green: none did",
});

export const HealthAnswer = okWith({
  project_id: z.string(),
  endpoints: z.array(
    z.object({
      endpoint_id: z.string(),
      url: z.string(),
      active: z.boolean(),
      health: Health,
      last_24h: z.object(Outcomes),
      last_failure: LastFailure,
    }),
  ),
}).openapi("WebhookHealth");

export const EndpointStatsAnswer = okWith({
  endpoint_id: z.string(),
  project_id: z.string(),
  ...WindowShape,
  health: Health,
  points: z.array(z.object({ at: z.string(), ...Outcomes, latency_ms: Latency })),
  totals: z.object(Outcomes),
  latency_ms: Latency,
  last_failure: LastFailure,
}).openapi("WebhookEndpointStats");
