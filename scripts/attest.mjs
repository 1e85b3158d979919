#!/usr/bin/env node
// README walk-through for the verification API: make an OC Attest v1 attestation with a WIF key (bip322-js signs
// the canonical message), verify it through POST /api/verify, publish it to a nostr relay, and fund the address on
// the local chain (scripts/fakes.mjs) so /api/check and /api/discover find a bond.
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { Signer } from "bip322-js";
import WebSocket from "ws";
import { attestationEvent } from "../test/harness/nostr-event.mjs";
import { CliError, parseCli, reach, requestJson, run } from "./lib/cli.mjs";
import { importTs } from "./lib/import-ts.mjs";
import { generateSigningWif } from "./wif.mjs";

const USAGE = `Make an OC Attest v1 attestation from a WIF key, verify it, and optionally fund and publish it locally.

  npm run attest -- [--wif <WIF>] [--type p2wpkh|p2tr|p2pkh|p2sh-p2wpkh] [--identity github:alice]… [--bond <sats>]
                    [--fund <sats> --age-days <n>] [--publish] [--base http://localhost:8787]
                    [--esplora http://127.0.0.1:3002] [--relay ws://127.0.0.1:7777]

--fund and --publish need the local chain and relay of npm run fakes.`;

const { values } = parseCli(USAGE, {
  options: {
    wif: { type: "string" },
    type: { type: "string", default: "p2wpkh" },
    identity: { type: "string", multiple: true, default: [] },
    bond: { type: "string" },
    fund: { type: "string" },
    "age-days": { type: "string", default: "60" },
    publish: { type: "boolean", default: false },
    base: { type: "string", default: "http://localhost:8787" },
    esplora: { type: "string", default: "http://127.0.0.1:3002" },
    relay: { type: "string", default: "ws://127.0.0.1:7777" },
  },
});

await run(async () => {
  const { buildAttestationMessage } = await importTs("shared/attest/canonical.ts");
  const { attestationId } = await importTs("shared/attest/id.ts");
  const { createAttestationEnvelope } = await importTs("shared/attest/envelope.ts");

  const { wif, address } = generateSigningWif(values.wif, values.type);
  if (!values.wif) console.log(`new key (keep it): --wif ${wif} --type ${values.type}`);
  const identities = values.identity.map((s) => {
    const i = s.indexOf(":");
    return { protocol: s.slice(0, i), identifier: s.slice(i + 1) };
  });
  const message = buildAttestationMessage({
    address,
    identities,
    nonce: randomBytes(16).toString("hex"),
    issuedAt: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    extensions: values.bond ? { bond: values.bond } : {},
  });
  const signature = Signer.sign(wif, address, message);
  const id = await attestationId(message);
  console.log(`attestation ${id} for ${address}\n${message}`);

  if (values.fund) {
    const tip = Number(await (await reach(`${values.esplora}/blocks/tip/height`)).text());
    const utxo = {
      txid: randomBytes(32).toString("hex"),
      vout: 0,
      value: Number(values.fund),
      status: {
        confirmed: true,
        block_height: tip - 100,
        block_time: Math.floor(Date.now() / 1000) - Number(values["age-days"]) * 86400,
      },
    };
    const res = await reach(`${values.esplora}/__admin/address/${address}/utxo`, {
      method: "PUT",
      body: JSON.stringify([utxo]),
    });
    console.log(
      `funded ${address} with ${values.fund} sats, ${values["age-days"]} days old, on the local chain: ${res.status}`,
    );
  }

  const verify = await requestJson(values.base, "POST", "/api/verify", {
    body: { addr: address, msg: message, sig: signature, scheme: "bip322" },
  });
  console.log(`POST /api/verify → ${verify.res.status}`, JSON.stringify(verify.json, null, 2));

  if (values.publish) {
    const envelope = createAttestationEnvelope({
      message,
      signature,
      scheme: values.type === "p2pkh" ? "legacy" : "bip322" /* bip322-js signs 1… addresses the legacy way */,
      attestationId: id,
    });
    const event = attestationEvent(envelope, secp256k1.utils.randomSecretKey(), identities);
    const socket = new WebSocket(values.relay);
    const answer = await new Promise((resolve, reject) => {
      socket.on("open", () => socket.send(JSON.stringify(["EVENT", event])));
      socket.on("message", (data) => resolve(JSON.parse(data.toString())));
      socket.on("error", (err) =>
        reject(
          new CliError(
            `could not reach the relay ${values.relay} (${err.code ?? err.message})`,
            "start it with npm run fakes",
          ),
        ),
      );
    });
    socket.close();
    console.log(`published to ${values.relay}: ${JSON.stringify(answer)}`);
    console.log(`try: curl '${values.base}/api/discover?addr=${address}'`);
    console.log(`     curl '${values.base}/api/check?addr=${address}&min_sats=1000&min_days=30'`);
  }
});
