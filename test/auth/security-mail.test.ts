// Security mail (issue 46, item 2): every address of the account (its email identities and its recovery address) is
// told once per event, with what, when, where (the browser and the approximate place) and the account page to act
// on, in text and HTML, never with a code: a sign-in from a browser not seen before, an identity unlinked, a merge,
// an app allowed to sign the person in, deletion scheduled. The mail settings turn off only what is not about the
// account's safety.
import { describe, expect, it } from "vitest";
import { codeAfter, DeviceBrowser, FIREFOX_MAC, SAFARI_IPHONE } from "../helpers/device-browser";
import { freshEmail, mailsAfter, mailsTo } from "../helpers/email-code";
import { codeFor, registerClient, startFlow } from "../helpers/oidc";

interface FullMail {
  subject: string;
  text: string;
  html?: string;
}

const counts = async (addresses: string[]) =>
  Object.fromEntries(await Promise.all(addresses.map(async (a) => [a, (await mailsTo(a)).length] as const)));

/** The mails with `subject` each address got after `seen`, waiting for one each. */
async function toldEach(seen: Record<string, number>, subject: string): Promise<FullMail[]> {
  const told: FullMail[] = [];
  for (const [to, n] of Object.entries(seen)) {
    const fresh = (await mailsAfter(to, n, 1, 3_000)) as FullMail[];
    const matching = fresh.filter((m) => m.subject === subject);
    expect(matching, `${to}: ${fresh.map((m) => m.subject).join(" | ")}`).toHaveLength(1);
    told.push(matching[0] as FullMail);
  }
  return told;
}

/** Nothing with `subject` reached any address after `seen` (waits the whole time). */
async function toldNone(seen: Record<string, number>, subject: string): Promise<void> {
  for (const [to, n] of Object.entries(seen)) {
    const fresh = await mailsAfter(to, n, 0, 1_000);
    expect(fresh.map((m) => m.subject)).not.toContain(subject);
  }
}

/** A browser signed in by `email`, with a recovery address set: the account's two addresses. */
async function accountWithRecovery(agent = FIREFOX_MAC) {
  const email = freshEmail("mail");
  const recovery = freshEmail("recovery");
  const browser = new DeviceBrowser(agent);
  await browser.signInByEmail(email);
  const seen = (await mailsTo(recovery)).length;
  expect((await browser.post("/api/auth/recovery/start", { email: recovery })).status).toBe(200);
  const set = await browser.post("/api/auth/recovery/verify", {
    email: recovery,
    code: await codeAfter(recovery, seen),
  });
  expect(set.status).toBe(200);
  return { browser, email, recovery };
}

/** What every notice holds: when, where, the account page, an HTML part for phones, and no code. */
function expectDressed(mail: FullMail, where: RegExp): void {
  expect(mail.text).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/);
  expect(mail.text).toMatch(where);
  expect(mail.text).toContain("http://localhost:8787/account");
  expect(mail.html).toContain('name="viewport"');
  expect(mail.html).toContain('href="http://localhost:8787/account"');
  expect(`${mail.subject} ${mail.text}`).not.toMatch(/\b\d{6}\b/);
}

describe("a sign-in from a browser not seen before", () => {
  it("is told to every address; the same browser signing in again is not; the first browser ever is not", async () => {
    const { email, recovery } = await accountWithRecovery();
    const seen = await counts([email, recovery]);
    const phone = new DeviceBrowser(SAFARI_IPHONE);
    await phone.signInByEmail(email);
    for (const mail of await toldEach(seen, "A new sign-in to your account")) {
      expectDressed(mail, /Where: Safari 17 on iOS 17\.4, from an unknown place/);
      expect(mail.text).toContain("a code mailed to an address of the account");
    }
    // Again from the same phone (its device cookie known): nothing new.
    const again = await counts([email, recovery]);
    await phone.signInByEmail(email);
    await toldNone(again, "A new sign-in to your account");
  });
});

