// The hosts' icon: one small SVG answered by a route on every worker at /favicon.svg (what pages link) and at
// /favicon.ico (what a browser asks for when a page links none, like the sign-in page). A route rather than a static
// asset, because the verify worker has no assets and the icon then lives in one place; the same SVG at /favicon.ico
// rather than a 204, so browsers that ask there show it too (they sniff the type, not the name).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";

/** An orange disc with a white check mark: 260 bytes, no external references (the CSP allows img-src 'self'). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="#f7931a"/>' +
  '<path d="M9 16.5l4.5 4.5L23 11" fill="none" stroke="#fff" stroke-width="3.5" stroke-linecap="round" ' +
  'stroke-linejoin="round"/></svg>';

/** A day: the icon changes rarely, and a stale one costs nothing. */
const FAVICON_MAX_AGE_SECONDS = 86_400;

/** Described in each host's OpenAPI document like every other route it answers. */
export function mountFavicon<E extends Env>(app: OpenAPIHono<E>) {
  for (const path of ["/favicon.svg", "/favicon.ico"]) {
    app.openapi(
      createRoute({
        method: "get",
        path,
        summary: "The host's icon (SVG)",
        responses: { 200: { description: "The icon", content: { "image/svg+xml": { schema: z.string() } } } },
      }),
      (c) =>
        c.body(FAVICON_SVG, 200, {
          "content-type": "image/svg+xml",
          "cache-control": `public, max-age=${FAVICON_MAX_AGE_SECONDS}`,
        }),
    );
  }
}
