// The active account's hardware keys (issue 27): list them, rename one, revoke one. A key of another account is
// 404 `not_found`, as one that never existed. Revoking needs a fresh step-up while another key remains (a stolen
// session cannot strip the keys with an identity proof alone), a fresh sudo when it is the last (revoke-rule.ts);
// every address of the account is told of it (review 3, item 5).
import { createRoute, z } from "@hono/zod-openapi";
import { revokeRefusal } from "../../../../shared/auth/webauthn/revoke-rule";
import { orm } from "../../../../shared/db/client";
import { accountKeys, renameKey, revokeKey } from "../../../../shared/db/webauthn";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { staleRefusal } from "../fresh-session";
import { keyRemovedMail } from "../security-mail";
import { changeBy, requireSession } from "../session-context";
import { tellAccount } from "../tell-account";
import { keyView } from "../webauthn-edge";
import { KeyParams, KeyResult, KeysResult, RenameBody } from "../webauthn-schemas";

export const webauthnKeyRoutes = routeGroup<AuthEnv>();

const notHere = () => new AppError("not_found", { detail: "no such key on the active account" });

webauthnKeyRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/webauthn/credentials",
    summary: "The active account's security keys and passkeys (never their public keys)",
    middleware: [rateLimit({ bucket: "webauthn-keys", rule: READ_RULE, failClosed: true })],
    responses: {
      200: json(KeysResult, "Oldest first"),
      ...errorResponses("not_authenticated", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    c.header("Cache-Control", "no-store");
    const keys = (await accountKeys(orm(c.env.DB), session.accountId)).map(keyView);
    return c.json({ ok: true as const, keys }, 200);
  },
);

webauthnKeyRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/auth/webauthn/credentials/{id}",
    summary: "Rename one of the active account's keys",
    middleware: [rateLimit({ bucket: "webauthn-rename", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { params: KeyParams, body: jsonRequest(RenameBody) },
    responses: {
      200: json(KeyResult, "Renamed; the account log gets a hardware_key.renamed line"),
      ...errorResponses(
        "invalid_id",
        "invalid_body",
        "not_authenticated",
        "not_found",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const { id } = c.req.valid("param");
    const row = await renameKey(orm(c.env.DB), id, c.req.valid("json").name, changeBy(session, now));
    if (!row) throw notHere();
    return c.json({ ok: true as const, key: keyView(row) }, 200);
  },
);

webauthnKeyRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/auth/webauthn/credentials/{id}",
    summary: "Revoke one of the active account's keys (a fresh step-up; a fresh sudo_at when it is the last key)",
    description:
      "While the account has another key, needs a hardware-key assertion within 10 minutes (403 step_up_required: " +
      "POST /api/auth/webauthn/stepup/options, then /stepup, then retry). The account's last key needs a fresh " +
      "step-up or a fresh sudo_at that is not a recovery sign-in's (403 sudo_required). The account log gets a " +
      "hardware_key.revoked line, and every address of the account is mailed a notice.",
    middleware: [rateLimit({ bucket: "webauthn-revoke", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    request: { params: KeyParams },
    responses: {
      200: json(z.object({ ok: z.literal(true) }), "Revoked"),
      ...errorResponses(
        "invalid_id",
        "not_authenticated",
        "not_found",
        "step_up_required",
        "sudo_required",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const { id } = c.req.valid("param");
    const db = orm(c.env.DB);
    const keys = await accountKeys(db, session.accountId);
    // Not found before stale: nobody is asked to confirm who they are for a key that is not theirs.
    if (!keys.some((k) => k.id === id)) throw notHere();
    const stale = revokeRefusal(session, keys.length - 1, now);
    if (stale) throw staleRefusal(stale, session);
    const revoked = await revokeKey(db, id, changeBy(session, now));
    if (!revoked) throw notHere();
    await tellAccount(c, session.accountId, (to) => keyRemovedMail(to, revoked.name, now));
    return c.json({ ok: true as const }, 200);
  },
);
