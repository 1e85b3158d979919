// The attestations signed by bip322-js in Node (TEST_ATTESTATIONS), their envelopes and nostr events, and a way to
// fund their addresses on the loopback chain.
import { env } from "cloudflare:test";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { attestationId, createAttestationEnvelope } from "../../shared/attest";
import type { SignedAttestation } from "../harness/attestations";
import { attestationEvent } from "../harness/nostr-event.mjs";
import { publish, setTip, setUtxos, utxo } from "./fakes";

export const TIP = 900_000;

export function fixture(name: string): SignedAttestation {
  const all = JSON.parse(env.TEST_ATTESTATIONS ?? "[]") as SignedAttestation[];
  const found = all.find((a) => a.name === name);
  if (!found) throw new Error(`no fixture ${name}`);
  return found;
}

export function schemeOf(a: SignedAttestation): "bip322" | "legacy" {
  return a.kind === "p2pkh" ? "legacy" : "bip322";
}

export async function envelopeOf(a: SignedAttestation) {
  return createAttestationEnvelope({
    message: a.message,
    signature: a.signature,
    scheme: schemeOf(a),
    attestationId: await attestationId(a.message),
  });
}

/** Publishes the attestation's kind-30078 event to the given relays (both by default). */
export async function publishAttestation(a: SignedAttestation, relays: number[] = [0, 1]) {
  const envelope = await envelopeOf(a);
  await publish(attestationEvent(envelope, secp256k1.utils.randomSecretKey(), a.identities), relays);
  return envelope;
}

/** Gives the address `sats` in one UTXO, `ageDays` old and deep enough to count. */
export async function fund(address: string, sats: number, ageDays: number) {
  await setTip(TIP);
  await setUtxos(address, [utxo(sats, { tipHeight: TIP, ageDays })]);
}
