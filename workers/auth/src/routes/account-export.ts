// GET /api/auth/account/export: "Download my data" (issue 46, item 4; GDPR articles 15 and 20). One JSON document,
// streamed section by section as each is read (shared/db/account-export.ts), as an attachment; its schema is in
// docs/account-export.md. Behind a fresh sudo (the whole account's contents, in one answer), never cached.
import { createRoute } from "@hono/zod-openapi";
import {
  exportStream,
  membershipSection,
  SECTION_READERS,
  type SectionName,
} from "../../../../shared/db/account-export";
import { EXPORT_FORMAT } from "../../../../shared/db/account-export-schema";
import { orm } from "../../../../shared/db/client";
import { errorResponses } from "../../../../shared/http/openapi";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { requireFreshSession } from "../fresh-session";
import { holdingsOf } from "./account-deletion";

export const accountExportRoutes = routeGroup<AuthEnv>();

/** The document's sections, in order. */
export const SECTIONS: readonly SectionName[] = [
  ...(Object.keys(SECTION_READERS) as (keyof typeof SECTION_READERS)[]),
  "fleet_memberships",
];

accountExportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/account/export",
    summary: "Download everything the host keeps about the active account, as one JSON document (a fresh sudo)",
    description:
      "Streams one JSON document (schema: docs/account-export.md, format oc-account-export/1) as an attachment: the " +
      "account, its identities, security keys' metadata, sessions, known browsers, mail settings, account log, the " +
      "OpenID apps it registered and allowed, its Connect apps and links, and its fleet memberships on every registry " +
      "shard. Never a secret: no token or hash, no code, no passkey public key, no client secret or API key. Needs a " +
      "proof within 10 minutes that is not a recovery sign-in (403 sudo_required).",
    middleware: [rateLimit({ bucket: "account-export", rule: AUTH_RULE, failClosed: true })],
    responses: {
      200: {
        description: "The document (application/json, Content-Disposition: attachment)",
        content: { "application/json": { schema: { type: "object" } } },
      },
      ...errorResponses("not_authenticated", "sudo_required", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireFreshSession(c, now, ["sudo"]);
    const db = orm(c.env.DB);
    const id = session.accountId;
    const read = async (name: SectionName): Promise<unknown> =>
      name === "fleet_memberships"
        ? membershipSection((await holdingsOf(c, id)).memberships)
        : SECTION_READERS[name](db, id);
    const body = exportStream({ format: EXPORT_FORMAT, generated_at: isoMs(now) }, SECTIONS, read);
    const day = isoMs(now).slice(0, 10);
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="orangecheck-account-${day}.json"`,
        "cache-control": "no-store",
      },
    }) as never;
  },
);
