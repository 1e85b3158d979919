// The OC Attest JSON envelope (fields, base64url, omitted optionals), the consumer's integrity checks, and
// kind-30078 Nostr events: a valid NIP event, the SDK 1.3.0 form, and each invariant broken once.
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { buildAttestationMessage } from "../../shared/attest/canonical";
import { checkEnvelopeConsistency, createAttestationEnvelope } from "../../shared/attest/envelope";
import { attestationId } from "../../shared/attest/id";
import { parseNostrAttestationEvent } from "../../shared/attest/nostr-event";

const ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const OTHER_ADDRESS = "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l";
const SIG =
  "AkcwRAIgDZwjAF3arnstRM+racHU7USgcq0DRZyNugENRAPGQzECIEaey/lWb9/qAvYYEqtk2uguncaCkhKD/VYiOJj9h2faASEDG4TFVnsSZECZXT7VqroFZdceGDRgSBn/nBf16dXdB48=";

function message(extensions: Record<string, string> = {}, address = ADDRESS): string {
  return buildAttestationMessage({
    address,
    identities: [
      { protocol: "x", identifier: "@alice" },
      { protocol: "github", identifier: "alice" },
    ],
    nonce: "0011223344556677889900aabbccddee",
    issuedAt: "2026-04-22T12:00:00Z",
    extensions,
  });
}

async function envelopeOf(msg: string, verificationUrl?: string) {
  return createAttestationEnvelope({
    message: msg,
    signature: SIG,
    scheme: "bip322",
    attestationId: await attestationId(msg),
    verificationUrl,
  });
}

