// Property tests of the text formats: OC Attest messages, the orangecheck-auth challenge, RFC 8785 canonical JSON,
// the raw-member reader registration stores bytes with, the OC Agent scope grammar and the audit bundle framing.
// Each parser never throws on arbitrary input (only its documented error type), and round-trips what it accepts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AttestationInput,
  AttestBuildError,
  buildAttestationMessage,
  formatIdentities,
  type ParsedAttestation,
  parseAttestationMessage,
} from "../../../shared/attest";
import {
  AUDIT_FORMATS,
  BUNDLE_FORMAT,
  bundleHead,
  bundleRow,
  bundleTail,
  type Manifest,
  REPLAY_ORDER,
  splitBundle,
} from "../../../shared/audit/bundle-format";
import { buildChallengeMessage, checkSignedChallenge, parseChallengeMessage } from "../../../shared/auth/challenge";
import { canonicalScope, parseScope } from "../../../shared/envelopes/agent";
import { CanonicalJsonError, canonicalJson, type JsonValue } from "../../../shared/envelopes/canonical-json";
import { rawMember } from "../../../shared/http/raw-json";
import {
  addressText,
  anyText,
  epochMs,
  hex64,
  isoSecondsText,
  isoUtcText,
  nonce,
  scopeText,
  spliced,
} from "../arbitraries";

const RUNS = { numRuns: 300 };

describe("OC Attest canonical message", () => {
  const identity = fc.record({
    protocol: fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/),
    // printable ASCII without the comma, no surrounding space (the builder's rules), sometimes non-ASCII
    identifier: fc.oneof(fc.stringMatching(/^[!-+\--~]([ !-+\--~]{0,20}[!-+\--~])?$/), fc.constant("npub1zzz")),
  });
  const extensionValue = fc.stringMatching(/^[!-~][ -~]{0,30}$/);
  const extensions = fc.record(
    {
      aud: fc.constantFrom("https://example.com", "http://localhost:8787"),
      bond: fc.bigInt({ min: 0n, max: 10n ** 22n }),
      expires: isoUtcText,
      network: fc.constantFrom("mainnet", "testnet", "signet"),
      relay_hints: fc.constant("wss://relay.example.com,wss://r2.example.com"),
      scope: extensionValue,
      zz_custom: extensionValue,
    },
    { requiredKeys: [] },
  );
  const input: fc.Arbitrary<AttestationInput> = fc.record({
    address: addressText,
    identities: fc.array(identity, { maxLength: 5 }),
    nonce,
    issuedAt: isoUtcText,
    extensions,
  });
  const valid = input.map(buildAttestationMessage);

  /** The builder's input that renders a parsed message. */
  const asInput = (m: ParsedAttestation): AttestationInput => ({
    address: m.address,
    identities: m.identities,
    nonce: m.nonce,
    issuedAt: m.issuedAt,
    extensions: m.extensions,
  });

  it("parses every message the builder makes, to the builder's input", () => {
    fc.assert(
      fc.property(input, (x) => {
        const parsed = parseAttestationMessage(buildAttestationMessage(x));
        if (!parsed.ok) throw new Error(parsed.detail);
        expect(parsed.message.address).toBe(x.address);
        expect(parsed.message.nonce).toBe(x.nonce);
        expect(parsed.message.issuedAt).toBe(x.issuedAt);
        expect(formatIdentities(parsed.message.identities)).toBe(formatIdentities(x.identities));
        expect(parsed.message.network).toBe(x.extensions?.network ?? "mainnet");
      }),
      RUNS,
    );
  });

  it("never throws on arbitrary text; what it accepts rebuilds to the same bytes (canonical identities)", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, spliced(valid), valid), (text) => {
        const parsed = parseAttestationMessage(text);
        if (!parsed.ok) {
          expect(typeof parsed.detail).toBe("string");
          return;
        }
        // The parser reads identities as the SDK does (trimmed halves, any order; §1.7 step 1 "identities parse"),
        // and ignores a bond that is not a base-10 integer: only the canonical form of those rebuilds byte for byte.
        const identitiesLine = text.split("\n")[1]?.slice("identities: ".length);
        const bondText = parsed.message.extensions.bond;
        if (identitiesLine !== formatIdentities(parsed.message.identities)) return;
        if (bondText !== undefined && !/^[0-9]+$/.test(bondText)) return;
        expect(buildAttestationMessage(asInput(parsed.message))).toBe(text);
      }),
      RUNS,
    );
  });

  it("the builder throws only AttestBuildError on arbitrary field values", () => {
    const junk = fc.record({
      address: anyText,
      identities: fc.array(fc.record({ protocol: anyText, identifier: anyText }), { maxLength: 3 }),
      nonce: fc.oneof(nonce, anyText),
      issuedAt: fc.oneof(isoUtcText, anyText),
      extensions: fc.dictionary(
        anyText,
        fc.oneof(anyText, fc.double(), fc.bigInt(), fc.constant(null), fc.constant(undefined)),
        { maxKeys: 3 },
      ),
    });
    fc.assert(
      fc.property(junk, (x) => {
        try {
          const message = buildAttestationMessage(x);
          expect(parseAttestationMessage(message).ok).toBe(true);
        } catch (err) {
          if (!(err instanceof AttestBuildError)) throw err;
        }
      }),
      RUNS,
    );
  });
});

