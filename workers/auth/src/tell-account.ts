// Notices of a change to how an account is reached, to every address the account has (review 3): each email identity
// and the recovery address, read after the change, so an address just linked or set is told too. Mailed after the
// answer (the change stands if a notice fails; the failure is logged), and only where a mailer is set up at all.
import type { Context } from "hono";
import { orm } from "../../../shared/db/client";
import { listIdentities } from "../../../shared/db/identities";
import { recoveryAddressOf } from "../../../shared/db/recovery-address";
import { type Mail, mailerConfigured } from "../../../shared/mail/mailer";
import { mailAfterAnswer } from "./email-codes";
import type { AuthEnv } from "./env";
import { dressNotice, requestWhere } from "./notice-dress";

/** Every address of the account: its email identities, then its recovery address, each once. */
export async function accountAddresses(c: Context<AuthEnv>, accountId: string): Promise<string[]> {
  const db = orm(c.env.DB);
  const emails = (await listIdentities(db, accountId)).filter((i) => i.kind === "email").map((i) => i.value);
  const recovery = (await recoveryAddressOf(db, accountId))?.email;
  return [...new Set(recovery === undefined ? emails : [...emails, recovery])];
}

/** Mails `notice(to)` to every address of the account but those in `except` (told otherwise), after the answer. */
export async function tellAccount(
  c: Context<AuthEnv>,
  accountId: string,
  notice: (to: string) => Mail,
  except: readonly string[] = [],
): Promise<void> {
  if (!mailerConfigured(c.env)) return;
  // Each notice says where the change came from and links the account page, in text and HTML (issue 46).
  const where = requestWhere(c);
  const dress = (mail: Mail) => dressNotice(mail, where, `${c.env.AUTH_ORIGIN}/account`);
  for (const to of await accountAddresses(c, accountId))
    if (!except.includes(to)) mailAfterAnswer(c, dress(notice(to)));
}
