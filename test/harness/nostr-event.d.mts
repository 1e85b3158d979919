// Types for nostr-event.mjs.
import type { NostrEvent } from "../../shared/nostr/relay-pool";

export type NostrEventLike = NostrEvent;
export function eventId(event: Omit<NostrEventLike, "id" | "sig">): string;
export function signEvent(
  unsigned: Omit<NostrEventLike, "id" | "sig" | "pubkey">,
  secretKey: Uint8Array,
): NostrEventLike;
export function verifyEvent(event: NostrEventLike): boolean;
export function attestationEvent(
  envelope: { attestation_id: string; address: string; scheme: string; issued_at: string },
  secretKey: Uint8Array,
  identities?: { protocol: string; identifier: string }[],
): NostrEventLike;
