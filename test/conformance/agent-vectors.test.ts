// Every OC Agent v1 vector of ../vectors/oc-agent (v01–v17), through the project's own library: canonical
// message bytes, length and id; envelope parse and RFC 8785 re-serialisation; each negative vector's OC code and
// the spec reason it maps to (envelopes built with their real ids, as §5.1 asks). Signatures are placeholders (§5.3).
import { describe, expect, it } from "vitest";
import { utf8 } from "../../shared/crypto/digest";
import {
  AgentCanonicalError,
  type AgentKind,
  buildAction,
  buildDelegation,
  buildRevocation,
  buildSubdelegation,
  canonicalizeScopes,
  canonicalMessage,
  checkAction,
  checkRevocation,
  checkScopeRegistry,
  checkSubdelegation,
  envelopeId,
  isSubScope,
  type MessageFields,
  type ParsedByKind,
  parseAgentEnvelope,
  parseScope,
  UNMAPPED_CODE_REASON,
  verifyEnvelopeSignatures,
} from "../../shared/envelopes/agent";
import { canonicalBytes, canonicalJson, type JsonValue } from "../../shared/envelopes/canonical-json";
import v01 from "../vectors/oc-agent/v01-delegation-minimal.json";
import v02 from "../vectors/oc-agent/v02-delegation-with-bond.json";
import v03 from "../vectors/oc-agent/v03-action-minimal.json";
import v04 from "../vectors/oc-agent/v04-revocation-minimal.json";
import v05 from "../vectors/oc-agent/v05-revocation-with-reason.json";
import v06 from "../vectors/oc-agent/v06-action-scope-denied.json";
import v07 from "../vectors/oc-agent/v07-action-out-of-window.json";
import v08 from "../vectors/oc-agent/v08-revocation-unauthorized-signer.json";
import v09 from "../vectors/oc-agent/v09-delegation-malformed-scope.json";
import v10 from "../vectors/oc-agent/v10-subdelegation-minimal.json";
import v11 from "../vectors/oc-agent/v11-subdelegation-chain-depth-3.json";
import v12 from "../vectors/oc-agent/v12-subdelegation-scope-escalated.json";
import v13 from "../vectors/oc-agent/v13-subdelegation-expires-extended.json";
import v14 from "../vectors/oc-agent/v14-subdelegation-principal-mismatch.json";
import v15 from "../vectors/oc-agent/v15-private-scope-minimal.json";
import v16 from "../vectors/oc-agent/v16-private-scope-multi-recipient.json";
import v17 from "../vectors/oc-agent/v17-private-scope-no-key-fails-closed.json";

const PLACEHOLDER = () => "AAAA";
const IN_V01_WINDOW = Date.parse("2026-04-23T00:00:00Z");
const AFTER_V01 = Date.parse("2026-05-01T00:00:00Z");

async function parsed<K extends AgentKind>(kind: K, json: unknown): Promise<ParsedByKind[K]> {
  const result = await parseAgentEnvelope(kind, json);
  if (!result.ok) throw new Error(`${kind} did not parse: ${result.reason} ${result.detail}`);
  return result;
}

interface PositiveVector<K extends AgentKind> {
  kind: K;
  inputs: MessageFields[K];
  expected: { canonical_message: string; canonical_message_bytes_len: number; id: string; envelope: unknown };
}

const BUILD = {
  delegation: (f: MessageFields["delegation"]) => buildDelegation(f, PLACEHOLDER),
  subdelegation: (f: MessageFields["subdelegation"]) => buildSubdelegation(f, PLACEHOLDER),
  action: (f: MessageFields["action"]) => buildAction(f, PLACEHOLDER),
  revocation: (f: MessageFields["revocation"]) => buildRevocation(f, PLACEHOLDER),
};

async function checkPositive<K extends AgentKind>(vector: PositiveVector<K>): Promise<void> {
  const { kind, inputs, expected } = vector;
  const message = canonicalMessage(kind, inputs);
  expect(message).toBe(expected.canonical_message);
  expect(utf8(message).length).toBe(expected.canonical_message_bytes_len);
  expect(await envelopeId(message)).toBe(expected.id);

  const result = await parsed(kind, expected.envelope);
  expect(result.message).toBe(expected.canonical_message);
  expect(result.id).toBe(expected.id);
  expect(result.canonicalJson).toBe(canonicalJson(expected.envelope as JsonValue));
  expect(canonicalJson(JSON.parse(result.canonicalJson))).toBe(result.canonicalJson);

  const built = await (BUILD[kind] as (f: MessageFields[K]) => Promise<{ envelope: unknown }>)(inputs);
  expect(canonicalJson(built.envelope as JsonValue)).toBe(result.canonicalJson);
  // Placeholder signatures (§5.3) must never pass.
  expect(verifyEnvelopeSignatures(result)).toMatchObject({ ok: false, reason: "envelope_signature_invalid" });
}

