// The mails of account security (issue 27): codes that say what they are for (so a person asked for one they did
// not start can tell what someone tried), and the notices of a change to how the account is reached. A notice never
// carries a code or a link that acts: it tells, and says where to look.
import type { Mail } from "../../../shared/mail/mailer";
import { isoSeconds } from "../../../shared/time";

const IGNORE = "If you did not ask for it, ignore this mail: nothing changes without the code.";

export function linkCodeMail(to: string, code: string): Mail {
  return {
    to,
    subject: `Your code to add this address to your account: ${code}`,
    text: `Your code is ${code}. It adds ${to} as a way to sign in to an OrangeCheck account and is valid for 10 minutes. ${IGNORE}`,
  };
}

export function reauthCodeMail(to: string, code: string): Mail {
  return {
    to,
    subject: `Your code to confirm it is you: ${code}`,
    text: `Your code is ${code}. It confirms it is you before a change to your account's security, valid for 10 minutes. ${IGNORE}`,
  };
}

export function recoverySetCodeMail(to: string, code: string): Mail {
  return {
    to,
    subject: `Your code to make this your recovery address: ${code}`,
    text: `Your code is ${code}. It makes ${to} the recovery address of an OrangeCheck account, valid for 10 minutes. ${IGNORE}`,
  };
}

export function recoverySignInCodeMail(to: string, code: string): Mail {
  return {
    to,
    subject: `Your recovery sign-in code: ${code}`,
    text:
      `Your code is ${code}. It signs you in to the account ${to} recovers, valid for 10 minutes. ` +
      `Every address of that account will be told of the sign-in. ${IGNORE}`,
  };
}

export function recoveryReplacedMail(to: string, now: number): Mail {
  return {
    to,
    subject: "Your address is no longer the recovery address of your account",
    text:
      `At ${isoSeconds(now)} another address, proven by a code, replaced ${to} as the recovery address of your ` +
      "OrangeCheck account. If that was not you, sign in and look at the account's log, then change it back.",
  };
}

export function recoveryRemovedMail(to: string, now: number): Mail {
  return {
    to,
    subject: "Your account no longer has a recovery address",
    text:
      `At ${isoSeconds(now)} ${to} was removed as the recovery address of your OrangeCheck account, which now has ` +
      "none. If that was not you, sign in and look at the account's log.",
  };
}

export function recoverySignedInMail(to: string, recoveryEmail: string, now: number): Mail {
  return {
    to,
    subject: "Someone signed in to your account with its recovery address",
    text:
      `At ${isoSeconds(now)} someone signed in to your OrangeCheck account with a code mailed to its recovery ` +
      `address, ${recoveryEmail}. If that was not you, sign in another way, look at the account's log, sign out ` +
      "the sessions you do not know and change the recovery address.",
  };
}

const LOOK = "If that was not you, sign in another way, look at the account's log and undo it.";

/** To every address of the account: a security key or passkey was added (review 3, item 5). */
export function keyAddedMail(to: string, keyName: string, now: number): Mail {
  return {
    to,
    subject: "A security key was added to your account",
    text: `At ${isoSeconds(now)} a security key or passkey named "${keyName}" was added to your OrangeCheck account. ${LOOK}`,
  };
}

/** To every address of the account: a security key or passkey was removed. */
export function keyRemovedMail(to: string, keyName: string, now: number): Mail {
  return {
    to,
    subject: "A security key was removed from your account",
    text: `At ${isoSeconds(now)} the security key or passkey named "${keyName}" was removed from your OrangeCheck account. ${LOOK}`,
  };
}

/** To every address of the account: a way to sign in was linked (review 3: each link is told, whatever proved it). */
export function identityLinkedMail(to: string, identity: { kind: string; value: string }, now: number): Mail {
  return {
    to,
    subject: "A new way to sign in was added to your account",
    text: `At ${isoSeconds(now)} ${identity.kind} ${identity.value} was linked to your OrangeCheck account: it can now sign in to it. ${LOOK}`,
  };
}

/** To every address of the account: its recovery address was set or changed. */
export function recoverySetMail(to: string, recoveryEmail: string, now: number): Mail {
  return {
    to,
    subject: "Your account's recovery address was set",
    text: `At ${isoSeconds(now)} ${recoveryEmail} became the recovery address of your OrangeCheck account. ${LOOK}`,
  };
}

/** To every remaining address of the account: its recovery address was removed. */
export function recoveryRemovedNoticeMail(to: string, removed: string, now: number): Mail {
  return {
    to,
    subject: "Your account no longer has a recovery address",
    text: `At ${isoSeconds(now)} ${removed} was removed as the recovery address of your OrangeCheck account. ${LOOK}`,
  };
}
