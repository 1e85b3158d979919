// The orangecheck-auth challenge (oc-wire-formats §2): build the message, parse it, and check a signed one.
// Pure: the clock is passed in; nonce storage and single use are the caller's (see workers/auth/src/challenges.ts).
import type { BitcoinNetwork } from "../bitcoin/address";
import { verifyMessageSignature } from "../bitcoin/bip322";
import { isoSeconds, utcInstant } from "../time";

export const CHALLENGE_HEADER = "orangecheck-auth";
export const CHALLENGE_ACK = "ack: I authorize this session under the OrangeCheck auth challenge.";
const CORE_KEYS = ["address", "nonce", "issued_at", "expires_at", "ack"] as const;
const NONCE = /^[0-9a-f]{32}$/;
const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z$/;

export interface Challenge {
  address: string;
  nonce: string;
  issuedAt: number; // epoch ms
  expiresAt: number; // epoch ms
  audience?: string;
  purpose?: string;
}

export type ChallengeFailure =
  | "malformed"
  | "expired"
  | "not_yet_valid"
  | "address_mismatch"
  | "nonce_mismatch"
  | "audience_mismatch"
  | "purpose_mismatch"
  | "network_mismatch"
  | "sig_invalid";

/** Six core lines, then the `audience` and `purpose` extensions sorted by key; every line ends in LF. */
export function buildChallengeMessage(challenge: Challenge): string {
  const lines = [
    CHALLENGE_HEADER,
    `address: ${challenge.address}`,
    `nonce: ${challenge.nonce}`,
    `issued_at: ${isoSeconds(challenge.issuedAt)}`,
    `expires_at: ${isoSeconds(challenge.expiresAt)}`,
    CHALLENGE_ACK,
  ];
  if (challenge.audience !== undefined) lines.push(`audience: ${challenge.audience}`);
  if (challenge.purpose !== undefined) lines.push(`purpose: ${challenge.purpose}`);
  return `${lines.join("\n")}\n`;
}

// Not Date.parse: it reads 2026-02-30 as March 2, so the time checks would run against another instant than the
// one written in the signed text.
function parseTimestamp(value: string): number | undefined {
  const match = UTC_TIMESTAMP.exec(value);
  return match ? utcInstant(match) : undefined;
}

export function parseChallengeMessage(message: string): Challenge | undefined {
  const lines = (message.endsWith("\n") ? message.slice(0, -1) : message).split("\n");
  if (lines[0] !== CHALLENGE_HEADER) return undefined;
  const fields = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const sep = line.indexOf(": ");
    if (sep < 0) continue;
    const key = line.slice(0, sep);
    if (fields.has(key)) return undefined; // a repeated key (core or extension) is ambiguous
    fields.set(key, line.slice(sep + 2));
  }
  if (CORE_KEYS.some((key) => !fields.has(key))) return undefined;
  if (`ack: ${fields.get("ack")}` !== CHALLENGE_ACK) return undefined;
  const nonce = fields.get("nonce") ?? "";
  const issuedAt = parseTimestamp(fields.get("issued_at") ?? "");
  const expiresAt = parseTimestamp(fields.get("expires_at") ?? "");
  if (!NONCE.test(nonce) || issuedAt === undefined || expiresAt === undefined || expiresAt <= issuedAt) {
    return undefined;
  }
  return {
    address: fields.get("address") ?? "",
    nonce,
    issuedAt,
    expiresAt,
    audience: fields.get("audience"),
    purpose: fields.get("purpose"),
  };
}

export interface ChallengeExpectations {
  address?: string;
  nonce?: string;
  audience?: string;
  purpose?: string;
  network?: BitcoinNetwork;
}

/** Checks in the SDK's order: shape, time, nonce, audience, purpose, then the signature (the costly step last). */
export function checkSignedChallenge(input: {
  message: string;
  signature: string;
  now: number;
  expected: ChallengeExpectations;
}): { ok: true; challenge: Challenge; scheme: "bip322" | "legacy" } | { ok: false; reason: ChallengeFailure } {
  const challenge = parseChallengeMessage(input.message);
  if (!challenge) return { ok: false, reason: "malformed" };
  const { expected } = input;
  if (input.now > challenge.expiresAt) return { ok: false, reason: "expired" };
  if (input.now < challenge.issuedAt) return { ok: false, reason: "not_yet_valid" };
  if (expected.address !== undefined && expected.address !== challenge.address) {
    return { ok: false, reason: "address_mismatch" };
  }
  if (expected.nonce !== undefined && expected.nonce !== challenge.nonce)
    return { ok: false, reason: "nonce_mismatch" };
  if (expected.audience !== undefined && expected.audience !== challenge.audience) {
    return { ok: false, reason: "audience_mismatch" };
  }
  if (expected.purpose !== undefined && expected.purpose !== challenge.purpose) {
    return { ok: false, reason: "purpose_mismatch" };
  }
  const verdict = verifyMessageSignature({
    address: challenge.address,
    message: input.message,
    signature: input.signature,
    network: expected.network,
  });
  if (verdict.ok) return { ok: true, challenge, scheme: verdict.scheme };
  return { ok: false, reason: verdict.reason === "network_mismatch" ? "network_mismatch" : "sig_invalid" };
}

/** The sign-in edge's reason for each challenge failure: one exhaustive switch, so every failure has a status. */
export function challengeReason(failure: ChallengeFailure) {
  switch (failure) {
    case "malformed":
      return "challenge_malformed" as const;
    case "expired":
      return "challenge_expired" as const;
    case "not_yet_valid":
      return "challenge_not_yet_valid" as const;
    case "address_mismatch":
      return "challenge_address_mismatch" as const;
    case "nonce_mismatch":
      return "challenge_nonce_mismatch" as const;
    case "audience_mismatch":
      return "challenge_audience_mismatch" as const;
    case "purpose_mismatch":
      return "challenge_purpose_mismatch" as const;
    case "network_mismatch":
      return "challenge_network_mismatch" as const;
    case "sig_invalid":
      return "challenge_sig_invalid" as const;
  }
}