const V01_CANONICAL_JSON =
  '{"agent":{"address":"bc1qagent0000000000000000000000000000000000","alg":"bip322"},"bond":null,"expires_at":"2026-04-29T12:00:00Z","id":"36d79600191db871baa3fc9aa3b5e77750a5c423b1f620ec26cf16bd122e19a7","issued_at":"2026-04-22T12:00:00Z","kind":"agent-delegation","nonce":"0123456789abcdef0123456789abcdef","principal":{"address":"bc1qprincipal000000000000000000000000000000","alg":"bip322"},"revocation":{"holders":["principal"],"ref":null},"scopes":["lock:seal(recipient=bc1qalice000000000000000000000000000000000)"],"sig":{"alg":"bip322","pubkey":"bc1qprincipal000000000000000000000000000000","value":"AAAA"},"v":1}';

describe("v01-delegation-minimal", () => {
  it("rebuilds message, length and id; parses; re-serialises", () =>
    checkPositive(v01 as PositiveVector<"delegation">));
  it("canonical bytes are the 618-byte example of §3.6", () => {
    const bytes = canonicalBytes(v01.expected.envelope as JsonValue);
    expect(bytes).toBe(`${V01_CANONICAL_JSON}\n`);
    expect(utf8(bytes).length).toBe(618);
  });
});

describe("v02-delegation-with-bond", () => {
  it("rebuilds message, length and id; parses; re-serialises", () =>
    checkPositive(v02 as PositiveVector<"delegation">));
  it("sorts the scope list and each scope's constraints", () => {
    const canonical = canonicalizeScopes(v02.inputs.scopes);
    expect(canonical).toEqual({ ok: true, scopes: v02.expected.envelope.scopes });
  });
});

describe("v03-action-minimal", () => {
  it("rebuilds message, length and id; parses; re-serialises", () => checkPositive(v03 as PositiveVector<"action">));
  it("is accepted against v01 (exact-match scope, inside the window)", async () => {
    const check = checkAction(
      await parsed("action", v03.expected.envelope),
      await parsed("delegation", v01.expected.envelope),
      {
        status: "active",
        now: IN_V01_WINDOW,
      },
    );
    expect(check).toEqual({ ok: true });
  });
});

describe("v04-revocation-minimal", () => {
  it("rebuilds message (empty reason keeps its trailing space), length and id", () =>
    checkPositive(v04 as PositiveVector<"revocation">));
  it("is accepted against v01 when the principal is the session", async () => {
    const check = checkRevocation(
      await parsed("revocation", v04.expected.envelope),
      await parsed("delegation", v01.expected.envelope),
      {
        targetStatus: "active",
        sessionAddress: v04.inputs.address,
      },
    );
    expect(check).toEqual({ ok: true });
  });
});

describe("v05-revocation-with-reason", () => {
  it("rebuilds message, length and id; parses; re-serialises", () =>
    checkPositive(v05 as PositiveVector<"revocation">));
  it("is accepted against v02", async () => {
    const check = checkRevocation(
      await parsed("revocation", v05.expected.envelope),
      await parsed("delegation", v02.expected.envelope),
      {
        targetStatus: "active",
        sessionAddress: v05.inputs.address,
      },
    );
    expect(check).toEqual({ ok: true });
  });
});

async function negativeAction(inputs: MessageFields["action"], derivedId: string, length: number) {
  const built = await buildAction(inputs, PLACEHOLDER);
  expect(built.id).toBe(derivedId);
  expect(utf8(built.message).length).toBe(length);
  return parsed("action", built.envelope);
}

describe("v06-action-scope-denied", () => {
  it(`E_SCOPE_DENIED → ${UNMAPPED_CODE_REASON.E_SCOPE_DENIED}`, async () => {
    const action = await negativeAction(
      v06.inputs,
      "19f8814774c7220d65b729c00b4869022787a99a18b84b38c5fa44ec92cd33da",
      414,
    );
    const check = checkAction(action, await parsed("delegation", v01.expected.envelope), {
      status: "active",
      now: IN_V01_WINDOW,
    });
    expect(check).toMatchObject({
      ok: false,
      code: v06.expected.error_code,
      reason: UNMAPPED_CODE_REASON.E_SCOPE_DENIED,
    });
  });
});

describe("v07-action-out-of-window", () => {
  it("E_OUT_OF_WINDOW → delegation_inactive, whether or not the delegation has expired by now", async () => {
    const action = await negativeAction(
      v07.inputs,
      "38d981b4cd1e9bb0b5b1d8ed5f8b202ae1e151215613a96a9042d7aca732622a",
      413,
    );
    const delegation = await parsed("delegation", v01.expected.envelope);
    for (const now of [IN_V01_WINDOW, AFTER_V01]) {
      const check = checkAction(action, delegation, { status: "active", now });
      expect(check).toMatchObject({ ok: false, code: v07.expected.error_code, reason: "delegation_inactive" });
    }
  });
});

