// parseAgentEnvelope's refusals (service-spec rule 1 and the shape rules of §3.6, §3.12, §3.14), the flat records
// of "Fleet envelopes", and the flattened action body of DECISIONS 2 sharing the one parse path.
import { describe, expect, it } from "vitest";
import {
  type AgentKind,
  actionFromFlat,
  buildAction,
  buildRevocation,
  flatFields,
  parseAgentEnvelope,
} from "../../shared/envelopes/agent";
import v01 from "../vectors/oc-agent/v01-delegation-minimal.json";
import v02 from "../vectors/oc-agent/v02-delegation-with-bond.json";
import v03 from "../vectors/oc-agent/v03-action-minimal.json";
import v05 from "../vectors/oc-agent/v05-revocation-with-reason.json";
import v10 from "../vectors/oc-agent/v10-subdelegation-minimal.json";

type Json = Record<string, unknown>;
const clone = (value: unknown): Json => structuredClone(value) as Json;
const delegation = () => clone(v01.expected.envelope);
const action = () => clone(v03.expected.envelope);
const sub = () => clone(v10.expected.envelope);

async function refusal(kind: AgentKind, json: unknown) {
  const result = await parseAgentEnvelope(kind, json);
  if (result.ok) throw new Error("expected a refusal");
  return result;
}

describe("shape problems → invalid_body", () => {
  it.each<[string, () => unknown, AgentKind, string]>([
    ["not an object", () => "text", "delegation", "E_MALFORMED"],
    ["unknown v", () => ({ ...delegation(), v: 2 }), "delegation", "E_UNSUPPORTED_VERSION"],
    ["v as a string", () => ({ ...delegation(), v: "1" }), "delegation", "E_UNSUPPORTED_VERSION"],
    ["wrong kind literal", () => delegation(), "action", "E_MALFORMED"],
    ["missing agent", () => ({ ...delegation(), agent: undefined }), "delegation", "E_MALFORMED"],
    ["scopes not an array", () => ({ ...delegation(), scopes: "lock:seal" }), "delegation", "E_MALFORMED"],
    ["empty scopes", () => ({ ...delegation(), scopes: [] }), "delegation", "E_MALFORMED"],
    [
      "bond.sats as a string",
      () => ({ ...clone(v02.expected.envelope), bond: { ...v02.expected.envelope.bond, sats: "500000" } }),
      "delegation",
      "E_MALFORMED",
    ],
    [
      "content.length as a string",
      () => ({ ...action(), content: { ...v03.expected.envelope.content, length: "1024" } }),
      "action",
      "E_MALFORMED",
    ],
    ["a bond on a sub-delegation", () => ({ ...sub(), bond: null }), "subdelegation", "E_MALFORMED"],
    [
      "both scopes and scopes_encrypted",
      () => ({ ...delegation(), scopes_encrypted: {} }),
      "delegation",
      "E_SCOPES_BOTH_PROVIDED",
    ],
    [
      "neither scopes nor scopes_encrypted",
      () => ({ ...delegation(), scopes: undefined }),
      "delegation",
      "E_SCOPES_NEITHER_PROVIDED",
    ],
    [
      "sig.pubkey not the signer",
      () => ({ ...delegation(), sig: { ...v01.expected.envelope.sig, pubkey: "bc1qother" } }),
      "delegation",
      "E_MALFORMED",
    ],
    [
      "principal.alg not bip322",
      () => ({ ...delegation(), principal: { address: "bc1qx", alg: "ecdsa" } }),
      "delegation",
      "E_MALFORMED",
    ],
    ["upper-case id", () => ({ ...delegation(), id: v01.expected.id.toUpperCase() }), "delegation", "E_MALFORMED"],
    [
      "expires_at not after issued_at",
      () => ({ ...delegation(), expires_at: v01.expected.envelope.issued_at }),
      "delegation",
      "E_MALFORMED",
    ],
    ["impossible date", () => ({ ...delegation(), issued_at: "2026-02-30T12:00:00Z" }), "delegation", "E_MALFORMED"],
    [
      "timestamp with an offset",
      () => ({ ...delegation(), issued_at: "2026-04-22T12:00:00+00:00" }),
      "delegation",
      "E_MALFORMED",
    ],
    ["short nonce", () => ({ ...delegation(), nonce: "0123" }), "delegation", "E_MALFORMED"],
    [
      "unknown revocation holder",
      () => ({ ...delegation(), revocation: { holders: ["anyone"], ref: null } }),
      "delegation",
      "E_MALFORMED",
    ],
    [
      "address with a line break",
      () => ({ ...delegation(), agent: { address: "bc1q\nx", alg: "bip322" } }),
      "delegation",
      "E_MALFORMED",
    ],
    [
      "reason over 128 bytes",
      () => ({ ...clone(v05.expected.envelope), reason: "é".repeat(65) }),
      "revocation",
      "E_MALFORMED",
    ],
    [
      "reason with a line break",
      () => ({ ...clone(v05.expected.envelope), reason: "a\nb" }),
      "revocation",
      "E_MALFORMED",
    ],
    [
      "confirmed ots without a block",
      () => ({
        ...action(),
        ots: {
          status: "confirmed",
          proof: "AAAA",
          calendars: [],
          block_height: null,
          block_hash: null,
          upgraded_at: null,
        },
      }),
      "action",
      "E_MALFORMED",
    ],
  ])("%s", async (_name, make, kind, code) => {
    expect(await refusal(kind, make())).toMatchObject({ reason: "invalid_body", code });
  });
});

