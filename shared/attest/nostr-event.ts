// Reading an OC Attest Nostr event (kind 30078, oc-wire-formats §1.12) into its envelope, enforcing the NIP's
// invariants. The Nostr key is transport only: the event's Schnorr signature is deliberately not checked here.
import { decodeAddress } from "../bitcoin/address";
import type { NostrEvent } from "../nostr/relay-pool";
import { checkEnvelopeConsistency, type EnvelopeContent, type EnvelopeFailure, isEnvelopeContent } from "./envelope";
import type { ParsedAttestation } from "./parse";

export const ATTESTATION_EVENT_KIND = 30078;
/** The `t` tag every current publisher adds so that all attestations can be enumerated. */
export const ATTESTATION_TOPIC = "oc-attest";
// Older drafts wrote the `d` tag as `orangecheck:<id>`; consumers accept both.
const LEGACY_D_PREFIX = "orangecheck:";

export type { NostrEvent } from "../nostr/relay-pool";

export type NostrEventFailure =
  | "event_malformed"
  | "wrong_kind"
  | "missing_d_tag"
  | "content_not_json"
  | "d_tag_mismatch"
  | "address_tag_mismatch"
  | "address_not_tagged"
  | EnvelopeFailure;

export type NostrEventParse =
  | { ok: true; attestationId: string; envelope: EnvelopeContent; parsed: ParsedAttestation }
  | { ok: false; reason: NostrEventFailure };

function isTagList(tags: unknown): tags is string[][] {
  return Array.isArray(tags) && tags.every((tag) => Array.isArray(tag) && tag.every((v) => typeof v === "string"));
}

function tagValues(tags: readonly string[][], name: string): string[] {
  return tags.filter((tag) => tag[0] === name && tag.length > 1).map((tag) => tag[1] as string);
}

/**
 * Relay data is untrusted, so the input is `unknown`. Identities come from the signed message (`parsed`);
 * `i` tags are ignored, as the NIP requires for any that the message does not sign. `expected` pins the
 * queried subject (see checkEnvelopeConsistency).
 */
export async function parseNostrAttestationEvent(
  event: unknown,
  expected: { attestationId?: string; address?: string } = {},
): Promise<NostrEventParse> {
  if (typeof event !== "object" || event === null) return { ok: false, reason: "event_malformed" };
  const { kind, tags, content } = event as Partial<Record<keyof NostrEvent, unknown>>;
  if (!isTagList(tags) || typeof content !== "string") return { ok: false, reason: "event_malformed" };
  if (kind !== ATTESTATION_EVENT_KIND) return { ok: false, reason: "wrong_kind" };
  // NIP-01: a parameterised replaceable event is keyed by its first `d` tag.
  const d = tagValues(tags, "d")[0];
  if (d === undefined || d === "") return { ok: false, reason: "missing_d_tag" };
  const dId = d.startsWith(LEGACY_D_PREFIX) ? d.slice(LEGACY_D_PREFIX.length) : d;

  let envelope: unknown;
  try {
    envelope = JSON.parse(content);
  } catch {
    return { ok: false, reason: "content_not_json" };
  }
  if (!isEnvelopeContent(envelope)) return { ok: false, reason: "envelope_malformed" };
  if (dId !== envelope.attestation_id) return { ok: false, reason: "d_tag_mismatch" };
  const addressTags = tagValues(tags, "address");
  const topics = tagValues(tags, "t");
  // A `t` naming another Bitcoin address would list this event under that address's discovery query.
  const otherAddress = (value: string) => value !== envelope.address && decodeAddress(value).ok;
  if (addressTags.some((address) => address !== envelope.address) || topics.some(otherAddress)) {
    return { ok: false, reason: "address_tag_mismatch" };
  }
  // The NIP requires a `t` tag with the address; SDK 1.3.0 events carry only the `address` tag. Either binds it.
  if (!addressTags.includes(envelope.address) && !topics.includes(envelope.address)) {
    return { ok: false, reason: "address_not_tagged" };
  }
  const check = await checkEnvelopeConsistency(envelope, expected);
  if (!check.ok) return check;
  return { ok: true, attestationId: dId, envelope: check.envelope, parsed: check.parsed };
}