describe("an identity unlinked", () => {
  it("is told to every address left and to the address unlinked", async () => {
    const { browser, email, recovery } = await accountWithRecovery();
    const second = freshEmail("second");
    const before = (await mailsTo(second)).length;
    expect((await browser.post("/api/auth/identities/email/start", { email: second })).status).toBe(200);
    const linked = await browser.post("/api/auth/identities/email/verify", {
      email: second,
      code: await codeAfter(second, before),
    });
    expect(linked.status).toBe(200);
    const seen = await counts([email, recovery, second]);
    const res = await browser.fetch(`/api/auth/identities/email/${encodeURIComponent(second)}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    for (const mail of await toldEach(seen, "A way to sign in was removed from your account")) {
      expectDressed(mail, /Where: Firefox 126 on macOS/);
      expect(mail.text).toContain(`email ${second} was unlinked`);
    }
  });
});

describe("a merge", () => {
  it("is told to every address of the merged account, the absorbed account's included", async () => {
    const browser = new DeviceBrowser(FIREFOX_MAC);
    const first = freshEmail("absorbed");
    const survivor = freshEmail("survivor");
    await browser.signInByEmail(first);
    const absorbed = (await browser.me()).body.account.did_oc;
    await browser.signInByEmail(survivor, true);
    const seen = await counts([first, survivor]);
    const res = await browser.post("/api/auth/account/merge", { did_oc: absorbed });
    expect(res.status, await res.clone().text()).toBe(200);
    for (const mail of await toldEach(seen, "Another account was merged into your account")) {
      expectDressed(mail, /Where: Firefox 126/);
      expect(mail.text).toContain(absorbed);
    }
  });
});

describe("an app allowed to sign the person in, and the mail settings", () => {
  it("is told to every address unless turned off; the safety notices go on regardless", async () => {
    const { browser, email, recovery } = await accountWithRecovery();
    const app = await registerClient(browser, { name: "Notice test app" });
    let seen = await counts([email, recovery]);
    await codeFor(browser, await startFlow(app, "openid email"));
    for (const mail of await toldEach(seen, "You allowed Notice test app to sign you in")) {
      expectDressed(mail, /Where: Firefox 126/);
      expect(mail.text).toContain("openid, email");
    }

    const read = await browser.fetch("/api/auth/mail-settings");
    expect(await read.json()).toMatchObject({ ok: true, settings: { app_allowed: true } });
    const off = await browser.fetch("/api/auth/mail-settings", { method: "PATCH", json: { app_allowed: false } });
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({
      settings: { app_allowed: false },
      always_sent: expect.arrayContaining(["new_device"]),
    });
    const bad = await browser.fetch("/api/auth/mail-settings", { method: "PATCH", json: { app_allowed: "no" } });
    expect([bad.status, ((await bad.json()) as { reason: string }).reason]).toEqual([400, "invalid_body"]);
    const crossSite = await browser.fetch("/api/auth/mail-settings", {
      method: "PATCH",
      json: { app_allowed: true },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);

    seen = await counts([email, recovery]);
    const other = await registerClient(browser, { name: "Quiet app" });
    await codeFor(browser, await startFlow(other, "openid"));
    await toldNone(seen, "You allowed Quiet app to sign you in");
    // A safety notice is not optional: a new browser is still told.
    const phone = new DeviceBrowser(SAFARI_IPHONE);
    await phone.signInByEmail(email);
    const recent = await mailsAfter(recovery, seen[recovery] as number, 1, 3_000);
    expect(recent.map((m) => m.subject)).toContain("A new sign-in to your account");
  });
});

describe("deletion scheduled", () => {
  it("is told to every address, once, with when it will be erased; asking again tells no one again", async () => {
    const { browser, email, recovery } = await accountWithRecovery();
    const seen = await counts([email, recovery]);
    expect((await browser.post("/api/auth/account/deletion")).status).toBe(200);
    for (const mail of await toldEach(seen, "Your account is scheduled for deletion")) {
      expectDressed(mail, /Where: Firefox 126/);
      expect(mail.text).toMatch(/It will be erased at \d{4}-\d{2}-\d{2}T/);
    }
    const again = await counts([email, recovery]);
    expect((await browser.post("/api/auth/account/deletion")).status).toBe(200);
    await toldNone(again, "Your account is scheduled for deletion");
  });
});