describe("v08-revocation-unauthorized-signer", () => {
  it("E_REVOKER_UNAUTHORIZED → signer_must_be_principal", async () => {
    const built = await buildRevocation(v08.inputs, PLACEHOLDER);
    expect(built.id).toBe("1b008ad7bf1b2cd61b832e4839b9b77b0ca601e47dd1e91506c1c11263964fcd");
    expect(utf8(built.message).length).toBe(227);
    const check = checkRevocation(
      await parsed("revocation", built.envelope),
      await parsed("delegation", v01.expected.envelope),
      {
        targetStatus: "active",
        sessionAddress: v08.inputs.address,
      },
    );
    expect(check).toMatchObject({ ok: false, code: v08.expected.error_code, reason: "signer_must_be_principal" });
  });
});

describe("v09-delegation-malformed-scope", () => {
  it("E_BAD_SCOPE_GRAMMAR → canonicalization_failed (no id can be computed)", async () => {
    expect(() => canonicalMessage("delegation", v09.inputs)).toThrow(AgentCanonicalError);
    const envelope = { ...v01.expected.envelope, scopes: v09.inputs.scopes, nonce: v09.inputs.nonce };
    const result = await parseAgentEnvelope("delegation", envelope);
    expect(result).toMatchObject({ ok: false, code: v09.expected.error_code, reason: "canonicalization_failed" });
  });
  it("every smoke case fails the grammar", () => {
    for (const { scope } of v09.additional_malformed_examples_for_implementer_smoke_tests) {
      expect(parseScope(scope).ok, scope).toBe(false);
    }
  });
  it("the soft cases parse; only the integer rule of the sub-scope relation objects to max_bytes<=abc", () => {
    const [empty, nonNumeric] = v09.soft_examples_validateScope_only.map(({ scope }) => parseScope(scope));
    expect(empty).toMatchObject({ ok: true, scope: { product: "lock", verb: "seal", constraints: [] } });
    expect(nonNumeric?.ok).toBe(true);
    if (nonNumeric?.ok) expect(checkScopeRegistry(nonNumeric.scope, "strict")).toEqual({ ok: true });
    expect(isSubScope("lock:seal(max_bytes<=abc)", "lock:seal(max_bytes<=1000)")).toBe(false);
  });
});

describe("v10-subdelegation-minimal", () => {
  it("rebuilds message, length and id; parses; re-serialises", () =>
    checkPositive(v10 as PositiveVector<"subdelegation">));
  it("is a valid link off v01", async () => {
    const check = checkSubdelegation(
      await parsed("subdelegation", v10.expected.envelope),
      await parsed("delegation", v01.expected.envelope),
      {
        parentStatus: "active",
        parentDepth: 0,
        now: IN_V01_WINDOW,
      },
    );
    expect(check).toEqual({ ok: true });
  });
});

describe("v11-subdelegation-chain-depth-3", () => {
  it("rebuilds message, length and id; parses; re-serialises", () =>
    checkPositive(v11 as PositiveVector<"subdelegation">));
  it("chain v01 → v10 → v11: every link holds", async () => {
    const root = await parsed("delegation", v01.expected.envelope);
    const s1 = await parsed("subdelegation", v10.expected.envelope);
    const s2 = await parsed("subdelegation", v11.expected.envelope);
    const now = Date.parse("2026-04-25T00:00:00Z");
    expect(checkSubdelegation(s1, root, { parentStatus: "active", parentDepth: 0, now })).toEqual({ ok: true });
    expect(
      checkSubdelegation(s2, s1, { parentStatus: "active", parentDepth: v11.cross_refs.chain_depth - 1, now }),
    ).toEqual({ ok: true });
  });
});

async function negativeLink(inputs: MessageFields["subdelegation"], derivedId: string, length: number) {
  const built = await buildSubdelegation(inputs, PLACEHOLDER);
  expect(built.id).toBe(derivedId);
  expect(utf8(built.message).length).toBe(length);
  const sub = await parsed("subdelegation", built.envelope);
  const parent = await parsed("delegation", v01.expected.envelope);
  return checkSubdelegation(sub, parent, { parentStatus: "active", parentDepth: 0, now: IN_V01_WINDOW });
}

describe("v12-subdelegation-scope-escalated", () => {
  it(`E_SUBDELEGATION_SCOPE_ESCALATED → ${UNMAPPED_CODE_REASON.E_SUBDELEGATION_SCOPE_ESCALATED}`, async () => {
    const check = await negativeLink(
      v12.inputs,
      "8f224accd354e8983de409303ea2671a5a5a408eae4cfedfc2e5016e9cb34ef6",
      385,
    );
    const reason = UNMAPPED_CODE_REASON.E_SUBDELEGATION_SCOPE_ESCALATED;
    expect(check).toMatchObject({ ok: false, code: v12.expected.error_code, reason });
  });
});

