#!/usr/bin/env node
// README walk-through: sign in to a running auth host with a BIP-322 signature made from a WIF key, as a wallet
// would. Prints the account, keeps the cookie in a jar file, and can add a second account, switch and log out.
//
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Signer } from "bip322-js";
import { parseCli, requestJson, run } from "./lib/cli.mjs";
import { generateSigningWif } from "./wif.mjs";

const USAGE = `Sign in to a running auth host with a BIP-322 signature from a WIF key, as a wallet would.

  npm run signin -- [--wif <WIF>] [--type p2wpkh|p2tr|p2pkh] [--add] [--jar .state/cookie.txt]
                    [--base http://localhost:8787]
  npm run signin -- --me | --switch <did:oc:…> | --logout current|all

Without --wif a fresh key is generated (and printed), so a new account is created. The cookie is kept in --jar.`;

const { values } = parseCli(USAGE, {
  options: {
    wif: { type: "string" },
    type: { type: "string", default: "p2wpkh" },
    base: { type: "string", default: "http://localhost:8787" },
    jar: { type: "string", default: ".state/cookie.txt" },
    add: { type: "boolean", default: false },
    me: { type: "boolean", default: false },
    switch: { type: "string" },
    logout: { type: "string" },
  },
});

const base = values.base.replace(/\/$/, "");
const jar = path.resolve(values.jar);
const readCookie = () => (existsSync(jar) ? readFileSync(jar, "utf8").trim() : "");

async function call(method, route, body) {
  const headers = { "sec-fetch-site": "same-origin" };
  const cookie = readCookie();
  if (cookie) headers.cookie = `oc_session=${cookie}`;
  const { res, json } = await requestJson(base, method, route, { headers, body });
  const setCookie = res.headers.get("set-cookie") ?? "";
  const match = /^oc_session=([^;]*)/.exec(setCookie);
  if (match) {
    mkdirSync(path.dirname(jar), { recursive: true });
    writeFileSync(jar, /Max-Age=0/.test(setCookie) ? "" : match[1], { mode: 0o600 });
  }
  return json;
}

await run(async () => {
  if (values.me) {
    console.log(JSON.stringify(await call("GET", "/api/auth/me"), null, 2));
  } else if (values.switch) {
    console.log(JSON.stringify(await call("POST", "/api/auth/switch", { did_oc: values.switch }), null, 2));
  } else if (values.logout !== undefined) {
    const scope = values.logout || "all";
    console.log(JSON.stringify(await call("POST", `/api/auth/logout?scope=${scope}`), null, 2));
  } else {
    const { wif, address } = generateSigningWif(values.wif, values.type);
    if (!values.wif) console.log(`new key (keep it to sign in again): --wif ${wif}`);
    const query = new URLSearchParams({ addr: address, audience: base, purpose: "login" });
    const challenge = await call("GET", `/api/challenge?${query}`);
    const signature = Signer.sign(wif, address, challenge.message);
    const body = { address, message: challenge.message, signature, nonce: challenge.nonce, add: values.add };
    const result = await call("POST", "/api/auth/signin", body);
    console.log(
      `signed in as ${result.account.did_oc} (${address}); cookie saved in ${path.relative(process.cwd(), jar)}`,
    );
  }
});
