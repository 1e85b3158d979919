// The active account's sign-in identities (issue 27): list them, link a Bitcoin address proved by a BIP-322
// challenge of purpose `link`, unlink one, and choose which linked address is primary_btc (what the fleet sees as
// the caller's address: it changes only here). Linking, unlinking and choosing need a fresh `sudo_at`; a recovery
// sign-in's counts for linking only (freshness.ts), and every address of the account is told of a link. Emails are
// linked by a code (identity-email.ts), provider subjects by a round trip (oauth.ts with intent=link).
import { createRoute, z } from "@hono/zod-openapi";
import { type Db, orm } from "../../../../shared/db/client";
import { choosePrimaryBtc, linkIdentity, listIdentities, unlinkIdentity } from "../../../../shared/db/identities";
import { reissueSession } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { tellUnlinked } from "../account-notices";
import { IdentitiesResult, IdentityParams, PrimaryBtcBody, ProvenAddressBody } from "../account-schemas";
import { requireAddress, signinNetwork } from "../addresses";
import type { AuthEnv } from "../env";
import { requireFreshSession } from "../fresh-session";
import { CHALLENGE_ERRORS, CHALLENGE_PURPOSES, provenAddress } from "../proven-address";
import { AccountResult, errorResponses, json } from "../schemas";
import { identityLinkedMail } from "../security-mail";
import { changeBy, requireSession, setSessionCookie } from "../session-context";
import { tellAccount } from "../tell-account";

export const identityRoutes = routeGroup<AuthEnv>();

async function identitiesView(db: Db, accountId: string, primaryBtc: string | null) {
  return (await listIdentities(db, accountId)).map((r) => ({
    kind: r.kind,
    value: r.value,
    created_at: isoMs(r.createdAt),
    primary: r.kind === "btc" && r.value === primaryBtc,
  }));
}
const limited = (bucket: string) => rateLimit({ bucket, rule: AUTH_RULE, failClosed: true });

identityRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/identities",
    summary: "The active account's sign-in identities (Bitcoin addresses, emails, provider subjects)",
    middleware: [limited("identities")],
    responses: { 200: json(IdentitiesResult, "Oldest first"), ...errorResponses("not_authenticated") },
  }),
  async (c) => {
    const now = Date.now();
    const { session, primaryBtc } = await requireSession(c, now);
    c.header("Cache-Control", "no-store");
    const identities = await identitiesView(orm(c.env.DB), session.accountId, primaryBtc);
    return c.json({ ok: true as const, identities }, 200);
  },
);

identityRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/identities/btc",
    summary: "Link a Bitcoin address to the active account (a BIP-322 signature over a challenge of purpose link)",
    description:
      "Get a challenge with GET /api/challenge?addr=…&audience=<this origin>&purpose=link and sign it. Needs a " +
      "fresh sudo_at (403 sudo_required: re-authenticate, then retry). An address on another account is 409 " +
      "identity_on_other_account (sign in to both in this browser, confirm both, and merge). The address does not " +
      "become primary_btc: choose it with POST /api/auth/account/primary-btc.",
    middleware: [limited("identities-link"), sameOrigin(), jsonBody],
    request: { body: jsonRequest(ProvenAddressBody) },
    responses: {
      200: json(IdentitiesResult, "Linked; the identities now"),
      ...errorResponses(
        "invalid_body",
        ...CHALLENGE_ERRORS,
        "not_authenticated",
        "sudo_required",
        "identity_already_linked",
        "identity_on_other_account",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session, primaryBtc } = await requireFreshSession(c, now, ["link"]);
    const address = await provenAddress(c, c.req.valid("json"), CHALLENGE_PURPOSES.link, now);
    const db = orm(c.env.DB);
    const identity = { kind: "btc" as const, value: address };
    await linkIdentity(db, identity, changeBy(session, now));
    await tellAccount(c, session.accountId, (to) => identityLinkedMail(to, identity, now));
    return c.json({ ok: true as const, identities: await identitiesView(db, session.accountId, primaryBtc) }, 200);
  },
);

identityRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/auth/identities/{kind}/{value}",
    summary: "Unlink an identity from the active account (never the last one, never the primary Bitcoin address)",
    middleware: [limited("identities-unlink"), sameOrigin()],
    request: { params: IdentityParams },
    responses: {
      200: json(z.object({ ok: z.literal(true) }), "Unlinked"),
      ...errorResponses(
        "invalid_id",
        "not_authenticated",
        "sudo_required",
        "identity_not_linked",
        "identity_is_primary",
        "last_identity",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireFreshSession(c, now, ["sudo"]);
    const { kind, value } = c.req.valid("param");
    await unlinkIdentity(orm(c.env.DB), { kind, value }, changeBy(session, now));
    await tellUnlinked(c, session.accountId, { kind, value }, now);
    return c.json({ ok: true as const }, 200);
  },
);

identityRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/account/primary-btc",
    summary: "Choose the account's primary Bitcoin address among its linked ones (or none); the cookie is re-issued",
    description:
      "primary_btc is what the fleet registry sees as the caller's address; it changes only by this choice. Needs a " +
      "fresh sudo_at.",
    middleware: [limited("primary-btc"), sameOrigin(), jsonBody],
    request: { body: jsonRequest(PrimaryBtcBody) },
    responses: {
      200: json(AccountResult, "Chosen; the oc_session cookie carries the new primary_btc"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        "sudo_required",
        "identity_not_linked",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireFreshSession(c, now, ["sudo"]);
    const { address: given } = c.req.valid("json");
    const address = given === null ? null : requireAddress(given, signinNetwork(c.env), "invalid_body");
    const db = orm(c.env.DB);
    await choosePrimaryBtc(db, address, changeBy(session, now));
    const account = await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, session.accountId) });
    const issued = account && (await reissueSession(db, session, now));
    if (!account || !issued) throw new AppError("not_authenticated");
    return c.json({ ok: true as const, account: await setSessionCookie(c, account, issued, now) }, 200);
  },
);
