// The account notices issue 46 adds (item 2), beside those of security-mail.ts: a sign-in from a browser not seen
// before, an identity unlinked, a merge, an app allowed to sign the person in, deletion scheduled. Each goes to every
// address of the account (tell-account.ts, which adds where, the account page's link and the HTML part), at most
// once per event, and never carries a code or a secret. Only "an app was allowed" may be turned off: the others are
// about who can reach the account (docs/decisions.md, "Security mail").
import type { Context } from "hono";
import { orm } from "../../../shared/db/client";
import { type MailPreferences, mailPreferences } from "../../../shared/db/devices";
import type { AuthMethod } from "../../../shared/db/sessions";
import { type Mail, mailerConfigured } from "../../../shared/mail/mailer";
import { isoSeconds } from "../../../shared/time";
import { mailAfterAnswer } from "./email-codes";
import type { AuthEnv } from "./env";
import { dressNotice, requestWhere } from "./notice-dress";
import { liveClient } from "./oidc/store";
import { tellAccount } from "./tell-account";

const LOOK = "If that was not you, sign in another way, look at the account's log and undo it.";

const METHODS: Record<AuthMethod, string> = {
  bip322: "a Bitcoin signature",
  email: "a code mailed to an address of the account",
  provider: "a sign-in provider",
  passkey: "a passkey or security key",
  recovery: "the recovery address",
};

/** A sign-in from a browser this account had not signed in from within the last 90 days. */
export function newDeviceMail(to: string, method: AuthMethod, now: number): Mail {
  return {
    to,
    subject: "A new sign-in to your account",
    text:
      `At ${isoSeconds(now)} your OrangeCheck account was signed in to from a browser it had not been used in ` +
      `before, with ${METHODS[method]}. If that was you, there is nothing to do. If not, sign in, sign that ` +
      "browser out under Devices, and look at the account's log.",
  };
}

/** A way to sign in was unlinked. */
export function identityUnlinkedMail(to: string, identity: { kind: string; value: string }, now: number): Mail {
  return {
    to,
    subject: "A way to sign in was removed from your account",
    text: `At ${isoSeconds(now)} ${identity.kind} ${identity.value} was unlinked from your OrangeCheck account: it no longer signs in to it. ${LOOK}`,
  };
}

/** Another account was merged into this one (its identities, keys and apps moved here). */
export function mergedMail(to: string, absorbedDid: string, now: number): Mail {
  return {
    to,
    subject: "Another account was merged into your account",
    text:
      `At ${isoSeconds(now)} the OrangeCheck account ${absorbedDid} was merged into yours: its ways to sign in, ` +
      `keys and apps are now your account's. ${LOOK}`,
  };
}

/** An app was allowed to sign the person in (an OpenID consent remembered). */
export function appAllowedMail(to: string, app: { name: string; scopes: readonly string[] }, now: number): Mail {
  return {
    to,
    subject: `You allowed ${app.name} to sign you in`,
    text:
      `At ${isoSeconds(now)} the app "${app.name}" was allowed to sign you in with your OrangeCheck account and ` +
      `to read: ${app.scopes.join(", ")}. If that was not you, take it back under "Apps you sign in to" on your ` +
      "account page. You can turn these mails off there too.",
  };
}

/** The account's deletion was asked for: it is erased at `dueAt` unless the person signs in and undoes it. */
export function deletionScheduledMail(to: string, dueAt: number, now: number): Mail {
  return {
    to,
    subject: "Your account is scheduled for deletion",
    text:
      `At ${isoSeconds(now)} the deletion of your OrangeCheck account was asked for. It will be erased at ` +
      `${isoSeconds(dueAt)}. Until then, signing in offers to undo it. If that was not you, sign in now, undo the ` +
      "deletion, and look at the account's log.",
  };
}

/** Tells every address of the account, and an unlinked email itself (it is no longer one of them), of an unlink. */
export async function tellUnlinked(
  c: Context<AuthEnv>,
  accountId: string,
  identity: { kind: string; value: string },
  now: number,
): Promise<void> {
  await tellAccount(c, accountId, (to) => identityUnlinkedMail(to, identity, now));
  if (identity.kind !== "email" || !mailerConfigured(c.env)) return;
  const mail = identityUnlinkedMail(identity.value, identity, now);
  mailAfterAnswer(c, dressNotice(mail, requestWhere(c), `${c.env.AUTH_ORIGIN}/account`));
}

/** Tells every address of the account that its deletion is scheduled for `dueAt` (epoch ms), after the answer. */
export async function tellDeletionScheduled(
  c: Context<AuthEnv>,
  accountId: string,
  dueAt: number,
  now: number,
): Promise<void> {
  await tellAccount(c, accountId, (to) => deletionScheduledMail(to, dueAt, now));
}

/** Tells every address (unless turned off) that the app `clientId` may now sign the person in with `scopes`. */
export async function tellAppAllowed(
  c: Context<AuthEnv>,
  accountId: string,
  clientId: string,
  scopes: readonly string[],
  now: number,
): Promise<void> {
  const client = await liveClient(orm(c.env.DB), clientId);
  const app = { name: client?.name ?? clientId, scopes };
  await tellAccountUnlessOff(c, accountId, "app_allowed", (to) => appAllowedMail(to, app, now));
}

/** Like tellAccount, for a notice the person may turn off: nothing is sent when `kind` is off for the account. */
export async function tellAccountUnlessOff(
  c: Context<AuthEnv>,
  accountId: string,
  kind: keyof MailPreferences,
  notice: (to: string) => Mail,
): Promise<void> {
  if (!(await mailPreferences(orm(c.env.DB), accountId))[kind]) return;
  await tellAccount(c, accountId, notice);
}