describe("orangecheck-auth challenge", () => {
  const challenge = fc
    .record({
      address: addressText,
      nonce,
      issuedAt: epochMs,
      ttl: fc.integer({ min: 1, max: 600 }),
      audience: fc.option(fc.constantFrom("http://localhost:8787", "https://example.com"), { nil: undefined }),
      purpose: fc.option(fc.stringMatching(/^[a-z0-9_-]{1,32}$/), { nil: undefined }),
    })
    .map(({ ttl, issuedAt, ...rest }) => {
      const seconds = Math.floor(issuedAt / 1000) * 1000;
      return { ...rest, issuedAt: seconds, expiresAt: seconds + ttl * 1000 };
    });
  const valid = fc
    .tuple(challenge, fc.stringMatching(/^[0-9]{1,3}$/), fc.boolean())
    .map(([c, fraction, withFraction]) => {
      const text = buildChallengeMessage(c);
      return withFraction ? text.replace(/(issued_at: [^Z]*)Z/, `$1.${fraction}Z`) : text;
    });

  it("parses what it builds to the same challenge", () => {
    fc.assert(
      fc.property(challenge, (c) => {
        expect(parseChallengeMessage(buildChallengeMessage(c))).toEqual(c);
      }),
      RUNS,
    );
  });

  it("never throws on arbitrary text; an accepted message rebuilds to one that parses the same", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, spliced(valid), valid), (text) => {
        const parsed = parseChallengeMessage(text);
        if (parsed === undefined) return;
        // The SDK's parse (§2.2) skips lines without ": " and does not check order, so the fixed point is semantic;
        // a fraction of a second is read, and the builder writes whole seconds as the SDK does.
        const seconds = (ms: number) => Math.floor(ms / 1000) * 1000;
        const expected = { ...parsed, issuedAt: seconds(parsed.issuedAt), expiresAt: seconds(parsed.expiresAt) };
        if (expected.expiresAt <= expected.issuedAt) return;
        expect(parseChallengeMessage(buildChallengeMessage(parsed))).toEqual(expected);
      }),
      RUNS,
    );
  });

  it("refuses an instant that does not exist (regression: Date.parse read 2026-02-30 as March 2)", () => {
    const c = { address: "bc1qx", nonce: "0011223344556677889900aabbccddee", issuedAt: 0, expiresAt: 0 };
    const message = (issued: string, expires: string) =>
      buildChallengeMessage(c)
        .replace("1970-01-01T00:00:00Z", issued)
        .replace(/expires_at: .*/, `expires_at: ${expires}`);
    expect(parseChallengeMessage(message("2026-02-28T12:00:00Z", "2026-02-28T12:05:00.250Z"))).toBeDefined();
    for (const [issued, expires] of [
      ["2026-02-28T12:00:00Z", "2026-02-30T12:05:00Z"],
      ["2026-02-28T12:00:00Z", "2026-02-28T24:00:00Z"],
      ["2026-04-31T00:00:00Z", "2026-05-01T00:05:00Z"],
    ]) {
      expect(parseChallengeMessage(message(issued as string, expires as string))).toBeUndefined();
    }
  });

  it("the signed-challenge check answers a failure reason, never throws, on garbage addresses and signatures", () => {
    fc.assert(
      fc.property(challenge, anyText, fc.oneof(anyText, fc.base64String()), (c, address, signature) => {
        const message = buildChallengeMessage({ ...c, address });
        const result = checkSignedChallenge({ message, signature, now: c.issuedAt + 1, expected: {} });
        expect(result.ok).toBe(false);
      }),
      { numRuns: 150 },
    );
  });
});