describe("canonical message and id (rule 1)", () => {
  it("scopes not in canonical form or order → canonicalization_failed", async () => {
    const unsorted = { ...clone(v02.expected.envelope), scopes: [...v02.expected.envelope.scopes].reverse() };
    expect(await refusal("delegation", unsorted)).toMatchObject({
      reason: "canonicalization_failed",
      code: "E_BAD_SCOPE_GRAMMAR",
    });
    const unsortedKeys = { ...delegation(), scopes: ["lock:seal(recipient=a,mime=b)"] };
    expect(await refusal("delegation", unsortedKeys)).toMatchObject({ reason: "canonicalization_failed" });
  });

  it("an unparsable scope_exercised → canonicalization_failed", async () => {
    const bad = { ...action(), scope_exercised: "lock:seal(recipient alice)" };
    expect(await refusal("action", bad)).toMatchObject({
      reason: "canonicalization_failed",
      code: "E_BAD_SCOPE_GRAMMAR",
    });
  });

  it("a declared id that is not the message's hash → id_mismatch", async () => {
    const tampered = { ...delegation(), nonce: "ffffffffffffffffffffffffffffffff" };
    expect(await refusal("delegation", tampered)).toMatchObject({ reason: "id_mismatch", code: "E_BAD_ID" });
  });

  it("keeps unknown top-level fields in the canonical JSON without touching the id", async () => {
    const extended = { ...delegation(), relay_hint: "wss://relay.example" };
    const result = await parseAgentEnvelope("delegation", extended);
    expect(result).toMatchObject({ ok: true, id: v01.expected.id });
    if (result.ok) expect(result.canonicalJson).toContain('"relay_hint":"wss://relay.example"');
  });

  it("accepts a fractional-second timestamp and an absent revocation policy", async () => {
    const fractional = await buildAction({ ...v03.inputs, signed_at: "2026-04-22T12:05:00.123Z" }, () => "AAAA");
    expect(await parseAgentEnvelope("action", fractional.envelope)).toMatchObject({ ok: true, id: fractional.id });
    const { revocation: _policy, ...noPolicy } = delegation();
    expect(await parseAgentEnvelope("delegation", noPolicy)).toMatchObject({ ok: true });
  });
});

describe("federation principals at the single-address parser", () => {
  const federation = { alg: "federation", descriptor_id: "0".repeat(64), descriptor: {} };
  it("delegation → federation_principal_wrong_endpoint (rule 6)", async () => {
    expect(await refusal("delegation", { ...delegation(), principal: federation })).toMatchObject({
      reason: "federation_principal_wrong_endpoint",
      code: null,
    });
  });
  it("sub-delegation → federation_not_yet_supported (rule 5)", async () => {
    expect(await refusal("subdelegation", { ...sub(), principal: federation })).toMatchObject({
      reason: "federation_not_yet_supported",
    });
  });
});

