// OpenAPI building blocks every worker's routes share: the error envelope schema and response entries.
import { z } from "@hono/zod-openapi";
import { ALL_REASONS, REASONS, type Reason } from "../errors";

export const ErrorSchema = z
  .object({
    ok: z.literal(false),
    reason: z.enum(ALL_REASONS as [Reason, ...Reason[]]),
    detail: z.string().optional(),
  })
  .openapi("Error");

/** OpenAPI response entries for the error reasons a route can answer with, grouped by status. */
export function errorResponses(...reasons: Reason[]) {
  const byStatus = new Map<number, Reason[]>();
  for (const reason of reasons) byStatus.set(REASONS[reason], [...(byStatus.get(REASONS[reason]) ?? []), reason]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      { description: list.join(", "), content: { "application/json": { schema: ErrorSchema } } },
    ]),
  );
}

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A required JSON request body validated by `schema` (the route's `request.body`). */
export function jsonRequest<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}