describe("RFC 8785 canonical JSON", () => {
  it("round-trips every JSON value and is a fixed point", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value as JsonValue);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(JSON.parse(text) as JsonValue)).toBe(text);
      }),
      RUNS,
    );
  });

  it("writes strings as ECMAScript JSON.stringify does (RFC 8785 §3.2.2.2)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        expect(canonicalJson(text)).toBe(JSON.stringify(text));
      }),
      RUNS,
    );
  });

  it("throws only CanonicalJsonError on values JSON cannot carry", () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withNullPrototype: true, withSparseArray: true }), (value) => {
        try {
          canonicalJson(value as JsonValue);
        } catch (err) {
          if (!(err instanceof CanonicalJsonError)) throw err;
        }
      }),
      RUNS,
    );
  });
});

describe("raw member of a JSON body (the bytes registration stores)", () => {
  const key = fc.constantFrom("envelope", "project_id", "x", "envelop", "Envelope", "__proto__");
  const space = fc.stringMatching(/^[ \t\n\r]{0,3}$/);
  /** An object text with arbitrary spacing and possibly repeated keys, as a client may send it. */
  const objectText = fc
    .array(fc.tuple(key, fc.jsonValue({ maxDepth: 3 }), space, space), { maxLength: 5 })
    .chain((members) =>
      fc
        .tuple(fc.constant(members), space)
        .map(
          ([m, outer]) =>
            `${outer}{${m.map(([k, v, a, b]) => `${a}${JSON.stringify(k)}${b}:${a}${JSON.stringify(v, null, b.length ? 1 : 0)}${b}`).join(",")}}${outer}`,
        ),
    );

  it("returns exactly the member JSON.parse reads (the last one when a key repeats)", () => {
    fc.assert(
      fc.property(objectText, key, (text, wanted) => {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const raw = rawMember(text, wanted);
        if (!Object.hasOwn(parsed, wanted)) {
          expect(raw).toBeUndefined();
          return;
        }
        expect(raw).toBeDefined();
        expect(JSON.parse(raw as string)).toEqual(parsed[wanted]);
      }),
      {
        ...RUNS,
        // Regression: the first of two `envelope` members was stored while the validator read the second.
        examples: [
          ['{"envelope":{},"envelope":[]}', "envelope"],
          ['{"envelope":{"v":1},"project_id":"p","envelop\\u0065":{"v":2}}', "envelope"],
        ],
      },
    );
  });
});

describe("OC Agent scope grammar", () => {
  const scope = scopeText;

  it("never throws; the canonical form of an accepted scope parses to itself", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, scope, spliced(scope)), (text) => {
        const parsed = parseScope(text);
        if (!parsed.ok) return;
        const canonical = canonicalScope(parsed.scope);
        const again = parseScope(canonical);
        if (!again.ok) throw new Error(`${canonical}: ${again.detail}`);
        expect(canonicalScope(again.scope)).toBe(canonical);
        expect(again.scope.constraints.length).toBe(parsed.scope.constraints.length);
      }),
      RUNS,
    );
  });
});

describe("audit bundle framing", () => {
  const manifest = (format: (typeof AUDIT_FORMATS)[number]) =>
    fc.record({
      format: fc.constant(BUNDLE_FORMAT),
      bundle_id: fc.stringMatching(/^bnd_[0-9a-f]{24}$/),
      project_id: fc.stringMatching(/^proj_[0-9a-f]{24}$/),
      generated_at: isoSecondsText,
      export_format: fc.constant(format),
      counts: fc.record(
        Object.fromEntries(REPLAY_ORDER.map((k) => [k, fc.nat()])) as Record<
          (typeof REPLAY_ORDER)[number],
          fc.Arbitrary<number>
        >,
      ),
      total: fc.nat(),
      sha256: hex64,
      kid: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,43}$/), anyText),
      alg: fc.constant("EdDSA" as const),
    }) as fc.Arbitrary<Manifest>;
  const row = fc.record({
    kind: fc.constantFrom(...REPLAY_ORDER),
    id: hex64,
    // Envelope bytes as received: any JSON text, spacing included.
    body: fc.tuple(fc.jsonValue(), fc.constantFrom(0, 2)).map(([v, indent]) => JSON.stringify(v, null, indent)),
  });

  for (const format of AUDIT_FORMATS) {
    it(`${format}: the trailer splits off exactly, and arbitrary text never throws`, () => {
      fc.assert(
        fc.property(
          fc.array(row, { maxLength: 4 }),
          manifest(format),
          fc.base64String(),
          anyText,
          (rows, m, sig, junk) => {
            const body = bundleHead(format, m.project_id) + rows.map((r, i) => bundleRow(format, r, i === 0)).join("");
            const split = splitBundle(body + bundleTail(format, m, sig), format);
            expect(split?.body).toBe(body);
            expect(split?.trailer).toEqual({ manifest: m, signature: sig });
            splitBundle(junk, format);
            splitBundle(body + junk, format);
          },
        ),
        { numRuns: 150 },
      );
    });
  }
});
