// Devices (issue 46, item 1): the account's live sessions, one per browser, with what each is (parsed from its
// User-Agent), how and when it signed in, when it was last seen and which is this one; one other browser signed out,
// or every other one; a removed browser's cookie refused at once; last_seen_at written at most once per few minutes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionId } from "../helpers/account-security";
import { CHROME_WINDOWS, codeAfter, DeviceBrowser, FIREFOX_MAC, SAFARI_IPHONE } from "../helpers/device-browser";
import { accountLogOf, freshEmail, setCookies } from "../helpers/email-code";
import { decodePart } from "../helpers/tokens";

interface Device {
  id: string;
  browser: string;
  system: string;
  type: string;
  place: string | null;
  auth_method: string | null;
  signed_in_at: string;
  last_seen_at: string;
  current: boolean;
}

async function devices(browser: DeviceBrowser): Promise<Device[]> {
  const res = await browser.fetch("/api/auth/devices");
  expect(res.status).toBe(200);
  return ((await res.json()) as { devices: Device[] }).devices;
}

/** One account signed in from a browser per User-Agent given. */
async function oneAccountOn(...agents: string[]): Promise<{ email: string; browsers: DeviceBrowser[] }> {
  const email = freshEmail("devices");
  const browsers: DeviceBrowser[] = [];
  for (const agent of agents) {
    const browser = new DeviceBrowser(agent);
    await browser.signInByEmail(email);
    browsers.push(browser);
  }
  return { email, browsers };
}

const reasonOf = async (res: Response) => ((await res.json()) as { reason?: string }).reason;

describe("the devices list", () => {
  it("lists every browser of the account: what it is, how and when it signed in, and this one", async () => {
    const { browsers } = await oneAccountOn(FIREFOX_MAC, SAFARI_IPHONE);
    const [mac, phone] = browsers as [DeviceBrowser, DeviceBrowser];
    const list = await devices(mac);
    expect(list).toHaveLength(2);
    const here = list.find((d) => d.current);
    const there = list.find((d) => !d.current);
    expect(here).toMatchObject({
      id: await sessionId(mac),
      browser: "Firefox 126",
      type: "desktop",
      auth_method: "email",
    });
    expect(here?.system).toMatch(/^macOS/);
    expect(there).toMatchObject({
      id: await sessionId(phone),
      browser: "Safari 17",
      system: "iOS 17.4",
      type: "mobile",
    });
    expect(Date.parse(there?.signed_in_at ?? "")).toBeGreaterThan(Date.now() - 60_000);
    // The place is the network's approximate one, or null where the request has none (as here, locally).
    for (const d of list) expect(d.place === null || typeof d.place === "string").toBe(true);
    // Nothing of a cookie: no jti, no token hash.
    const row = await env.DB.prepare("SELECT token_hash FROM sessions WHERE id = ?").bind(there?.id).first();
    expect(JSON.stringify(list)).not.toContain(String(row?.token_hash));
    // The other browser sees the same two, itself as the current one.
    expect((await devices(phone)).find((d) => d.current)?.id).toBe(there?.id);
  });

  it("needs a session", async () => {
    const res = await new DeviceBrowser(FIREFOX_MAC).fetch("/api/auth/devices");
    expect(res.status).toBe(401);
    expect(await reasonOf(res)).toBe("not_authenticated");
  });
});