describe("createAttestationEnvelope", () => {
  it("takes every field from the signed message and omits absent optionals", async () => {
    const msg = message();
    const envelope = await envelopeOf(msg);
    expect(envelope).toStrictEqual({
      attestation_id: await attestationId(msg),
      scheme: "bip322",
      address: ADDRESS,
      identities: [
        { protocol: "github", identifier: "alice" },
        { protocol: "x", identifier: "@alice" },
      ],
      message: msg,
      message_b64url: base64urlnopad.encode(new TextEncoder().encode(msg)),
      signature: SIG,
      issued_at: "2026-04-22T12:00:00Z",
    });
    expect(envelope.message_b64url).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("copies expires, publish and relay_hints, and the verification URL when given", async () => {
    const msg = message({
      expires: "2030-01-01T00:00:00Z",
      publish: "nostr, ipfs",
      relay_hints: "wss://a.example,wss://b.example",
    });
    const id = await attestationId(msg);
    const envelope = await envelopeOf(msg, `https://verify.example/api/check?id=${id}`);
    expect(envelope).toMatchObject({
      expires_at: "2030-01-01T00:00:00Z",
      verification_url: `https://verify.example/api/check?id=${id}`,
      publish_targets: ["nostr", "ipfs"],
      relay_hints: ["wss://a.example", "wss://b.example"],
    });
  });

  it("refuses a non-canonical message or a malformed id", async () => {
    const input = { message: message(), signature: SIG, scheme: "bip322" as const, attestationId: "ab".repeat(32) };
    expect(() => createAttestationEnvelope({ ...input, message: message().trimEnd() })).toThrow(
      expect.objectContaining({ code: "message" }),
    );
    expect(() => createAttestationEnvelope({ ...input, attestationId: "AB".repeat(32) })).toThrow(
      expect.objectContaining({ code: "attestation_id" }),
    );
  });
});

describe("checkEnvelopeConsistency", () => {
  it("accepts a consistent envelope and returns the signed message's fields", async () => {
    const envelope = await envelopeOf(message());
    const check = await checkEnvelopeConsistency(envelope, {
      attestationId: envelope.attestation_id,
      address: ADDRESS,
    });
    expect(check.ok && check.parsed.identities.length).toBe(2);
  });

  it.each(["attestation_id", "scheme", "address", "message", "signature"])(
    "refuses an envelope without %s",
    async (field) => {
      const envelope: Record<string, unknown> = { ...(await envelopeOf(message())) };
      delete envelope[field];
      expect(await checkEnvelopeConsistency(envelope)).toEqual({ ok: false, reason: "envelope_malformed" });
      envelope[field] = 42;
      expect(await checkEnvelopeConsistency(envelope)).toEqual({ ok: false, reason: "envelope_malformed" });
    },
  );

  it("refuses what is not an object", async () => {
    for (const value of [null, "{}", [], 7]) {
      expect(await checkEnvelopeConsistency(value)).toEqual({ ok: false, reason: "envelope_malformed" });
    }
  });

  it("refuses a message whose sha256 is not the attestation id", async () => {
    const envelope = await envelopeOf(message());
    const tampered = { ...envelope, message: envelope.message.replace("github:alice", "github:mallory") };
    expect(await checkEnvelopeConsistency(tampered)).toEqual({ ok: false, reason: "attestation_id_mismatch" });
  });

  it("refuses a non-canonical message even when its id matches", async () => {
    const msg = message().replace("\n", "\r\n");
    const envelope = { ...(await envelopeOf(message())), message: msg, attestation_id: await attestationId(msg) };
    expect(await checkEnvelopeConsistency(envelope)).toEqual({ ok: false, reason: "message_malformed" });
  });

  it("refuses an address field that is not the message's address line", async () => {
    const envelope = { ...(await envelopeOf(message())), address: OTHER_ADDRESS };
    expect(await checkEnvelopeConsistency(envelope)).toEqual({ ok: false, reason: "address_mismatch" });
  });

  it("refuses an envelope about another subject than the one asked for", async () => {
    const envelope = await envelopeOf(message());
    const mismatch = { ok: false, reason: "subject_mismatch" };
    expect(await checkEnvelopeConsistency(envelope, { address: OTHER_ADDRESS })).toEqual(mismatch);
    expect(await checkEnvelopeConsistency(envelope, { attestationId: "0".repeat(64) })).toEqual(mismatch);
  });
});

describe("parseNostrAttestationEvent", () => {
  async function event(patch: { tags?: string[][]; content?: string; kind?: number; envelope?: object } = {}) {
    const envelope = patch.envelope ?? (await envelopeOf(message()));
    const { attestation_id: id, address } = envelope as { attestation_id: string; address: string };
    return {
      id: "e".repeat(64),
      pubkey: "f".repeat(64),
      created_at: Date.parse("2026-04-22T12:00:00Z") / 1000,
      kind: patch.kind ?? 30078,
      tags: patch.tags ?? [
        ["d", id],
        ["t", address],
        ["t", "oc-attest"],
        ["address", address],
        ["scheme", "bip322"],
        ["issued_at", "2026-04-22T12:00:00Z"],
        ["i", "github:alice"],
        ["i", "x:@alice"],
      ],
      content: patch.content ?? JSON.stringify(envelope, null, 2),
      sig: "0".repeat(128),
    };
  }

  it("reads a NIP event into its envelope and the signed identities", async () => {
    const result = await parseNostrAttestationEvent(await event());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.attestationId).toBe(result.envelope.attestation_id);
    expect(result.parsed.identities).toEqual([
      { protocol: "github", identifier: "alice" },
      { protocol: "x", identifier: "@alice" },
    ]);
  });

  it("accepts the SDK 1.3.0 form (no t tags), the legacy d tag and ignores unsigned i tags", async () => {
    const envelope = await envelopeOf(message());
    const id = envelope.attestation_id;
    const sdk = await event({
      tags: [
        ["d", id],
        ["address", ADDRESS],
        ["scheme", "bip322"],
        ["i", "github:mallory"],
      ],
    });
    const sdkResult = await parseNostrAttestationEvent(sdk);
    expect(sdkResult.ok && sdkResult.parsed.identities.map((i) => i.identifier)).toEqual(["alice", "@alice"]);
    const legacy = await event({
      tags: [
        ["d", `orangecheck:${id}`],
        ["t", ADDRESS],
      ],
    });
    expect((await parseNostrAttestationEvent(legacy)).ok).toBe(true);
  });

  it("refuses each broken invariant with its reason", async () => {
    const envelope = await envelopeOf(message());
    const id = envelope.attestation_id;
    const otherMsg = message({}, OTHER_ADDRESS);
    const foreign = await envelopeOf(otherMsg);
    const cases: [string, unknown][] = [
      ["event_malformed", null],
      ["event_malformed", { ...(await event()), tags: "d" }],
      ["event_malformed", { ...(await event()), content: 7 }],
      ["wrong_kind", await event({ kind: 1 })],
      ["missing_d_tag", await event({ tags: [["t", ADDRESS]] })],
      [
        "missing_d_tag",
        await event({
          tags: [
            ["d", ""],
            ["t", ADDRESS],
          ],
        }),
      ],
      ["content_not_json", await event({ content: "{not json" })],
      ["envelope_malformed", await event({ content: JSON.stringify({ ...envelope, signature: undefined }) })],
      [
        "d_tag_mismatch",
        await event({
          tags: [
            ["d", "0".repeat(64)],
            ["t", ADDRESS],
          ],
        }),
      ],
      [
        "address_tag_mismatch",
        await event({
          tags: [
            ["d", id],
            ["t", ADDRESS],
            ["address", OTHER_ADDRESS],
          ],
        }),
      ],
      [
        "address_tag_mismatch",
        await event({
          tags: [
            ["d", id],
            ["t", ADDRESS],
            ["t", OTHER_ADDRESS],
          ],
        }),
      ],
      [
        "address_not_tagged",
        await event({
          tags: [
            ["d", id],
            ["t", "oc-attest"],
          ],
        }),
      ],
      ["attestation_id_mismatch", await event({ envelope: { ...envelope, message: otherMsg } })],
      [
        "address_mismatch",
        await event({
          envelope: { ...foreign, address: ADDRESS },
          tags: [
            ["d", foreign.attestation_id],
            ["t", ADDRESS],
          ],
        }),
      ],
    ];
    for (const [reason, input] of cases) {
      expect({ reason, result: await parseNostrAttestationEvent(input) }).toEqual({
        reason,
        result: { ok: false, reason },
      });
    }
  });

  it("checks the queried subject when one is given", async () => {
    const result = await parseNostrAttestationEvent(await event(), { address: OTHER_ADDRESS });
    expect(result).toEqual({ ok: false, reason: "subject_mismatch" });
  });
});
