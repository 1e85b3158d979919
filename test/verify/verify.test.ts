// POST /api/verify: every code of the verification table that a raw attestation can produce, for every address
// type, with signatures made by bip322-js in Node.
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { fixture, fund, TIP } from "../helpers/attestations";
import { esploraMode, setTip, setUtxos, utxo } from "../helpers/fakes";

const BASE = "http://localhost:8787";

async function verify(body: Record<string, unknown>) {
  const res = await SELF.fetch(`${BASE}/api/verify`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": "192.0.2.10" },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const bodyOf = (name: string) => {
  const a = fixture(name);
  return { addr: a.address, msg: a.message, sig: a.signature };
};

afterEach(() => esploraMode({}));

describe("POST /api/verify", () => {
  for (const [name, sigCode] of [
    ["p2pkh", "sig_ok_legacy"],
    ["p2sh-p2wpkh", "sig_ok_bip322"],
    ["p2wpkh", "sig_ok_bip322"],
    ["p2tr", "sig_ok_bip322"],
  ] as const) {
    it(`${name}: a funded attestation verifies (${sigCode}, bond_confirmed) with metrics and the block used`, async () => {
      const a = fixture(name);
      await fund(a.address, 250_000, 45);
      const res = await verify(bodyOf(name));
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.body).toMatchObject({
        ok: true,
        codes: [sigCode, "bond_confirmed"],
        network: "mainnet",
        identities: a.identities,
        metrics: { sats_bonded: 250_000, days_unspent: 45 },
        block_height: TIP,
        block_hash: "ab".repeat(32),
        confirmations_required: 6,
      });
      expect(res.body.attestation_id).toMatch(/^[0-9a-f]{64}$/);
      expect((res.body.metrics as { score: number }).score).toBeGreaterThan(0);
    });
  }

  it("bond_zero without UTXOs; bond_zero + bond_pending with only unconfirmed or too shallow ones", async () => {
    const a = fixture("p2wpkh");
    await setTip(TIP);
    await setUtxos(a.address, []);
    expect((await verify(bodyOf("p2wpkh"))).body).toMatchObject({ ok: false, codes: ["sig_ok_bip322", "bond_zero"] });
    await setUtxos(a.address, [{ txid: "aa".repeat(32), vout: 0, value: 5000, status: { confirmed: false } }]);
    expect((await verify(bodyOf("p2wpkh"))).body.codes).toEqual(["sig_ok_bip322", "bond_zero", "bond_pending"]);
    await setUtxos(a.address, [utxo(5000, { tipHeight: TIP, depth: 5, ageDays: 1 })]);
    expect((await verify(bodyOf("p2wpkh"))).body.codes).toEqual(["sig_ok_bip322", "bond_zero", "bond_pending"]);
    await setUtxos(a.address, [utxo(5000, { tipHeight: TIP, depth: 6, ageDays: 1 })]);
    expect((await verify(bodyOf("p2wpkh"))).body.codes).toEqual(["sig_ok_bip322", "bond_confirmed"]);
  });

  it("spent UTXOs no longer count: the bond follows what the chain holds now", async () => {
    const a = fixture("p2tr");
    await fund(a.address, 80_000, 100);
    expect((await verify(bodyOf("p2tr"))).body.ok).toBe(true);
    await setUtxos(a.address, []);
    expect((await verify(bodyOf("p2tr"))).body).toMatchObject({ ok: false, codes: ["sig_ok_bip322", "bond_zero"] });
  });

  it("bond extension: bond_insufficient below it, exactly the bond reported above it", async () => {
    const a = fixture("bond");
    await fund(a.address, 99_999, 10);
    expect((await verify(bodyOf("bond"))).body).toMatchObject({
      ok: false,
      codes: ["sig_ok_bip322", "bond_insufficient"],
    });
    await fund(a.address, 150_000, 10);
    expect((await verify(bodyOf("bond"))).body).toMatchObject({ ok: true, metrics: { sats_bonded: 100_000 } });
  });

  it("sig_invalid for a tampered message or a signature by another key", async () => {
    const a = fixture("p2wpkh");
    const other = fixture("p2tr");
    expect((await verify({ ...bodyOf("p2wpkh"), sig: other.signature })).body.codes).toEqual(["sig_invalid"]);
    const tampered = a.message.replace("github:", "gitlab:");
    expect((await verify({ ...bodyOf("p2wpkh"), msg: tampered })).body.codes).toEqual(["sig_invalid"]);
  });

  it("sig_unsupported_script for a legacy signature on a segwit address; invalid_scheme for an unknown scheme", async () => {
    const res = await verify({ ...bodyOf("p2wpkh"), scheme: "legacy" });
    expect(res.body).toMatchObject({ ok: false, codes: ["sig_unsupported_script"] });
    expect((await verify({ ...bodyOf("p2wpkh"), scheme: "schnorr" })).body.codes).toEqual(["invalid_scheme"]);
  });

  it("decode_error for a non-canonical message; bad_request when the address line is not addr", async () => {
    const a = fixture("p2wpkh");
    expect((await verify({ ...bodyOf("p2wpkh"), msg: a.message.replace("\n", "\r\n") })).body.codes).toEqual([
      "decode_error",
    ]);
    expect((await verify({ ...bodyOf("p2wpkh"), msg: "not base64url!" })).body.codes).toEqual(["decode_error"]);
    expect((await verify({ ...bodyOf("p2wpkh"), addr: fixture("p2tr").address })).body.codes).toEqual(["bad_request"]);
  });

  it("accepts the message as base64url too", async () => {
    const a = fixture("p2wpkh");
    await fund(a.address, 10_000, 3);
    const b64 = btoa(a.message).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    expect((await verify({ ...bodyOf("p2wpkh"), msg: b64 })).body.ok).toBe(true);
  });

  it("invalid_attestation_id when the claimed id is not sha256(msg)", async () => {
    const res = await verify({ ...bodyOf("p2wpkh"), attestation_id: "00".repeat(32) });
    expect(res.body.codes).toEqual(["invalid_attestation_id"]);
  });

  it("aud_mismatch for another audience, expired past expires, network_testmode for testnet", async () => {
    expect((await verify({ ...bodyOf("aud"), audience: "https://other.example" })).body.codes).toEqual([
      "aud_mismatch",
    ]);
    expect((await verify({ ...bodyOf("expired") })).body.codes).toEqual(["expired"]);
    expect((await verify({ ...bodyOf("testnet") })).body).toMatchObject({ ok: false, codes: ["network_testmode"] });
    const a = fixture("aud");
    await fund(a.address, 20_000, 2);
    expect((await verify({ ...bodyOf("aud"), audience: "https://app.example" })).body.ok).toBe(true);
  });

  it("answers 502 chain_unavailable when the chain API is down, never a pass", async () => {
    await esploraMode({ down: true });
    const res = await verify(bodyOf("p2wpkh"));
    expect(res.status).toBe(502);
    expect(res.body.reason).toBe("chain_unavailable");
  });

  it("answers 400 for a body of the wrong shape", async () => {
    for (const body of [
      {},
      { addr: "x", msg: "y" },
      { addr: 1, msg: "y", sig: "z" },
      { ...bodyOf("p2wpkh"), extra: 1 },
    ]) {
      const res = await verify(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe("invalid_body");
    }
  });
});