describe("signing a browser out", () => {
  it("ends the other browser's session at once; not this one, nor another account's, nor an unknown id", async () => {
    const { browsers } = await oneAccountOn(FIREFOX_MAC, SAFARI_IPHONE);
    const [mac, phone] = browsers as [DeviceBrowser, DeviceBrowser];
    const phoneId = await sessionId(phone);
    const macId = await sessionId(mac);
    // Another account cannot name this account's device: 404, as a device that never existed.
    const { browsers: strangers } = await oneAccountOn(CHROME_WINDOWS);
    const stranger = strangers[0] as DeviceBrowser;
    const theirs = await stranger.fetch(`/api/auth/devices/${phoneId}`, { method: "DELETE" });
    expect([theirs.status, await reasonOf(theirs)]).toEqual([404, "not_found"]);
    expect((await phone.me()).status).toBe(200);
    // This browser signs out with logout, not here.
    const own = await mac.fetch(`/api/auth/devices/${macId}`, { method: "DELETE" });
    expect([own.status, await reasonOf(own)]).toEqual([409, "device_is_current"]);
    const unknown = await mac.fetch(`/api/auth/devices/${crypto.randomUUID()}`, { method: "DELETE" });
    expect([unknown.status, await reasonOf(unknown)]).toEqual([404, "not_found"]);
    const malformed = await mac.fetch("/api/auth/devices/not-an-id", { method: "DELETE" });
    expect([malformed.status, await reasonOf(malformed)]).toEqual([400, "invalid_id"]);
    // From another site: refused before anything changes.
    const crossSite = await mac.fetch(`/api/auth/devices/${phoneId}`, {
      method: "DELETE",
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect([crossSite.status, await reasonOf(crossSite)]).toEqual([403, "cross_site_blocked"]);
    expect((await phone.me()).status).toBe(200);

    const out = await mac.fetch(`/api/auth/devices/${phoneId}`, { method: "DELETE" });
    expect(out.status).toBe(200);
    const refused = await phone.me();
    expect([refused.status, refused.body.reason]).toEqual([401, "not_authenticated"]);
    expect((await mac.me()).status).toBe(200);
    expect((await devices(mac)).map((d) => d.id)).toEqual([macId]);
    const log = await accountLogOf((await mac.me()).body.account.did_oc);
    expect(log.at(-1)).toMatchObject({
      event_type: "session.signed_out",
      session_id: macId,
      detail: { device: phoneId },
    });
  });

  it("signs every other browser out, and the other accounts those browsers hold stay signed in", async () => {
    const { browsers } = await oneAccountOn(FIREFOX_MAC, SAFARI_IPHONE, CHROME_WINDOWS);
    const [mac, phone, windows] = browsers as [DeviceBrowser, DeviceBrowser, DeviceBrowser];
    // The Windows browser also holds another account (its roster): that one is not this account's to end.
    await windows.signInByEmail(freshEmail("other"), true);
    const res = await mac.post("/api/auth/devices/sign-out-others");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, signed_out: 2 });
    expect((await phone.me()).status).toBe(401);
    const left = await windows.me(); // the other account, still active there
    expect(left.status).toBe(200);
    expect(left.body.account.did_oc).not.toBe((await mac.me()).body.account.did_oc);
    expect((await devices(mac)).map((d) => d.current)).toEqual([true]);
  });
});

describe("the oc_device cookie", () => {
  it("is set once per browser, host-only, HttpOnly, Secure, SameSite=Lax, and names no session", async () => {
    const email = freshEmail("cookie");
    const browser = new DeviceBrowser(FIREFOX_MAC);
    expect((await browser.start(email)).status).toBe(200);
    const res = await browser.post("/api/auth/email-otp/verify", { email, code: await codeAfter(email, 0) });
    const line = setCookies(res).find((c) => c.startsWith("oc_device=")) ?? "";
    const attrs = line.split("; ");
    for (const attr of ["Path=/", "HttpOnly", "Secure", "SameSite=Lax", `Max-Age=${400 * 24 * 60 * 60}`]) {
      expect(attrs).toContain(attr);
    }
    expect(line).not.toMatch(/Domain=/i);
    const device = browser.device as string;
    expect(device).toMatch(/^[\w-]{32}$/);
    expect(JSON.stringify(decodePart(browser.cookie as string, 1))).not.toContain(device);
    // The same browser signing in again keeps its value: no new cookie.
    await browser.signInByEmail(email);
    expect(browser.device).toBe(device);
  });
});

describe("last seen", () => {
  it("is written after the answer when older than five minutes, and not again within them", async () => {
    const { browsers } = await oneAccountOn(FIREFOX_MAC);
    const mac = browsers[0] as DeviceBrowser;
    const id = await sessionId(mac);
    const seenAt = async () =>
      (
        await env.DB.prepare("SELECT last_seen_at FROM sessions WHERE id = ?")
          .bind(id)
          .first<{ last_seen_at: number }>()
      )?.last_seen_at;
    const sixMinutesAgo = Date.now() - 6 * 60 * 1000;
    await env.DB.prepare("UPDATE sessions SET last_seen_at = ? WHERE id = ?").bind(sixMinutesAgo, id).run();
    expect((await mac.fetch("/api/auth/devices")).status).toBe(200);
    let seen = await seenAt();
    for (let i = 0; i < 40 && seen === sixMinutesAgo; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      seen = await seenAt();
    }
    expect(seen).toBeGreaterThan(Date.now() - 60_000);
    // Within the interval: no write.
    const aMinuteAgo = Date.now() - 60 * 1000;
    await env.DB.prepare("UPDATE sessions SET last_seen_at = ? WHERE id = ?").bind(aMinuteAgo, id).run();
    expect((await mac.fetch("/api/auth/devices")).status).toBe(200);
    expect((await mac.me()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await seenAt()).toBe(aMinuteAgo);
  });
});
