// NIP-01 event id and Schnorr signature (pure: used by the local relay, the tests and the publish script).
import { schnorr } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

export function eventId(event) {
  const serial = JSON.stringify([0, event.pubkey, event.created_at, event.kind, event.tags, event.content]);
  return bytesToHex(sha256(new TextEncoder().encode(serial)));
}

export function signEvent(unsigned, secretKey) {
  const pubkey = bytesToHex(schnorr.getPublicKey(secretKey));
  const event = { ...unsigned, pubkey };
  const id = eventId(event);
  return { ...event, id, sig: bytesToHex(schnorr.sign(hexToBytes(id), secretKey)) };
}

export function verifyEvent(event) {
  try {
    return (
      eventId(event) === event.id &&
      schnorr.verify(hexToBytes(event.sig), hexToBytes(event.id), hexToBytes(event.pubkey))
    );
  } catch {
    return false;
  }
}

/** The NIP_ORANGECHECK kind-30078 event for an attestation envelope (oc-wire-formats §1.12). */
export function attestationEvent(envelope, secretKey, identities = []) {
  const tags = [
    ["d", envelope.attestation_id],
    ["t", envelope.address],
    ["t", "oc-attest"],
    ["address", envelope.address],
    ["scheme", envelope.scheme],
    ["issued_at", envelope.issued_at],
    ...identities.map((i) => ["i", `${i.protocol}:${i.identifier}`]),
  ];
  const created_at = Math.floor(Date.parse(envelope.issued_at) / 1000);
  return signEvent({ kind: 30078, created_at, tags, content: JSON.stringify(envelope) }, secretKey);
}
