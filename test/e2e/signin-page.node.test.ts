// The sign-in page in a real browser: headless Chromium (Debian's package, installed here if missing) driven by
// playwright-core against the whole stack started as `npm start` would (on other ports), with a local mail API and
// a local OpenID Connect provider. It asserts what a person sees (sentences, not codes; no sign-out button while
// signed out; the whole message to sign; no script or CSP errors). Screenshots go to test-artifacts/signin/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Signer } from "bip322-js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { pageErrors } from "../harness/browser-session";
import { ensureChromium, launchChromium, startStack } from "../harness/browser-stack.mjs";
import { startMail } from "../harness/mail-server.mjs";
import { startOidc } from "../harness/oidc-server.mjs";

const ORIGIN = "http://localhost:8797";
const root = path.join(import.meta.dirname, "../..");
const artifacts = path.join(root, "test-artifacts", "signin");

let stack: Awaited<ReturnType<typeof startStack>> | undefined;
let browser: Browser | undefined;
let mail: Awaited<ReturnType<typeof startMail>>;
let oidc: Awaited<ReturnType<typeof startOidc>>;

beforeAll(async () => {
  ensureChromium();
  mkdirSync(artifacts, { recursive: true });
  mail = await startMail();
  oidc = await startOidc();
  // A fresh state per run (startStack empties it): the hourly email-code limits would otherwise carry over.
  stack = await startStack({
    auth: 8797,
    fleet: 8798,
    authInspector: 9239,
    fleetInspector: 9240,
    stateDir: ".build/e2e-state",
    env: {
      MAIL_API_URL: mail.url,
      MAIL_API_KEY: mail.apiKey,
      MAIL_FROM: "e2e <e2e@example.com>",
      OIDC_ISSUER: oidc.issuer,
      // The local provider adds an email claim to this client's id_tokens (test/harness/oidc-server.mjs CLAIMS).
      OIDC_CLIENT_ID: "with-email",
      OIDC_CLIENT_SECRET: "e2e-secret",
      OIDC_LABEL: "Local OIDC",
    },
  });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await mail?.close();
  await oidc?.close();
});

/** The email the local provider puts in the id_tokens of client `with-email`. */
const PROVIDER_EMAIL = "ada@example.com";

/** The sentences GET /api/reasons serves, by reason. */
async function sentences(): Promise<Map<string, string>> {
  const body = (await (await fetch(`${ORIGIN}/api/reasons`)).json()) as {
    reasons: { reason: string; message: string }[];
  };
  return new Map(body.reasons.map((entry) => [entry.reason, entry.message]));
}

/** A fresh browser context's page, with every console error and uncaught exception collected (pageErrors). */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await (await (browser as Browser).newContext()).newPage();
  return { page, errors: pageErrors(page) };
}

/** Whether an element is shown to a person (rendered, not hidden by `[hidden]` or CSS). */
const visible = (page: Page, selector: string) => page.locator(selector).isVisible();

async function lastCode(email: string): Promise<string> {
  const mails = (await (await fetch(`${mail.url}/__admin/emails?to=${encodeURIComponent(email)}`)).json()) as {
    subject: string;
  }[];
  return /(\d{6})/.exec(mails[mails.length - 1]?.subject ?? "")?.[1] ?? "";
}

