// POST /api/auth/account/merge {did_oc}: merge another account of this browser's roster into the active one (issue
// 27). Linking an identity that belongs to another account is refused (identity_on_other_account); a person who
// holds both merges them here, explicitly, with both proven in this browser within the sudo window: the active
// account's session and the other account's session row in this roster. A stolen cookie can switch between roster
// accounts, but cannot merge them without fresh proofs of both (service-spec Authentication 6).
import { createRoute } from "@hono/zod-openapi";
import { isFreshAt, SUDO_WINDOW_S } from "../../../../shared/auth/freshness";
import { accountByDid } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { mergeAccounts } from "../../../../shared/db/merge";
import { reissueSession, rosterMembers } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { mergedMail } from "../account-notices";
import { MergeBody } from "../account-schemas";
import type { AuthEnv } from "../env";
import { requireFreshSession } from "../fresh-session";
import { revokeAccountGrants } from "../oidc/grants";
import { AccountResult, errorResponses, json } from "../schemas";
import { setSessionCookie } from "../session-context";
import { tellAccount } from "../tell-account";

export const mergeRoutes = routeGroup<AuthEnv>();

mergeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/account/merge",
    summary: "Merge another account of this browser's roster into the active account (both freshly proven)",
    description:
      "The other account's identities, hardware keys, Connect apps, OpenID apps, the allowances it gave apps " +
      "(scopes merged with the active account's) and log move to the active account, which names it in " +
      "merged_from; its sessions and OpenID grants end everywhere and its did_oc signs nobody in again. Both " +
      "accounts must have proved an identity in this browser within the sudo window (403 sudo_required; the " +
      "detail names which). primary_btc does not change.",
    middleware: [rateLimit({ bucket: "merge", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(MergeBody) },
    responses: {
      200: json(AccountResult, "Merged; the cookie is re-issued with merged_from"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        "sudo_required",
        "merge_same_account",
        "not_in_roster",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireFreshSession(c, now, ["sudo"]);
    const { did_oc } = c.req.valid("json");
    const db = orm(c.env.DB);
    const [survivor, absorbed] = await Promise.all([
      db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, session.accountId) }),
      accountByDid(db, did_oc),
    ]);
    if (!survivor) throw new AppError("not_authenticated");
    if (absorbed?.id === survivor.id) throw new AppError("merge_same_account");
    const members = session.rosterId === null ? [] : await rosterMembers(db, session.rosterId, now);
    const other = absorbed && members.find((m) => m.account.id === absorbed.id);
    if (!absorbed || !other) throw new AppError("not_in_roster", { detail: "sign in to that account in this browser" });
    if (!isFreshAt(other.session.authenticatedAt, SUDO_WINDOW_S, now)) {
      throw new AppError("sudo_required", { detail: `confirm ${did_oc} too: switch to it and re-authenticate` });
    }
    await mergeAccounts(db, { survivor, absorbed, sessionId: session.id, now });
    // The apps signed in as the absorbed account lose its tokens (its apps and allowances moved in the batch).
    await revokeAccountGrants(c.env, absorbed.id);
    await tellAccount(c, survivor.id, (to) => mergedMail(to, absorbed.didOc, now)); // its addresses now include the absorbed one's
    const merged = await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, survivor.id) });
    const issued = merged && (await reissueSession(db, session, now));
    if (!merged || !issued) throw new AppError("not_authenticated");
    return c.json({ ok: true as const, account: await setSessionCookie(c, merged, issued, now) }, 200);
  },
);
