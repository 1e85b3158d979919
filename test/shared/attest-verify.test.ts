// preVerifyAttestation over messages signed in the test by fresh wallets: schemes, network rules, aud, expires,
// the input codes and the reference order; then finishVerification and the /api/check thresholds.
import { base64, base64url, hex } from "@scure/base";
import { describe, expect, it } from "vitest";
import { type AttestationInput, buildAttestationMessage } from "../../shared/attest/canonical";
import { attestationId } from "../../shared/attest/id";
import type { BondMetrics } from "../../shared/attest/metrics";
import {
  applyThresholds,
  finishVerification,
  type PreVerifyInput,
  preVerifyAttestation,
  type VerificationResult,
} from "../../shared/attest/verify";
import { decodeAddress } from "../../shared/bitcoin/address";
import { newWallet, type Wallet } from "../helpers/wallet";

const NOW = Date.parse("2026-05-01T00:00:00Z");
const MAINNET = newWallet("p2wpkh");
const TESTNET = newWallet("p2wpkh", "testnet");

function signed(wallet: Wallet, extensions: AttestationInput["extensions"] = {}, address = wallet.address) {
  const msg = buildAttestationMessage({
    address,
    identities: [{ protocol: "github", identifier: "alice" }],
    nonce: "00112233445566778899aabbccddeeff",
    issuedAt: "2026-04-22T12:00:00Z",
    extensions,
  });
  return { addr: address, msg, sig: wallet.sign(msg) };
}

function verify(fields: { addr: string; msg: string; sig: string }, options: Partial<PreVerifyInput> = {}) {
  return preVerifyAttestation({ ...fields, allowTestNetworks: false, now: NOW, ...options });
}

async function codes(fields: { addr: string; msg: string; sig: string }, options: Partial<PreVerifyInput> = {}) {
  return (await verify(fields, options)).codes;
}

describe("preVerifyAttestation: signatures and schemes", () => {
  it("verifies a P2WPKH attestation and says what to fetch next", async () => {
    const fields = signed(MAINNET, { bond: 5000 });
    const result = await verify(fields);
    expect(result).toMatchObject({
      codes: ["sig_ok_bip322"],
      attestationId: await attestationId(fields.msg),
      message: fields.msg,
      network: "mainnet",
      identities: [{ protocol: "github", identifier: "alice" }],
      signatureOk: true,
      scheme: "bip322",
      continueToChain: true,
    });
    expect(result.parsed?.bond).toBe(5000n);
  });

  it("verifies P2TR, and legacy P2PKH with the scheme given or detected", async () => {
    expect(await codes(signed(newWallet("p2tr")))).toEqual(["sig_ok_bip322"]);
    const legacy = signed(newWallet("p2pkh"));
    for (const scheme of [undefined, "", "legacy", "bip322"]) {
      const result = await verify(legacy, { scheme });
      expect(result).toMatchObject({ codes: ["sig_ok_legacy"], scheme: "legacy", continueToChain: true });
    }
  });

  it("accepts the message as base64url (with or without padding) and the signature as hex", async () => {
    const fields = signed(MAINNET);
    const b64url = base64url.encode(new TextEncoder().encode(fields.msg));
    expect(await codes({ ...fields, msg: b64url })).toEqual(["sig_ok_bip322"]);
    expect(await codes({ ...fields, msg: b64url.replace(/=+$/, "") })).toEqual(["sig_ok_bip322"]);
    expect(await codes({ ...fields, sig: hex.encode(base64.decode(fields.sig)) })).toEqual(["sig_ok_bip322"]);
  });

  it("answers sig_invalid for another key's signature or a changed message", async () => {
    const fields = signed(MAINNET);
    expect(await codes({ ...fields, sig: newWallet("p2wpkh").sign(fields.msg) })).toEqual(["sig_invalid"]);
    expect(await codes({ ...fields, msg: fields.msg.replace("github:alice", "github:mallory") })).toEqual([
      "sig_invalid",
    ]);
    expect(await codes({ ...fields, sig: "bm90IGEgc2lnbmF0dXJl" })).toEqual(["sig_invalid"]);
  });

  it("answers sig_unsupported_script for a legacy signature on a segwit address", async () => {
    const fields = signed(MAINNET);
    expect(await codes(fields, { scheme: "legacy" })).toEqual(["sig_unsupported_script"]);
  });

  it.each(["BIP322", "bip-322", "schnorr", "ecdsa"])("answers invalid_scheme for scheme %j", async (scheme) => {
    const result = await verify(signed(MAINNET), { scheme });
    expect(result).toMatchObject({ codes: ["invalid_scheme"], signatureOk: false, continueToChain: false });
  });
});

