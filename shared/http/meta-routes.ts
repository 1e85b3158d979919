// The routes every worker answers the same way: health, the reason table, its OpenAPI description and the
// interactive explorer (Swagger UI, served from the worker's own static assets: no CDN).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { reasonList } from "../errors";
import { mountFavicon } from "./favicon";

/** How long clients and caches may keep the OpenAPI description (service-spec Limits). */
export const OPENAPI_MAX_AGE_SECONDS = 300;
export const EXPLORER_ASSETS = "/api-explorer/assets";

const Health = z.object({ ok: z.literal(true), service: z.string(), time: z.string() }).openapi("Health");
const OpenApiDocument = z
  .object({
    openapi: z.string(),
    info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
    paths: z.object({}),
  })
  .passthrough()
  .openapi("OpenAPIDocument");
const Reason = z.object({
  reason: z.string(),
  status: z.number().int(),
  message: z.string().openapi({ description: "A short sentence for a person; may be reworded, unlike the reason" }),
});
const Reasons = z.object({ ok: z.literal(true), reasons: z.array(Reason) }).openapi("Reasons");

export function explorerPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} — API explorer</title>
<link rel="stylesheet" href="${EXPLORER_ASSETS}/swagger-ui.css">
<link rel="stylesheet" href="${EXPLORER_ASSETS}/explorer.css">
</head>
<body>
<div id="explorer"></div>
<script src="${EXPLORER_ASSETS}/swagger-ui-bundle.js"></script>
<script src="${EXPLORER_ASSETS}/explorer-init.js"></script>
</body>
</html>
`;
}

export function mountMetaRoutes<E extends Env>(
  app: OpenAPIHono<E>,
  service: { name: string; title: string; version: string; description?: string },
) {
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/health",
      summary: "Liveness",
      responses: { 200: { description: "Up", content: { "application/json": { schema: Health } } } },
    }),
    (c) => c.json({ ok: true as const, service: service.name, time: new Date().toISOString() }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/reasons",
      summary: "Every error reason this service can answer with, its HTTP status and a sentence for a person",
      responses: { 200: { description: "The error table", content: { "application/json": { schema: Reasons } } } },
    }),
    (c) => c.json({ ok: true as const, reasons: reasonList() }, 200),
  );
  // The document and the explorer describe themselves too: the document lists every route the host answers.
  let document: z.infer<typeof OpenApiDocument> | undefined;
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/openapi",
      summary: "This OpenAPI 3.1 description (permissive CORS, cached 5 minutes)",
      responses: { 200: { description: "The document", content: { "application/json": { schema: OpenApiDocument } } } },
    }),
    (c) => {
      // The generator's type leaves `paths` optional; it always writes them.
      document ??= app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: service.title,
          version: service.version,
          ...(service.description !== undefined && { description: service.description }),
        },
      }) as z.infer<typeof OpenApiDocument>;
      c.header("Access-Control-Allow-Origin", "*");
      c.header("Cache-Control", `public, max-age=${OPENAPI_MAX_AGE_SECONDS}`);
      return c.json(document, 200);
    },
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/api-explorer",
      summary: "The interactive API explorer (Swagger UI served from this host's own assets)",
      responses: { 200: { description: "An HTML page", content: { "text/html": { schema: z.string() } } } },
    }),
    (c) => c.html(explorerPage(service.title)),
  );
  mountFavicon(app);
}
