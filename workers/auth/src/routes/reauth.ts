// Re-authentication (service-spec Authentication 6; issue 27): a fresh proof of one of the active account's own
// identities refreshes its `sudo_at` (a hardware key also `step_up_at`), and the cookie is re-issued with the new
// claims. Here: the state of the proofs, and a Bitcoin address of the account signing a challenge of purpose
// `reauth`. An email code (reauth-email.ts), a hardware key (webauthn-assert.ts) and a provider round trip
// (oauth.ts, intent=reauth) are the other proofs. Only the active account's own identities count: a cookie that
// switched to another roster account proves nothing for it.
import { createRoute } from "@hono/zod-openapi";
import { isFreshAt, STEP_UP_WINDOW_S, SUDO_WINDOW_S } from "../../../../shared/auth/freshness";
import { accountEvent } from "../../../../shared/db/account-events";
import { accountByIdentity } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { reauthenticateSession } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { FreshnessResult, ProvenAddressBody } from "../account-schemas";
import type { AuthEnv } from "../env";
import { CHALLENGE_ERRORS, CHALLENGE_PURPOSES, provenAddress } from "../proven-address";
import { AccountResult, errorResponses, json } from "../schemas";
import { requireSession, setSessionCookie } from "../session-context";

export const reauthRoutes = routeGroup<AuthEnv>();

/** Until when a proof made at `at` is fresh, or null when it is not fresh now. */
const freshUntil = (at: number | null, windowS: number, now: number) =>
  at !== null && isFreshAt(at, windowS, now) ? isoMs(at + windowS * 1000) : null;

reauthRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/freshness",
    summary: "When the active account last proved an identity (sudo_at) and a hardware key (step_up_at) here",
    middleware: [rateLimit({ bucket: "freshness", rule: AUTH_RULE, failClosed: true })],
    responses: {
      200: json(FreshnessResult, "The proofs and how long they stay fresh"),
      ...errorResponses("not_authenticated"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        ok: true as const,
        freshness: {
          sudo_at: isoMs(session.authenticatedAt),
          step_up_at: session.steppedUpAt === null ? null : isoMs(session.steppedUpAt),
          sudo_fresh_until: freshUntil(session.authenticatedAt, SUDO_WINDOW_S, now),
          step_up_fresh_until: freshUntil(session.steppedUpAt, STEP_UP_WINDOW_S, now),
        },
      },
      200,
    );
  },
);

reauthRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/reauth/btc",
    summary: "Re-authenticate the active account with one of its Bitcoin addresses (refreshes sudo_at)",
    description:
      "Get a challenge with GET /api/challenge?addr=…&audience=<this origin>&purpose=reauth, sign it with an " +
      "address linked to the active account, and post it here. The cookie is re-issued with the new sudo_at.",
    middleware: [rateLimit({ bucket: "reauth-btc", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(ProvenAddressBody) },
    responses: {
      200: json(AccountResult, "Re-authenticated; the oc_session cookie carries the new sudo_at"),
      ...errorResponses(
        "invalid_body",
        ...CHALLENGE_ERRORS,
        "not_authenticated",
        "identity_not_linked",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const address = await provenAddress(c, c.req.valid("json"), CHALLENGE_PURPOSES.reauth, now);
    const db = orm(c.env.DB);
    const account = await accountByIdentity(db, "btc", address);
    if (account?.id !== session.accountId) {
      throw new AppError("identity_not_linked", { detail: "that address is not an identity of the active account" });
    }
    const issued = await reauthenticateSession(db, session, { method: "bip322", stepUp: false, now });
    if (!issued) throw new AppError("not_authenticated");
    await accountEvent(db, {
      accountId: account.id,
      eventType: "reauthenticated",
      sessionId: session.id,
      detail: { method: "bip322", identity: { kind: "btc", value: address } },
      now,
    });
    return c.json({ ok: true as const, account: await setSessionCookie(c, account, issued, now) }, 200);
  },
);
