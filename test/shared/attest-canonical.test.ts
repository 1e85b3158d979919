// OC Attest canonical message: builder normalisation and typed errors, the strict parser's typed views, and
// each canonical rule of SPEC §7.1 step 1 broken once (the parser refuses; the verifier answers decode_error).
import { base64urlnopad, bech32, hex } from "@scure/base";
import { describe, expect, it } from "vitest";
import { type AttestationInput, buildAttestationMessage, parseUtcTimestamp } from "../../shared/attest/canonical";
import { nostrPubkeyHex, parseIdentities, sameIdentity } from "../../shared/attest/identities";
import { parseAttestationMessage } from "../../shared/attest/parse";
import { preVerifyAttestation } from "../../shared/attest/verify";

const ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const BASE: AttestationInput = {
  address: ADDRESS,
  identities: [
    { protocol: "github", identifier: "alice" },
    { protocol: "dns", identifier: "alice.com" },
  ],
  nonce: "0011223344556677889900aabbccddee",
  issuedAt: "2026-04-22T12:00:00Z",
  extensions: { network: "mainnet", aud: "https://example.com", bond: 100000, expires: "2030-01-01T00:00:00Z" },
};
const VALID = buildAttestationMessage(BASE);

function parsed(message: string) {
  const result = parseAttestationMessage(message);
  if (!result.ok) throw new Error(result.detail);
  return result.message;
}

function withExtensions(extensions: AttestationInput["extensions"]): string {
  return buildAttestationMessage({ ...BASE, extensions });
}

describe("buildAttestationMessage", () => {
  it("renders the seven core lines and the sorted, normalised extensions", () => {
    expect(VALID).toBe(
      [
        "orangecheck",
        "identities: dns:alice.com,github:alice",
        `address: ${ADDRESS}`,
        "purpose: portable reputation attestation (non-custodial)",
        "nonce: 0011223344556677889900aabbccddee",
        "issued_at: 2026-04-22T12:00:00Z",
        "ack: I attest control of this address and bind it to my identities.",
        "aud: https://example.com",
        "bond: 100000",
        "expires: 2030-01-01T00:00:00Z",
        "network: mainnet",
        "",
      ].join("\n"),
    );
  });

  it("lower-cases keys, drops empty and null values and prints numbers in plain base 10", () => {
    const message = withExtensions({ Scope: "x:@alice", Empty: "", gone: null, missing: undefined, bond: 1e21 });
    expect(message.split("\n").slice(7)).toEqual(["bond: 1000000000000000000000", "scope: x:@alice", ""]);
    expect(withExtensions({ bond: 100000000n })).toContain("\nbond: 100000000\n");
    expect(withExtensions({ relay_hints: "wss://a,wss://b" })).toContain("\nrelay_hints: wss://a,wss://b\n");
  });

  it.each([
    ["an identifier with a newline", { identities: [{ protocol: "x", identifier: "a\nb" }] }, "identity_identifier"],
    ["an identifier with a comma", { identities: [{ protocol: "x", identifier: "a,b" }] }, "identity_identifier"],
    ["an empty identifier", { identities: [{ protocol: "x", identifier: "" }] }, "identity_identifier"],
    ["an identifier with outer spaces", { identities: [{ protocol: "x", identifier: " a" }] }, "identity_identifier"],
    ["an uppercase protocol", { identities: [{ protocol: "X", identifier: "a" }] }, "identity_protocol"],
    [
      "identities over 512 bytes",
      { identities: [{ protocol: "x", identifier: "a".repeat(511) }] },
      "identities_too_long",
    ],
    ["an empty address", { address: "" }, "address"],
    ["an address with a space", { address: `${ADDRESS} ` }, "address"],
    ["an uppercase nonce", { nonce: "0011223344556677889900AABBCCDDEE" }, "nonce"],
    ["a non-UTC issued_at", { issuedAt: "2026-04-22T12:00:00+00:00" }, "issued_at"],
    ["an extension key with a digit", { extensions: { v2: "x" } }, "extension_key"],
    ["an extension named like a core line", { extensions: { nonce: "x" } }, "extension_key"],
    ["two keys equal once lower-cased", { extensions: { aud: "a", AUD: "b" } }, "extension_key"],
    ["an extension value with a newline", { extensions: { aud: "a\naddress: evil" } }, "extension_value"],
    ["an extension value with a leading space", { extensions: { aud: " a" } }, "extension_value"],
    ["a bond in exponent form", { extensions: { bond: "1e8" } }, "extension_value"],
    ["a negative bond", { extensions: { bond: -5 } }, "extension_value"],
  ] as const)("throws a typed error for %s", (_name, patch, code) => {
    expect(() => buildAttestationMessage({ ...BASE, ...patch })).toThrow(expect.objectContaining({ code }));
  });
});

