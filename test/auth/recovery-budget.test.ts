// Review 3, item 10: recovery sign-in starts are budgeted per address and asking network (3 a day), with a backstop
// per address (10 a day from every network), so a stranger's three starts do not keep the owner out.
import { describe, expect, it } from "vitest";
import { RECOVERY_STARTS_PER_ADDRESS_DAY, RECOVERY_STARTS_PER_DAY } from "../../shared/auth/email-code";
import { EmailBrowser, freshEmail, lastCode, mailsAfter, mailsTo, signedInByEmail } from "../helpers/email-code";

const start = async (b: EmailBrowser, email: string) => {
  const res = await b.post("/api/auth/recovery/signin/start", { email });
  return { status: res.status, body: (await res.json()) as { reason?: string } };
};

/** An account whose recovery address is a fresh address; the address. */
async function recoverable(): Promise<string> {
  const { browser } = await signedInByEmail(freshEmail("owner"));
  const address = freshEmail("recover");
  expect((await browser.post("/api/auth/recovery/start", { email: address })).status).toBe(200);
  const set = await browser.post("/api/auth/recovery/verify", { email: address, code: await lastCode(address) });
  expect(set.status).toBe(200);
  return address;
}

describe("the recovery start budget", () => {
  it("a stranger's starts spend the stranger's budget: the owner, from another network and browser, still gets a code", async () => {
    const address = await recoverable();
    const stranger = new EmailBrowser();
    for (let i = 0; i < RECOVERY_STARTS_PER_DAY; i++) expect((await start(stranger, address)).status).toBe(200);
    // The same browser and network past its budget: 429.
    expect(await start(stranger, address)).toMatchObject({ status: 429, body: { reason: "rate_limited" } });
    // The owner elsewhere: a start, and its code mailed.
    const seen = (await mailsTo(address)).length;
    const owner = new EmailBrowser();
    expect((await start(owner, address)).status).toBe(200);
    const mails = await mailsAfter(address, seen);
    expect(mails.some((m) => /recovery sign-in code/.test(m.subject))).toBe(true);
  });

  it("the per-address backstop refuses every network once the address had its day's starts", async () => {
    const address = freshEmail("backstop");
    let spent = 0;
    while (spent < RECOVERY_STARTS_PER_ADDRESS_DAY) {
      const asker = new EmailBrowser();
      for (let i = 0; i < RECOVERY_STARTS_PER_DAY && spent < RECOVERY_STARTS_PER_ADDRESS_DAY; i++, spent++) {
        expect((await start(asker, address)).status).toBe(200);
      }
    }
    expect(await start(new EmailBrowser(), address)).toMatchObject({ status: 429, body: { reason: "rate_limited" } });
    // Another address is not affected.
    expect((await start(new EmailBrowser(), freshEmail("other"))).status).toBe(200);
  });
});
