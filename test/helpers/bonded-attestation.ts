// A signed attestation made good on the local upstreams, as the verification API's end-to-end tests need it: its
// address funded on the fake Esplora API with one confirmed UTXO of a given age, and its envelope as the nostr event
// a relay would carry (signed by a fresh nostr key).
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { attestationId, createAttestationEnvelope } from "../../shared/attest";
import type { SignedAttestation } from "../harness/attestations";
import { attestationEvent } from "../harness/nostr-event.mjs";

export const TIP = 900_000;

/** The chain tip at TIP and one UTXO of `sats` for the address, mined `days` ago. */
export async function fundAddress(esploraUrl: string, address: string, { sats = 150_000, days = 40 } = {}) {
  const put = (path: string, body: unknown) =>
    fetch(`${esploraUrl}${path}`, { method: "PUT", body: JSON.stringify(body) });
  await put("/__admin/tip", { height: TIP, hash: "ab".repeat(32) });
  const mined = { confirmed: true, block_height: TIP - 99, block_time: Math.floor(Date.now() / 1000) - days * 86400 };
  await put(`/__admin/address/${address}/utxo`, [
    { txid: randomBytes(32).toString("hex"), vout: 0, value: sats, status: mined },
  ]);
}

/** The attestation's envelope as a signed nostr event, ready to publish. */
export async function attestationEventOf(a: SignedAttestation) {
  const envelope = await createAttestationEnvelope({
    message: a.message,
    signature: a.signature,
    scheme: "bip322",
    attestationId: await attestationId(a.message),
  });
  return attestationEvent(envelope, secp256k1.utils.randomSecretKey(), a.identities);
}
