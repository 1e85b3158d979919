// A provider round trip for the signed-in account (issue 27): `link` adds the provider subject to the active
// account, `reauth` proves the account's own provider identity again (refreshing sudo_at). The start binds the
// flow to the session row that asked (state row), the callback acts only for that same live row, so a callback
// carried to another browser, or to the same browser after a switch, changes nothing. Either ends back on the page
// that asked (default the account page), with `?error=<reason>` when refused, as the sign-in flow does for /signin.
import type { Context } from "hono";
import { staleProof } from "../../../shared/auth/freshness";
import type { ProviderProfile } from "../../../shared/auth/oauth/profile";
import type { OAuthStateRow } from "../../../shared/auth/oauth/state-store";
import { accountEvent } from "../../../shared/db/account-events";
import { accountByIdentity } from "../../../shared/db/accounts";
import { orm } from "../../../shared/db/client";
import { linkIdentity } from "../../../shared/db/identities";
import { reauthenticateSession } from "../../../shared/db/sessions";
import { AppError, type Reason } from "../../../shared/errors";
import type { AuthEnv } from "./env";
import { identityLinkedMail } from "./security-mail";
import { changeBy, currentSession, setSessionCookie } from "./session-context";
import { tellAccount } from "./tell-account";

export const PROVIDER_INTENTS = ["signin", "link", "reauth"] as const;
export type ProviderIntent = (typeof PROVIDER_INTENTS)[number];

/** Where a link or re-authentication started by the account page returns by default. */
export const ACCOUNT_PAGE = "/account";

/** The page that asked, with the outcome in its query: `done=<intent>` or `error=<reason>`. */
export function backTo(returnTo: string, outcome: { done: ProviderIntent } | { error: Reason }): string {
  const url = new URL(returnTo, "http://return.invalid");
  if ("done" in outcome) url.searchParams.set("done", outcome.done);
  else url.searchParams.set("error", outcome.error);
  const local = url.origin === "http://return.invalid";
  return local ? `${url.pathname}${url.search}${url.hash}` : url.toString();
}

/** Runs a link or re-authentication callback; the reason it was refused, or undefined when it took effect. */
export async function finishForAccount(
  c: Context<AuthEnv>,
  flow: OAuthStateRow,
  profile: ProviderProfile,
  now: number,
): Promise<Reason | undefined> {
  const current = await currentSession(c, now);
  if (!current || current.session.id !== flow.sessionId) return "not_authenticated";
  const { session } = current;
  const db = orm(c.env.DB);
  try {
    if (flow.intent === "link") {
      if (staleProof(session, ["link"], now)) return "sudo_required";
      await linkIdentity(db, profile.identity, changeBy(session, now));
      await tellAccount(c, session.accountId, (to) => identityLinkedMail(to, profile.identity, now));
      return undefined;
    }
    const account = await accountByIdentity(db, profile.identity.kind, profile.identity.value);
    if (account?.id !== session.accountId) return "identity_not_linked";
    const issued = await reauthenticateSession(db, session, { method: "provider", stepUp: false, now });
    if (!issued) return "not_authenticated";
    await accountEvent(db, {
      accountId: account.id,
      eventType: "reauthenticated",
      sessionId: session.id,
      detail: { method: "provider", identity: profile.identity },
      now,
    });
    await setSessionCookie(c, account, issued, now);
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return err.reason;
    throw err;
  }
}
