// Review 3, re-authentication: a recovery sign-in proves only the recovery mailbox. Its session may link a new way in
// (what a recovery is for; every address of the account is told), and nothing else that needs sudo (the recovery
// address, keys, unlinking, the primary address) until it proves something more; then it may, and is told again.
import { describe, expect, it } from "vitest";
import {
  EmailBrowser,
  freshEmail,
  lastCode,
  mailsAfter,
  mailsTo,
  nextCode,
  signedInByEmail,
} from "../helpers/email-code";

type Answer = { status: number; body: { ok: boolean; reason?: string } };
const answer = async (res: Response): Promise<Answer> => ({ status: res.status, body: await res.json() });
const post = async (b: EmailBrowser, path: string, json?: unknown) => answer(await b.post(path, json));
const del = async (b: EmailBrowser, path: string) => answer(await b.fetch(path, { method: "DELETE" }));

/** An owner with an email identity and a recovery address, and a browser signed in to it by a recovery code. */
async function recovered() {
  const owner = await signedInByEmail(freshEmail("owner"));
  const { email } = owner;
  const recovery = freshEmail("recover");
  expect((await post(owner.browser, "/api/auth/recovery/start", { email: recovery })).status).toBe(200);
  expect(
    (await post(owner.browser, "/api/auth/recovery/verify", { email: recovery, code: await lastCode(recovery) }))
      .status,
  ).toBe(200);
  const lost = new EmailBrowser();
  const seen = (await mailsTo(recovery)).length;
  expect((await post(lost, "/api/auth/recovery/signin/start", { email: recovery })).status).toBe(200);
  const code = await nextCode(recovery, seen);
  expect((await post(lost, "/api/auth/recovery/signin/verify", { email: recovery, code })).status).toBe(200);
  return { email, recovery, lost };
}

const SUDO_REQUIRED = { status: 403, body: { reason: "sudo_required" } };

describe("a session whose last proof is a recovery sign-in", () => {
  it("cannot change or remove the recovery address, add a key, unlink or choose the primary address", async () => {
    const { email, lost } = await recovered();
    expect(await post(lost, "/api/auth/recovery/start", { email: freshEmail("mine") })).toMatchObject(SUDO_REQUIRED);
    expect(await del(lost, "/api/auth/recovery")).toMatchObject(SUDO_REQUIRED);
    expect(await post(lost, "/api/auth/webauthn/register/options")).toMatchObject(SUDO_REQUIRED);
    expect(await del(lost, `/api/auth/identities/email/${encodeURIComponent(email)}`)).toMatchObject(SUDO_REQUIRED);
    expect(await post(lost, "/api/auth/account/primary-btc", { address: null })).toMatchObject(SUDO_REQUIRED);
  });

  it("may link a new way in, and every address of the account is told", async () => {
    const { email, recovery, lost } = await recovered();
    const added = freshEmail("new");
    expect((await post(lost, "/api/auth/identities/email/start", { email: added })).status).toBe(200);
    const seen = { [email]: (await mailsTo(email)).length, [recovery]: (await mailsTo(recovery)).length, [added]: 1 };
    const code = await lastCode(added);
    expect((await post(lost, "/api/auth/identities/email/verify", { email: added, code })).status).toBe(200);
    for (const to of [email, recovery, added]) {
      const mails = await mailsAfter(to, seen[to] as number);
      const notice = mails.find((m) => m.subject === "A new way to sign in was added to your account");
      expect(notice?.text, to).toContain(added);
    }
  });

  it("after another proof (an email code of one of its identities), changes the recovery address; every address is told", async () => {
    const { email, recovery, lost } = await recovered();
    const seen = (await mailsTo(email)).length;
    expect((await post(lost, "/api/auth/reauth/email/start", { email })).status).toBe(200);
    const code = await nextCode(email, seen);
    expect((await post(lost, "/api/auth/reauth/email/verify", { email, code })).status).toBe(200);
    const before = { [email]: (await mailsTo(email)).length, [recovery]: (await mailsTo(recovery)).length };
    expect(await del(lost, "/api/auth/recovery")).toMatchObject({ status: 200, body: { ok: true } });
    const toIdentity = await mailsAfter(email, before[email] as number);
    expect(toIdentity.map((m) => m.subject)).toContain("Your account no longer has a recovery address");
    const toRemoved = await mailsAfter(recovery, before[recovery] as number);
    expect(toRemoved.map((m) => m.subject)).toContain("Your account no longer has a recovery address");
  });
});