describe("private scope (§3.12)", () => {
  const lock = {
    v: 2,
    kind: "identity",
    id: "1".repeat(64),
    alg: { kem: "x25519", aead: "aes-256-gcm", kdf: "hkdf-sha256" },
    from: { address: v01.expected.envelope.principal.address },
    recipients: [
      { address: "bc1qagent", device_id: "d", device_pk: "00", eph_pk: "00", wrapped_key: "AA", nonce_kek: "AA" },
    ],
    ciphertext: "AA",
    nonce_ct: "AA",
    created_at: "2026-04-22T12:00:00Z",
    expires_at: null,
    payment: null,
    sig: { alg: "bip322", pubkey: v01.expected.envelope.principal.address, value: "AAAA" },
  };
  const privately = (scopes_encrypted: unknown) => ({ ...delegation(), scopes: undefined, scopes_encrypted });

  it("a well-formed Lock envelope is refused: its id cannot be recomputed without the plaintext", async () => {
    expect(await refusal("delegation", privately(lock))).toMatchObject({
      reason: "canonicalization_failed",
      code: "E_SCOPES_UNREADABLE",
    });
  });
  it("a malformed Lock envelope → invalid_body E_BAD_LOCK_ENVELOPE", async () => {
    expect(await refusal("delegation", privately({ ...lock, recipients: [] }))).toMatchObject({
      reason: "invalid_body",
      code: "E_BAD_LOCK_ENVELOPE",
    });
  });
  it("from.address other than the principal → invalid_body E_MALFORMED", async () => {
    expect(await refusal("delegation", privately({ ...lock, from: { address: "bc1qsomeoneelse" } }))).toMatchObject({
      reason: "invalid_body",
      code: "E_MALFORMED",
    });
  });
});

describe("flat records (service-spec Fleet envelopes)", () => {
  it("gives each kind's stored columns", async () => {
    const results = await Promise.all([
      parseAgentEnvelope("delegation", v01.expected.envelope),
      parseAgentEnvelope("subdelegation", v10.expected.envelope),
      parseAgentEnvelope("action", v03.expected.envelope),
      parseAgentEnvelope("revocation", v05.expected.envelope),
    ]);
    const [d, s, a, r] = results.map((result) => {
      if (!result.ok) throw new Error(result.detail);
      return flatFields(result);
    });
    expect(d).toEqual({
      id: v01.expected.id,
      principal_address: v01.inputs.principal,
      agent_address: v01.inputs.agent,
      scopes: v01.expected.envelope.scopes,
      issued_at: v01.inputs.issued_at,
      expires_at: v01.inputs.expires_at,
    });
    expect(s).toMatchObject({ parent_id: v10.inputs.parent_id, principal_address: v10.inputs.principal });
    expect(a).toEqual({
      id: v03.expected.id,
      delegation_id: v03.inputs.delegation_id,
      agent_address: v03.inputs.address,
      scope_exercised: v03.inputs.scope_exercised,
      content_hash: v03.inputs.content_hash,
      content_length: v03.inputs.content_length,
      content_mime: v03.inputs.content_mime,
      signed_at: v03.inputs.signed_at,
    });
    expect(r).toEqual({
      id: v05.expected.id,
      delegation_id: v05.inputs.delegation_id,
      signer_address: v05.inputs.address,
      reason: v05.inputs.reason,
      signed_at: v05.inputs.signed_at,
    });
  });
});

describe("flattened action body (DECISIONS 2)", () => {
  const flat = {
    project_id: "proj_x",
    delegation_id: v03.inputs.delegation_id,
    agent_address: v03.inputs.address,
    scope_exercised: v03.inputs.scope_exercised,
    content_hash: v03.inputs.content_hash,
    content_length: v03.inputs.content_length,
    content_mime: v03.inputs.content_mime,
    signed_at: v03.inputs.signed_at,
    signature: "AAAA",
    id: v03.expected.id,
  };

  it("becomes the v03 envelope and parses on the same path", async () => {
    const converted = actionFromFlat(flat);
    if (!converted.ok) throw new Error(converted.detail);
    expect(converted.envelope).toEqual(v03.expected.envelope);
    expect(await parseAgentEnvelope("action", converted.envelope)).toMatchObject({ ok: true, id: v03.expected.id });
  });
  it("a missing field → invalid_body naming it; a mistyped one is the parser's refusal", async () => {
    const { signature: _s, ...missing } = flat;
    expect(actionFromFlat(missing)).toMatchObject({
      ok: false,
      reason: "invalid_body",
      detail: expect.stringContaining("signature"),
    });
    const converted = actionFromFlat({ ...flat, content_length: "1024" });
    if (!converted.ok) throw new Error(converted.detail);
    expect(await refusal("action", converted.envelope)).toMatchObject({ reason: "invalid_body" });
  });
});

describe("builders", () => {
  it("refuse a reason with a line break before it can be signed", async () => {
    await expect(
      buildRevocation({ ...v05.inputs, reason: "a\nsigned_at: 2030-01-01T00:00:00Z" }, () => "AAAA"),
    ).rejects.toThrow(/line break/);
  });
});

describe("hostile input", () => {
  it("an unknown field nested past the stack → invalid_body, not a crash", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(await refusal("delegation", { ...delegation(), extra: deep })).toMatchObject({ reason: "invalid_body" });
  });
});