describe("parseAttestationMessage", () => {
  it("returns the core fields and the typed extension views", () => {
    expect(parsed(VALID)).toEqual({
      address: ADDRESS,
      identities: [
        { protocol: "dns", identifier: "alice.com" },
        { protocol: "github", identifier: "alice" },
      ],
      nonce: "0011223344556677889900aabbccddee",
      issuedAt: "2026-04-22T12:00:00Z",
      issuedAtMs: Date.UTC(2026, 3, 22, 12),
      extensions: { aud: "https://example.com", bond: "100000", expires: "2030-01-01T00:00:00Z", network: "mainnet" },
      network: "mainnet",
      bond: 100000n,
      aud: "https://example.com",
      expires: Date.UTC(2030, 0, 1),
    });
  });

  it("defaults the network to mainnet, keeps unknown keys and accepts millisecond issued_at", () => {
    const message = buildAttestationMessage({ ...BASE, issuedAt: "2026-04-22T06:47:29.977Z", extensions: { zz: "q" } });
    expect(parsed(message)).toMatchObject({
      network: "mainnet",
      extensions: { zz: "q" },
      issuedAtMs: Date.UTC(2026, 3, 22, 6, 47, 29, 977),
    });
    expect(parsed(withExtensions({ network: "signet" })).network).toBe("signet");
    expect(parsed(withExtensions({ network: "testnet" })).network).toBe("testnet");
  });

  it.each([
    ["0", undefined],
    ["0100", 100n],
    ["1e5", undefined],
    ["-5", undefined],
    ["12.5", undefined],
    ["99999999999999999999999", 99999999999999999999999n],
  ])("reads bond %j as %s (only a positive base-10 integer counts)", (bond, expected) => {
    const message = VALID.replace("bond: 100000", `bond: ${bond}`);
    expect(parsed(message).bond).toBe(expected);
  });

  it("accepts identities of exactly 512 bytes and an empty identities line", () => {
    const identities = [{ protocol: "x", identifier: `${"é".repeat(254)}ab` }];
    expect(parsed(buildAttestationMessage({ ...BASE, identities })).identities).toEqual(identities);
    expect(parsed(buildAttestationMessage({ ...BASE, identities: [] })).identities).toEqual([]);
  });

  it("trims each half of a binding, as the SDK does", () => {
    expect(parseIdentities("github: alice , x:@a")).toEqual([
      { protocol: "github", identifier: "alice" },
      { protocol: "x", identifier: "@a" },
    ]);
  });

  const lines = VALID.split("\n");
  const swap = (i: number, j: number) => {
    const copy = [...lines];
    [copy[i], copy[j]] = [copy[j] as string, copy[i] as string];
    return copy.join("\n");
  };
  const replaceLine = (i: number, line: string) => lines.map((l, k) => (k === i ? line : l)).join("\n");
  const insertExtension = (line: string) => [...lines.slice(0, -1), line, ""].join("\n");
  const BROKEN: [string, string][] = [
    ["no trailing LF", VALID.slice(0, -1)],
    ["two trailing LFs", `${VALID}\n`],
    ["CRLF line endings", VALID.replaceAll("\n", "\r\n")],
    ["a byte order mark", `\uFEFF${VALID}`],
    ["a versioned header", VALID.replace("orangecheck\n", "orangecheck v1\n")],
    ["a capitalised header", VALID.replace("orangecheck\n", "OrangeCheck\n")],
    ["a missing core line", lines.filter((_, k) => k !== 3).join("\n")],
    ["core lines out of order", swap(1, 2)],
    ["no space after 'identities:'", VALID.replace("identities: ", "identities:")],
    ["two spaces after 'address:'", VALID.replace("address: ", "address:  ")],
    ["a changed purpose literal", VALID.replace("(non-custodial)", "(custodial)")],
    ["a changed ack literal", VALID.replace("identities.\n", "identities\n")],
    ["an uppercase nonce", VALID.replace("aabbccddee", "AABBCCDDEE")],
    ["a 31-character nonce", VALID.replace("nonce: 0011", "nonce: 011")],
    ["issued_at with an offset", VALID.replace("12:00:00Z", "12:00:00+00:00")],
    ["issued_at with a lowercase z", VALID.replace("12:00:00Z", "12:00:00z")],
    ["issued_at on 30 February", VALID.replace("2026-04-22T", "2026-02-30T")],
    ["unsorted extension keys", swap(7, 8)],
    ["a repeated extension key", insertExtension("network: mainnet")],
    ["an uppercase extension key", VALID.replace("aud: ", "Aud: ")],
    ["an extension key with a digit", insertExtension("zz9: x")],
    ["an empty extension value", VALID.replace("aud: https://example.com", "aud: ")],
    ["no space after an extension colon", VALID.replace("aud: ", "aud:")],
    ["an extension named like a core line", replaceLine(7, `address: ${ADDRESS}`)],
    ["a blank line among the extensions", replaceLine(8, "")],
    ["an unknown network", VALID.replace("network: mainnet", "network: regtest")],
    ["an unreadable expires", VALID.replace("expires: 2030-01-01T00:00:00Z", "expires: 2030-01-01")],
    ["a binding without a colon", VALID.replace("github:alice", "githubalice")],
    ["a binding with an empty protocol", VALID.replace("github:alice", ":alice")],
    ["a binding with an uppercase protocol", VALID.replace("github:alice", "GitHub:alice")],
    ["a binding with an empty identifier", VALID.replace("github:alice", "github:")],
    ["an empty binding", VALID.replace("github:alice", "github:alice,")],
    ["identities over 512 bytes", VALID.replace("github:alice", `github:${"a".repeat(512)}`)],
  ];

  it.each(BROKEN)("refuses %s (and the verifier answers decode_error)", async (_rule, message) => {
    expect(parseAttestationMessage(message).ok).toBe(false);
    const result = await preVerifyAttestation({
      addr: ADDRESS,
      msg: message,
      sig: "AAAA",
      allowTestNetworks: true,
      now: 0,
    });
    expect(result.codes).toEqual(["decode_error"]);
  });

  it("answers decode_error for base64url that does not decode to UTF-8", async () => {
    const verify = (msg: string) =>
      preVerifyAttestation({ addr: ADDRESS, msg, sig: "AAAA", allowTestNetworks: false, now: 0 });
    expect((await verify("not base64url!")).codes).toEqual(["decode_error"]);
    expect((await verify(base64urlnopad.encode(Uint8Array.of(0xff, 0xfe, 0x80)))).codes).toEqual(["decode_error"]);
  });
});