describe("preVerifyAttestation: input codes", () => {
  it.each(["addr", "msg", "sig"] as const)("answers bad_request when %s is missing", async (field) => {
    expect(await codes({ ...signed(MAINNET), [field]: "" })).toEqual(["bad_request"]);
  });

  it("answers bad_request when the address line is not addr, keeping the id", async () => {
    const fields = signed(MAINNET);
    const result = await verify({ ...fields, addr: newWallet("p2wpkh").address });
    expect(result).toMatchObject({ codes: ["bad_request"], attestationId: await attestationId(fields.msg) });
  });

  it("answers invalid_attestation_id when the claimed id is not sha256(msg)", async () => {
    const fields = signed(MAINNET);
    const id = await attestationId(fields.msg);
    expect(await codes(fields, { claimedId: "0".repeat(64) })).toEqual(["invalid_attestation_id"]);
    expect(await codes(fields, { claimedId: id })).toEqual(["sig_ok_bip322"]);
    expect(await codes(fields, { claimedId: id.toUpperCase() })).toEqual(["sig_ok_bip322"]);
  });
});

describe("preVerifyAttestation: networks", () => {
  it.each(["testnet", "signet"] as const)("answers network_testmode for %s before the signature", async (network) => {
    const fields = signed(TESTNET, { network });
    const result = await verify({ ...fields, sig: "AAAA" });
    expect(result).toMatchObject({ codes: ["network_testmode"], network, continueToChain: false });
    expect(await verify(fields, { allowTestNetworks: true })).toMatchObject({ codes: ["sig_ok_bip322"], network });
  });

  it("verifies a legacy signature of a testnet P2PKH address (m/n) in test mode", async () => {
    const fields = signed(newWallet("p2pkh", "testnet"), { network: "testnet" });
    expect(fields.addr).toMatch(/^[mn]/);
    expect(await codes(fields, { allowTestNetworks: true })).toEqual(["sig_ok_legacy"]);
  });

  it("answers decode_error when the address is not on the declared network", async () => {
    const allow = { allowTestNetworks: true };
    expect(await codes(signed(TESTNET), allow)).toEqual(["decode_error"]);
    expect(await codes(signed(TESTNET, { network: "mainnet" }), allow)).toEqual(["decode_error"]);
    expect(await codes(signed(MAINNET, { network: "testnet" }), allow)).toEqual(["decode_error"]);
    expect(await codes(signed(MAINNET, { network: "signet" }), allow)).toEqual(["decode_error"]);
    const regtest = "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw";
    expect(decodeAddress(regtest)).toMatchObject({ ok: true, network: "regtest" });
    expect(await codes(signed(MAINNET, { network: "testnet" }, regtest), allow)).toEqual(["decode_error"]);
    const checksumBroken = `${MAINNET.address.slice(0, -1)}${MAINNET.address.endsWith("q") ? "p" : "q"}`;
    expect(decodeAddress(checksumBroken).ok).toBe(false);
    expect(await codes(signed(MAINNET, {}, checksumBroken))).toEqual(["decode_error"]);
  });
});

