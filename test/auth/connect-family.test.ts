// Connect (apps, key rotation, idempotent provisioning), family statistics, and the contact-form relay.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AUTH_ORIGIN, Browser } from "../helpers/browser";
import { EmailBrowser, lastCode } from "../helpers/email-code";
import { newWallet } from "../helpers/wallet";

async function integrator() {
  const browser = new Browser();
  await browser.signIn(newWallet());
  const res = await browser.post("/api/connect/apps", { name: "My app" });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { app: { id: string }; key: string };
  return { browser, appId: body.app.id, key: body.key };
}

const provision = (key: string, json: unknown) =>
  SELF.fetch(`${AUTH_ORIGIN}/api/connect/provision`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "cf-connecting-ip": "192.0.2.77" },
    body: JSON.stringify(json),
  });

describe("Connect", () => {
  it("shows the app key once; provisioning is idempotent per (app, user_id)", async () => {
    const { browser, key } = await integrator();
    expect(key).toMatch(/^ocak_[0-9a-f]{64}$/);
    const list = await browser.fetch("/api/connect/apps");
    expect(JSON.stringify(await list.json())).not.toContain(key);
    const first = (await (await provision(key, { user_id: "u-1", email: "u1@example.com" })).json()) as {
      did_oc: string;
      is_new: boolean;
    };
    expect(first).toMatchObject({ ok: true, is_new: true });
    expect(first.did_oc).toMatch(/^did:oc:[0-9a-f]{32}$/);
    const again = (await (await provision(key, { user_id: "u-1" })).json()) as { did_oc: string; is_new: boolean };
    expect(again).toEqual({ ok: true, did_oc: first.did_oc, is_new: false });
    const other = (await (await provision(key, { user_id: "u-2" })).json()) as { did_oc: string };
    expect(other.did_oc).not.toBe(first.did_oc);
    const stored = await env.DB.prepare("SELECT * FROM connect_apps").all<Record<string, unknown>>();
    expect(JSON.stringify(stored.results)).not.toContain(key);
  });

  it("attack: an integrator cannot pre-claim a stranger's email sign-in; the email stays unverified contact data", async () => {
    const { key } = await integrator();
    const victim = `victim-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const provisioned = (await (await provision(key, { user_id: "trap", email: victim })).json()) as { did_oc: string };
    const identity = await env.DB.prepare("SELECT * FROM account_identities WHERE kind = 'email' AND value = ?")
      .bind(victim)
      .first();
    expect(identity).toBeNull();
    const contact = await env.DB.prepare("SELECT email FROM connect_users WHERE user_id = 'trap'").first<{
      email: string;
    }>();
    expect(contact?.email).toBe(victim);
    // The holder of the address proves it with a code and lands in an account of their own.
    const browser = new EmailBrowser();
    expect((await browser.start(victim)).status).toBe(200);
    const signedIn = await browser.verify(victim, await lastCode(victim));
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.account.did_oc).not.toBe(provisioned.did_oc);
  });

  it("refuses a wrong key (401 unauthorized); a rotated key replaces the old one at once", async () => {
    const { browser, appId, key } = await integrator();
    expect(
      ((await (await provision(`ocak_${"0".repeat(64)}`, { user_id: "x" })).json()) as { reason: string }).reason,
    ).toBe("unauthorized");
    expect((await provision("garbage", { user_id: "x" })).status).toBe(401);
    const rotated = (await (await browser.post(`/api/connect/apps/${appId}/rotate`)).json()) as { key: string };
    expect(rotated.key).not.toBe(key);
    expect((await provision(key, { user_id: "x" })).status).toBe(401);
    expect((await provision(rotated.key, { user_id: "x" })).status).toBe(200);
    // Another integrator cannot rotate this app.
    const stranger = new Browser();
    await stranger.signIn(newWallet());
    expect((await stranger.post(`/api/connect/apps/${appId}/rotate`)).status).toBe(404);
  });
});

describe("family statistics", () => {
  it("is public, cached a minute, and counts accounts and identities", async () => {
    await new Browser().signIn(newWallet());
    const res = await SELF.fetch(`${AUTH_ORIGIN}/api/family-stats`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    const body = (await res.json()) as { accounts: number; identities: Record<string, number> };
    expect(body.accounts).toBeGreaterThan(0);
    expect(body.identities.btc).toBeGreaterThan(0);
  });
});

describe("contact form", () => {
  const valid = { name: "Ada", email: "ada@example.com", company: "Engines", topic: "sales", message: "Hello there" };

  it("relays a valid message to the team, reply-to the sender", async () => {
    const res = await new Browser().post("/api/contact", valid);
    expect(res.status).toBe(200);
    const mails = (await (await fetch(`${env.MAIL_API_URL}/__admin/emails?to=team@example.com`)).json()) as {
      subject: string;
      reply_to: string;
    }[];
    expect(mails[mails.length - 1]).toMatchObject({
      subject: "[contact/sales] Ada (Engines)",
      reply_to: "ada@example.com",
    });
  });

  it("answers each field's reason, 403 honeypot for the hidden field, and 403 cross_site_blocked cross-site", async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...valid, website: "http://spam" }, 403, "honeypot"],
      [{ ...valid, name: "" }, 400, "bad_name"],
      [{ ...valid, name: "x".repeat(101) }, 400, "bad_name"],
      [{ ...valid, email: "not-an-email" }, 400, "bad_email"],
      [{ ...valid, company: "c".repeat(101) }, 400, "bad_company"],
      [{ ...valid, topic: "gossip" }, 400, "bad_topic"],
      [{ ...valid, message: "" }, 400, "bad_message"],
      [{ ...valid, message: "m".repeat(5001) }, 400, "bad_message"],
    ];
    for (const [body, status, reason] of cases) {
      const res = await new Browser().post("/api/contact", body);
      expect(res.status, reason).toBe(status);
      expect(((await res.json()) as { reason: string }).reason).toBe(reason);
    }
    const cross = await new Browser().post("/api/contact", valid, { headers: { "sec-fetch-site": "cross-site" } });
    expect(cross.status).toBe(403);
    expect(((await cross.json()) as { reason: string }).reason).toBe("cross_site_blocked");
  });
});