describe("parseUtcTimestamp", () => {
  it("reads RFC 3339 UTC instants and refuses impossible ones", () => {
    expect(parseUtcTimestamp("2024-02-29T23:59:59.5Z")).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 500));
    expect(parseUtcTimestamp("2026-04-22T12:00:00.123456789Z")).toBe(Date.UTC(2026, 3, 22, 12, 0, 0, 123));
    // Two-digit years are not shifted to 19xx as Date.UTC would.
    expect(new Date(parseUtcTimestamp("0099-01-01T00:00:00Z") ?? 0).toISOString()).toBe("0099-01-01T00:00:00.000Z");
    for (const bad of [
      "2025-02-29T00:00:00Z",
      "2026-04-22T24:00:00Z",
      "2026-04-22T12:60:00Z",
      "2026-04-22 12:00:00Z",
    ]) {
      expect(parseUtcTimestamp(bad)).toBeUndefined();
    }
  });
});

describe("identity equivalence at discovery time", () => {
  const pubkey = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";
  const npub = bech32.encode("npub", bech32.toWords(hex.decode(pubkey)));

  it("treats twitter: as x: and matches a nostr key in npub or hex form", () => {
    expect(sameIdentity({ protocol: "twitter", identifier: "@alice" }, { protocol: "x", identifier: "@alice" })).toBe(
      true,
    );
    expect(sameIdentity({ protocol: "x", identifier: "@alice" }, { protocol: "x", identifier: "@Alice" })).toBe(false);
    expect(sameIdentity({ protocol: "nostr", identifier: npub }, { protocol: "nostr", identifier: pubkey })).toBe(true);
    expect(sameIdentity({ protocol: "nostr", identifier: npub }, { protocol: "github", identifier: npub })).toBe(false);
    expect(nostrPubkeyHex(npub)).toBe(pubkey);
    expect(nostrPubkeyHex(bech32.encode("nsec", bech32.toWords(hex.decode(pubkey))))).toBeUndefined();
  });
});