/** The email-code path on the page, with the code read from the local mail API. */
async function signInByEmail(page: Page, email: string): Promise<string> {
  await page.fill("#email", email);
  await page.click("#email-send");
  await page.waitForSelector("#email-code", { state: "visible" });
  await expect.poll(() => lastCode(email)).toMatch(/^\d{6}$/);
  await page.fill("#email-code", await lastCode(email));
  await page.click("#email-verify");
  await expect.poll(() => page.textContent("#active")).toContain(email);
  return email;
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** Gets the message to sign for `address` and checks a person sees all of it (no cut line, no inner scrollbar). */
async function messageToSign(page: Page, address: string): Promise<string> {
  await page.fill("#btc-address", address);
  await page.click("#btc-challenge");
  await page.waitForSelector("#btc-signature", { state: "visible" });
  const message = await page.inputValue("#btc-message");
  expect(message.split("\n").length).toBeGreaterThan(3);
  const area = await page.$eval("#btc-message", (el) => ({ scroll: el.scrollHeight, client: el.clientHeight }));
  expect(area.scroll).toBeLessThanOrEqual(area.client);
  return message;
}

describe("sign-in page", () => {
  it("signs in by email code, adds a Bitcoin account, switches, and signs out of one", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${ORIGIN}/signin`);
    await expect.poll(() => page.textContent("#active")).toBe("Not signed in.");
    // Signed out, there is nothing to sign out of: neither button shows.
    expect(await visible(page, "#signout-current")).toBe(false);
    expect(await visible(page, "#signout-all")).toBe(false);
    await shot(page, "1-anonymous");

    const email = await signInByEmail(page, `e2e-${Date.now()}@example.com`);
    expect(await visible(page, "#signout-current")).toBe(true);
    await shot(page, "2-email-signed-in");

    await page.goto(`${ORIGIN}/signin?add=1`);
    const { wif, address } = generateSigningWif(undefined, "p2wpkh");
    const message = await messageToSign(page, address);
    await page.fill("#btc-signature", Signer.sign(wif, address, message) as string);
    await page.click("#btc-signin");
    await expect.poll(() => page.textContent("#active")).toContain(address);
    await expect.poll(() => page.textContent("#accounts")).toContain(email);
    expect(await visible(page, "#signout-all")).toBe(true);
    await shot(page, "3-two-accounts");

    await page.click("[data-switch]");
    await expect.poll(() => page.textContent("#active")).toContain(email);
    await shot(page, "4-switched");

    await page.click("#signout-current");
    await expect.poll(() => page.textContent("#active")).toContain(address);
    await expect.poll(() => page.textContent("#accounts")).toBe("");

    await page.click("#signout-current");
    await expect.poll(() => page.textContent("#active")).toBe("Not signed in.");
    expect(await visible(page, "#signout-current")).toBe(false);
    expect(await visible(page, "#signout-all")).toBe(false);
    await shot(page, "5-signed-out");
    expect(errors).toEqual([]);
  }, 60_000);

  it("shows a refused signature as a sentence, not its code, and clears it when the next try succeeds", async () => {
    const { page, errors } = await openPage();
    const said = await sentences();
    await page.goto(`${ORIGIN}/signin`);
    const { wif, address } = generateSigningWif(undefined, "p2tr");
    const message = await messageToSign(page, address);
    const other = generateSigningWif(undefined, "p2tr");
    await page.fill("#btc-signature", Signer.sign(other.wif, other.address, message) as string);
    await page.click("#btc-signin");
    const sentence = said.get("challenge_sig_invalid") ?? "";
    expect(sentence).toMatch(/^That signature doesn't match/);
    await expect.poll(() => page.textContent("#btc-msg")).toBe(sentence);
    expect(await page.locator("#btc-msg.error").isVisible()).toBe(true);
    expect(await page.textContent("body")).not.toMatch(/challenge_sig_invalid|[a-z]+_[a-z]+_[a-z]+/);
    await shot(page, "7-signature-refused");

    await page.fill("#btc-signature", Signer.sign(wif, address, message) as string);
    await page.click("#btc-signin");
    await expect.poll(() => page.textContent("#active")).toContain(address);
    expect(await page.textContent("#btc-msg")).toBe(`Signed in as ${address}.`);
    expect(await page.locator(".msg.error").count()).toBe(0);
    await shot(page, "8-signature-accepted");
    expect(errors).toEqual([]);
  }, 60_000);

  it("signs in through a provider button (local OpenID Connect), shown by its email, beside the account there", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${ORIGIN}/signin`);
    const email = await signInByEmail(page, `e2e-oidc-${Date.now()}@example.com`);

    await page.goto(`${ORIGIN}/signin?add=1`);
    await page.click('[data-provider="oidc"]');
    await page.waitForURL(`${ORIGIN}/signin?add=1`);
    await expect.poll(() => page.textContent("#active")).toBe(`Signed in as ${PROVIDER_EMAIL}`);
    await expect.poll(() => page.textContent("#accounts")).toContain(email);
    expect(await page.textContent("body")).not.toContain("did:oc:");
    await shot(page, "6-provider-added");
    expect(errors).toEqual([]);
  }, 60_000);

  it("brings a person who cancels at the provider back to the page with a sentence", async () => {
    const { page, errors } = await openPage();
    const said = await sentences();
    // The provider's consent screen, answered "cancel": it sends the browser back with error=access_denied.
    const provider = oidc.service as { once(event: string, listener: (redirect: { url: URL }) => void): void };
    provider.once("beforeAuthorizeRedirect", ({ url }) => {
      url.searchParams.delete("code");
      url.searchParams.set("error", "access_denied");
    });
    await page.goto(`${ORIGIN}/signin`);
    await page.click('[data-provider="oidc"]');
    await expect.poll(() => page.textContent("#providers-msg")).toBe(said.get("oauth_access_denied"));
    // The reason is taken out of the address bar: a reload does not say it again.
    expect(page.url()).toBe(`${ORIGIN}/signin`);
    // The roster loads beside the provider's answer: "…" until it has.
    await expect.poll(() => page.textContent("#active")).toBe("Not signed in.");
    await shot(page, "9-provider-cancelled");
    expect(errors).toEqual([]);
  }, 60_000);

  it("signs in through a browser wallet; an absent or refusing wallet leaves paste working, with a sentence", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${ORIGIN}/signin`);
    await page.click("#btc-wallet");
    await expect.poll(() => page.textContent("#btc-msg")).toMatch(/^No browser wallet was found\./);

    // A stand-in for Unisat's injected API whose key lives in Node (bip322-js signs there).
    const { wif, address } = generateSigningWif(undefined, "p2wpkh");
    const signed: string[] = [];
    let refuse = true;
    await page.exposeFunction("testWalletSign", (message: string) => {
      if (refuse) throw new Error("User rejected the request.");
      signed.push(message);
      return Signer.sign(wif, address, message) as string;
    });
    await page.addInitScript((walletAddress) => {
      const scope = globalThis as unknown as { unisat: unknown; testWalletSign(message: string): Promise<string> };
      scope.unisat = {
        requestAccounts: async () => [walletAddress],
        signMessage: async (message: string, type: string) => {
          if (type !== "bip322-simple") throw new Error(`not a BIP-322 request: ${type}`);
          return scope.testWalletSign(message);
        },
      };
    }, address);
    await page.reload();
    await page.click("#btc-wallet");
    await expect.poll(() => page.textContent("#btc-msg")).toMatch(/^The wallet did not sign\./);
    const message = await page.inputValue("#btc-message");
    await page.fill("#btc-signature", Signer.sign(wif, address, message) as string);
    await page.click("#btc-signin");
    await expect.poll(() => page.textContent("#active")).toContain(address);
    await page.click("#signout-current");
    await expect.poll(() => page.textContent("#active")).toBe("Not signed in.");

    refuse = false;
    await page.click("#btc-wallet");
    await expect.poll(() => page.textContent("#active")).toBe(`Signed in as ${address}`);
    expect(signed).toHaveLength(1);
    expect(signed[0]).toBe(await page.inputValue("#btc-message"));
    expect(await page.locator(".msg.error").count()).toBe(0);
    await shot(page, "10-wallet-signed-in");
    expect(errors).toEqual([]);
  }, 60_000);

  it("signs in through Xverse (sats-connect) and Leather, each in its own protocol; with both, a person picks", async () => {
    const { page, errors } = await openPage();
    // Stand-ins for the providers the two wallets inject, speaking their JSON-RPC; the keys live in Node.
    const xverseKey = generateSigningWif(undefined, "p2sh-p2wpkh"); // Xverse's payment address type
    const leatherKey = generateSigningWif(undefined, "p2wpkh"); // Leather's default signing type
    const asked: string[] = [];
    await page.exposeFunction("testSign", (wallet: string, request: string) => {
      asked.push(`${wallet} ${request}`);
      const { message, address } = JSON.parse(request) as { message: string; address?: string };
      const key = wallet === "xverse" ? xverseKey : leatherKey;
      if (address !== undefined && address !== key.address) throw new Error("asked to sign with another address");
      return Signer.sign(key.wif, key.address, message) as string;
    });
    await page.addInitScript(
      ([xverseAddress, leatherAddress]) => {
        type Params = Record<string, unknown>;
        const scope = globalThis as unknown as Record<string, unknown> & {
          testSign(wallet: string, request: string): Promise<string>;
        };
        const answer = (result: unknown) => ({ jsonrpc: "2.0", id: crypto.randomUUID(), result });
        scope.XverseProviders = {
          BitcoinProvider: {
            request: async (method: string, params: Params) => {
              if (method === "getInfo") return answer({ version: "1.5.0", platform: "web", methods: [], supports: [] });
              if (method === "wallet_connect") {
                const entry = { address: xverseAddress, publicKey: "", purpose: "payment", addressType: "p2sh" };
                return answer({ id: "x", addresses: [{ ...entry, walletType: "software" }], walletType: "software" });
              }
              if (method === "signMessage" && params.protocol === "BIP322") {
                const signature = await scope.testSign("xverse", JSON.stringify(params));
                return answer({ signature, messageHash: "", address: params.address, protocol: "BIP322" });
              }
              return { jsonrpc: "2.0", id: "x", error: { code: -32601, message: `no ${method}` } };
            },
          },
        };
        scope.LeatherProvider = {
          request: async (method: string, params: Params) => {
            if (method === "getAddresses") {
              const addresses = [
                { symbol: "BTC", type: "p2tr", address: "bc1p-not-this-one" },
                { symbol: "BTC", type: "p2wpkh", address: leatherAddress },
              ];
              return answer({ addresses });
            }
            if (method === "signMessage" && params.paymentType === "p2wpkh") {
              const signature = await scope.testSign("leather", JSON.stringify(params));
              return answer({ signature, address: leatherAddress, message: params.message });
            }
            throw { jsonrpc: "2.0", id: "x", error: { code: 4001, message: "User rejected request" } };
          },
        };
      },
      [xverseKey.address, leatherKey.address],
    );
    const fetched: string[] = [];
    page.on("request", (request) => fetched.push(new URL(request.url()).pathname));
    await page.goto(`${ORIGIN}/signin`);
    await page.click("#btc-wallet");
    expect(await page.locator("#btc-wallets button").allTextContents()).toEqual(["Xverse", "Leather"]);
    await expect.poll(() => page.textContent("#btc-msg")).toBe("Choose the wallet to sign in with.");
    // Xverse's client is fetched when Xverse is chosen, not with the page.
    expect(fetched.filter((name) => name.includes("/xverse-"))).toEqual([]);
    await page.click("#btc-wallets >> text=Xverse");
    // Loading the client, asking the wallet twice and signing in take more than expect.poll's default second.
    const signedIn = { timeout: 15_000 };
    await expect.poll(() => page.textContent("#active"), signedIn).toBe(`Signed in as ${xverseKey.address}`);
    expect(fetched.filter((name) => name.includes("/xverse-"))).toHaveLength(1);
    expect(await visible(page, "#btc-wallets")).toBe(false);
    await page.click("#signout-current");
    await expect.poll(() => page.textContent("#active")).toBe("Not signed in.");

    await page.click("#btc-wallet");
    await page.click("#btc-wallets >> text=Leather");
    await expect.poll(() => page.textContent("#active"), signedIn).toBe(`Signed in as ${leatherKey.address}`);
    expect(asked.map((line) => line.split(" ")[0])).toEqual(["xverse", "leather"]);
    expect(JSON.parse(asked[0]?.slice("xverse ".length) ?? "{}")).toMatchObject({ protocol: "BIP322" });
    expect(await page.locator(".msg.error").count()).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);
});