describe("v13-subdelegation-expires-extended", () => {
  it(`E_SUBDELEGATION_EXPIRES_EXTENDED → ${UNMAPPED_CODE_REASON.E_SUBDELEGATION_EXPIRES_EXTENDED}`, async () => {
    const check = await negativeLink(
      v13.inputs,
      "d9c888625c6572cd0f6293b697772bbafece97d6a6bce888278dbce169cf12ed",
      385,
    );
    const reason = UNMAPPED_CODE_REASON.E_SUBDELEGATION_EXPIRES_EXTENDED;
    expect(check).toMatchObject({ ok: false, code: v13.expected.error_code, reason });
  });
});

describe("v14-subdelegation-principal-mismatch", () => {
  it("E_SUBDELEGATION_PRINCIPAL_MISMATCH → principal_must_be_parent_agent", async () => {
    const check = await negativeLink(
      v14.inputs,
      "b369651be424110286ae5699070d5106f2ec0d7202666450fe3dccbc42f07c7a",
      384,
    );
    expect(check).toMatchObject({ ok: false, code: v14.expected.error_code, reason: "principal_must_be_parent_agent" });
  });
});

// Private scope (v15–v17): the fleet holds no recipient device key and implements no OC Lock unsealing, so it can
// only pin what holds without decrypting: the public-mode id (which §3.12 says the private envelope carries), the
// shape of scopes_encrypted, and its refusal. The ACCEPT round trips are not run.
interface PrivateVector {
  inputs: {
    principal: string;
    agent: string;
    scopes_plaintext: string[];
    recipients: { address: string; device_id: string; device_pk: string }[];
    bond: null;
    issued_at: string;
    expires_at: string;
    nonce: string;
  };
}

async function privateEnvelope({ inputs }: PrivateVector) {
  const built = await buildDelegation({ ...inputs, scopes: inputs.scopes_plaintext }, PLACEHOLDER);
  const { scopes: _plaintext, ...rest } = built.envelope;
  const lock = {
    v: 2,
    kind: "identity",
    id: "0".repeat(64),
    alg: { kem: "x25519", aead: "aes-256-gcm", kdf: "hkdf-sha256" },
    from: { address: inputs.principal },
    recipients: inputs.recipients.map(({ address, device_id, device_pk }) => ({
      address,
      device_id,
      device_pk,
      eph_pk: "00",
      wrapped_key: "AAAA",
      nonce_kek: "AAAA",
    })),
    ciphertext: "AAAA",
    nonce_ct: "AAAA",
    created_at: inputs.issued_at,
    expires_at: null,
    payment: null,
    sig: { alg: "bip322", pubkey: inputs.principal, value: "AAAA" },
  };
  return { id: built.id, length: utf8(built.message).length, envelope: { ...rest, scopes_encrypted: lock } };
}

describe.each([
  ["v15-private-scope-minimal", v15, "874116baf96005bc364c5ef174795a6171d1e1e502b233a7dd2e5dd9a141c112", 318],
  ["v16-private-scope-multi-recipient", v16, "d39d3e83e4dbb0817b928736935a2bdea7025aeb536d61a248f17a38d09dc1a6", 352],
  [
    "v17-private-scope-no-key-fails-closed",
    v17,
    "7d9886676df66eca09f19943568ffdbf0dd91c45b5f7326221ba6fbf7983b6e4",
    341,
  ],
] as const)("%s", (_name, vector, derivedId, length) => {
  it("its id is the public-mode id over the canonical plaintext scopes", async () => {
    const built = await privateEnvelope(vector);
    expect([built.id, built.length]).toEqual([derivedId, length]);
  });
  it("scopes_encrypted passes the shape check, then is refused: E_SCOPES_UNREADABLE → canonicalization_failed", async () => {
    const { envelope } = await privateEnvelope(vector);
    const result = await parseAgentEnvelope("delegation", envelope);
    expect(result).toMatchObject({ ok: false, code: "E_SCOPES_UNREADABLE", reason: "canonicalization_failed" });
  });
  it.todo("unsealing with a recipient device key (OC Lock v2) — not implemented: the fleet is never a recipient");
});

describe("v15 decrypted scopes (discrepancy 13)", () => {
  it("compare after canonicalisation", () => {
    const recovered = canonicalizeScopes(v15.expected.decrypted_scopes);
    expect(recovered).toEqual({ ok: true, scopes: ["ln:send(max_fee_sats<=10,max_sats<=1000)"] });
    expect(v17.expected.error_code).toBe("E_SCOPES_UNREADABLE");
  });
});