describe("preVerifyAttestation: aud and expires", () => {
  const AUD = "https://example.com";

  it("answers aud_mismatch when the expected audience is missing or different", async () => {
    expect(await codes(signed(MAINNET), { expectedAudience: AUD })).toEqual(["aud_mismatch"]);
    expect(await codes(signed(MAINNET, { aud: "https://evil.example" }), { expectedAudience: AUD })).toEqual([
      "aud_mismatch",
    ]);
    expect(await codes(signed(MAINNET, { aud: AUD }), { expectedAudience: AUD })).toEqual(["sig_ok_bip322"]);
    expect(await codes(signed(MAINNET, { aud: AUD }))).toEqual(["sig_ok_bip322"]);
  });

  it("answers expired only when expires is before now", async () => {
    const at = (expires: string) => signed(MAINNET, { expires });
    expect(await codes(at("2026-04-30T23:59:59Z"))).toEqual(["expired"]);
    expect(await codes(at("2026-05-01T00:00:00Z"))).toEqual(["sig_ok_bip322"]);
    expect(await codes(at("2026-05-01T00:00:01Z"))).toEqual(["sig_ok_bip322"]);
  });

  it("follows the reference order: address line, network, aud, expires, scheme, signature", async () => {
    const all = signed(TESTNET, { network: "testnet", aud: "https://other", expires: "2020-01-01T00:00:00Z" });
    const bad = { ...all, sig: "AAAA" };
    const options = { expectedAudience: AUD, scheme: "nope" };
    expect(await codes({ ...bad, addr: MAINNET.address }, options)).toEqual(["bad_request"]);
    expect(await codes(bad, options)).toEqual(["network_testmode"]);
    expect(await codes(bad, { ...options, allowTestNetworks: true })).toEqual(["aud_mismatch"]);
    expect(await codes(bad, { scheme: "nope", allowTestNetworks: true })).toEqual(["expired"]);
    const live = signed(MAINNET);
    expect(await codes({ ...live, sig: "AAAA" }, { scheme: "nope" })).toEqual(["invalid_scheme"]);
  });
});

const SIGNED_OK = { codes: ["sig_ok_bip322"], continueToChain: true } as const;
function bond(code: BondMetrics["code"], sats = 0, days = 0, pending = false): BondMetrics {
  return { code, pending, sats_bonded: sats, days_unspent: days, confirmed_balance: sats };
}

describe("finishVerification", () => {
  it("is ok only with a verified signature and a confirmed bond", async () => {
    const pre = await verify(signed(MAINNET));
    expect(pre).toMatchObject(SIGNED_OK);
    expect(finishVerification(pre, bond("bond_confirmed", 100000, 30))).toEqual({
      ok: true,
      codes: ["sig_ok_bip322", "bond_confirmed"],
      metrics: { sats_bonded: 100000, days_unspent: 30, score: 23.03 },
    });
    expect(finishVerification(pre, bond("bond_zero"))).toMatchObject({
      ok: false,
      codes: ["sig_ok_bip322", "bond_zero"],
    });
    expect(finishVerification(pre, bond("bond_zero", 0, 0, true))).toMatchObject({
      ok: false,
      codes: ["sig_ok_bip322", "bond_zero", "bond_pending"],
    });
    expect(finishVerification(pre, bond("bond_insufficient"))).toEqual({
      ok: false,
      codes: ["sig_ok_bip322", "bond_insufficient"],
      metrics: { sats_bonded: 0, days_unspent: 0, score: 0 },
    });
  });

  it("never turns a failed pre-verification into ok", async () => {
    const pre = await verify({ ...signed(MAINNET), sig: "AAAA" });
    expect(finishVerification(pre, bond("bond_confirmed", 100000, 30))).toEqual({
      ok: false,
      codes: ["sig_invalid"],
      metrics: { sats_bonded: 0, days_unspent: 0, score: 0 },
    });
  });
});

describe("applyThresholds", () => {
  const passing: VerificationResult = {
    ok: true,
    codes: ["sig_ok_bip322", "bond_confirmed"],
    metrics: { sats_bonded: 100000, days_unspent: 30, score: 23.03 },
  };

  it.each([
    ["at both minimums", { minSats: 100000, minDays: 30 }, []],
    ["just above both", { minSats: 99999, minDays: 29 }, []],
    ["with no thresholds", {}, []],
    ["one sat short", { minSats: 100001, minDays: 30 }, ["below_min_sats"]],
    ["one day short", { minSats: 100000, minDays: 31 }, ["below_min_days"]],
    ["short on both", { minSats: 100001, minDays: 31 }, ["below_min_sats", "below_min_days"]],
  ] as const)("%s", (_name, thresholds, added) => {
    const result = applyThresholds(passing, thresholds);
    expect(result).toEqual({ ...passing, ok: added.length === 0, codes: [...passing.codes, ...added] });
  });

  it("keeps a failed result failed", () => {
    const failed: VerificationResult = { ...passing, ok: false, codes: ["sig_ok_bip322", "bond_zero"] };
    expect(applyThresholds(failed, { minSats: 0, minDays: 0 }).ok).toBe(false);
  });
});
