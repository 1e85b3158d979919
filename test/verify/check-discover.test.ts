// GET /api/check and GET /api/discover: relays, re-verification, thresholds, not found, upstream failures, cache.
import { SELF } from "cloudflare:test";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { attestationId } from "../../shared/attest";
import { checkCacheKey } from "../../workers/verify/src/check-cache";
import { attestationEvent } from "../harness/nostr-event.mjs";
import { fixture, fund, publishAttestation } from "../helpers/attestations";
import { esploraMode, publish, relayMode, utxoHits } from "../helpers/fakes";

const BASE = "http://localhost:8787";
let ip = 0;

async function get(path: string) {
  ip += 1;
  const res = await SELF.fetch(`${BASE}${path}`, { headers: { "cf-connecting-ip": `192.0.2.${ip % 250}` } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

afterEach(async () => {
  vi.useRealTimers();
  await esploraMode({});
  await relayMode(0, {});
  await relayMode(1, {});
});

describe("GET /api/discover", () => {
  it("finds a published attestation by address, id and identity, de-duplicated across relays", async () => {
    const a = fixture("p2wpkh");
    const envelope = await publishAttestation(a);
    const id = envelope.attestation_id;
    for (const query of [`addr=${a.address}`, `id=${id}`, `identity=github:fixture-p2wpkh`]) {
      const res = await get(`/api/discover?${query}`);
      expect(res.status, query).toBe(200);
      expect(res.body).toMatchObject({ count: 1, total: 1 });
      expect((res.body.attestations as { attestation_id: string }[])[0]?.attestation_id).toBe(id);
    }
  });

  it("matches x: and twitter: as one protocol", async () => {
    await publishAttestation(fixture("x-handle"));
    const res = await get("/api/discover?identity=x:@legacy");
    expect(res.body.count).toBe(1);
  });

  it("drops envelopes that do not verify: a bad signature counts in total, not in count", async () => {
    const a = fixture("p2tr");
    const envelope = await publishAttestation(a);
    const forged = { ...envelope, signature: fixture("p2wpkh").signature };
    await publish(attestationEvent(forged, secp256k1.utils.randomSecretKey(), a.identities), [1]);
    const res = await get(`/api/discover?addr=${a.address}`);
    expect(res.body).toMatchObject({ count: 1, total: 1 });
    const other = fixture("p2sh-p2wpkh");
    const mismatched = {
      ...(await publishAttestation(other, [])),
      signature: fixture("p2tr").signature,
    };
    await publish(attestationEvent(mismatched, secp256k1.utils.randomSecretKey(), other.identities), [0]);
    const only = await get(`/api/discover?addr=${other.address}`);
    expect(only.body).toMatchObject({ count: 0, total: 1, attestations: [] });
    // The forged copy arrived first; the real one, published later elsewhere, is still found.
    await publishAttestation(other, [1]);
    expect((await get(`/api/discover?addr=${other.address}`)).body).toMatchObject({ count: 1, total: 1 });
  });

  it("still answers when one relay is down or slow; 502 relays_unavailable when none answers", async () => {
    const a = fixture("p2pkh");
    await publishAttestation(a);
    await relayMode(0, { down: true });
    expect((await get(`/api/discover?addr=${a.address}`)).body.count).toBe(1);
    await relayMode(1, { delayMs: 6000 });
    const res = await get(`/api/discover?addr=${a.address}`);
    expect(res.status).toBe(502);
    expect(res.body.reason).toBe("relays_unavailable");
  });

  it("answers 400 invalid_query unless exactly one well-formed subject is given", async () => {
    for (const query of [
      "",
      `addr=x&id=${"0".repeat(64)}`,
      "id=XYZ",
      "identity=nocolon",
      "addr=bc1qxyzxyzxyzxyzxyz&foo=5",
    ]) {
      const res = await get(`/api/discover?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.reason).toBe("invalid_query");
    }
  });

  it("honours limit=N (1-100): the N most recent verified attestations; total still counts every id", async () => {
    await publishAttestation(fixture("several-older"));
    await publishAttestation(fixture("several-newer"));
    const one = await get("/api/discover?identity=github:several&limit=1");
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ count: 1, total: 2 });
    const newest = (one.body.attestations as { address: string }[])[0];
    expect(newest?.address).toBe(fixture("several-newer").address);
    for (const limit of ["2", "100"]) {
      const res = await get(`/api/discover?identity=github:several&limit=${limit}`);
      expect(res.body, limit).toMatchObject({ count: 2, total: 2 });
    }
  });

  it("answers 400 invalid_query for a limit outside 1-100 or not an integer (the fleet's rule for limit)", async () => {
    for (const limit of ["0", "101", "1000", "-1", "1.5", "1e2", "ten", ""]) {
      const res = await get(`/api/discover?identity=github:several&limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.reason, limit).toBe("invalid_query");
    }
  });
});

describe("GET /api/check", () => {
  it("answers the check result for a funded, published attestation; thresholds at, below and above", async () => {
    const a = fixture("p2sh-p2wpkh");
    await publishAttestation(a);
    await fund(a.address, 100_000, 30);
    const at = await get(`/api/check?addr=${a.address}&min_sats=100000&min_days=30`);
    expect(at.status).toBe(200);
    expect(at.body).toMatchObject({
      ok: true,
      sats: 100_000,
      days: 30,
      address: a.address,
      identities: a.identities,
      network: "mainnet",
      attestation_id: await attestationId(a.message),
    });
    expect(at.body.reasons).toBeUndefined();
    expect(at.body.score).toBe(23.03);
    const above = await get(`/api/check?addr=${a.address}&min_sats=100001&min_days=31`);
    expect(above.body).toMatchObject({ ok: false, reasons: ["below_min_sats", "below_min_days"] });
    const below = await get(`/api/check?addr=${a.address}&min_sats=99999&min_days=29`);
    expect(below.body.ok).toBe(true);
    const days = await get(`/api/check?addr=${a.address}&min_days=31`);
    expect(days.body).toMatchObject({ ok: false, reasons: ["below_min_days"] });
  });

  it("reports a zero or pending bond as ok false with its reasons", async () => {
    const a = fixture("p2tr");
    await publishAttestation(a);
    await fund(a.address, 0, 0);
    const res = await get(`/api/check?id=${await attestationId(a.message)}`);
    expect(res.body).toMatchObject({ ok: false, sats: 0, reasons: ["bond_zero"] });
  });

  it("picks the most recent verified attestation of an identity with several", async () => {
    const older = fixture("several-older");
    const newer = fixture("several-newer");
    await publishAttestation(older);
    await publishAttestation(newer);
    await fund(newer.address, 50_000, 5);
    const res = await get("/api/check?identity=github:several");
    expect(res.body).toMatchObject({ ok: true, address: newer.address, sats: 50_000 });
  });

  it("answers 404 {ok:false, reasons:['not_found']} when nothing names the subject", async () => {
    const res = await get(`/api/check?id=${"0".repeat(64)}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, reasons: ["not_found"] });
  });

  it("answers 400 invalid_query for thresholds that are not non-negative integers, or no subject", async () => {
    for (const query of [
      "min_sats=1",
      "addr=bc1qxyzxyzxyzxyzxyz&min_sats=-1",
      "addr=bc1qxyzxyzxyzxyzxyz&min_days=1.5",
      "addr=bc1qxyzxyzxyzxyzxyz&min_sats=1e3",
      "addr=bc1qxyzxyzxyzxyzxyz&foo=1",
    ]) {
      const res = await get(`/api/check?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.reason).toBe("invalid_query");
    }
  });

  it("caches an answer for 60 seconds, then asks the upstreams again", async () => {
    const a = fixture("p2wpkh");
    await publishAttestation(a);
    await fund(a.address, 70_000, 12);
    const path = `/api/check?addr=${a.address}&min_sats=1`;
    const first = await get(path);
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    const hits = await utxoHits(a.address);
    const second = await get(path);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("x-cache")).toBe("HIT");
    expect(await utxoHits(a.address)).toBe(hits);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    const third = await get(path);
    expect(third.headers.get("x-cache")).toBeNull();
    expect(await utxoHits(a.address)).toBe(hits + 1);
  });

  it("a repeated question is answered from the isolate's own copy, without the Cache API", async () => {
    const a = fixture("p2tr");
    await publishAttestation(a);
    await fund(a.address, 70_000, 12);
    const path = `/api/check?addr=${a.address}&min_sats=2`;
    const first = await get(path);
    expect(await caches.default.delete(checkCacheKey(`http://localhost${path}`))).toBe(true);
    const second = await get(path);
    expect(second.headers.get("x-cache")).toBe("HIT");
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("cache-control")).toBe("public, max-age=60");
  });

  it("a hit answered before the router carries the computed answer's headers, the same question in any order", async () => {
    const a = fixture("p2wpkh");
    await publishAttestation(a);
    await fund(a.address, 70_000, 12);
    const first = await get(`/api/check?addr=${a.address}&min_sats=3&min_days=1`);
    const hit = await get(`/api/check?min_days=1&min_sats=3&addr=${a.address}`);
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expect(hit.body).toEqual(first.body);
    const names = (headers: Headers) => [...headers.keys()].filter((name) => name !== "x-cache").sort();
    expect(names(hit.headers)).toEqual(names(first.headers));
    for (const name of [
      "x-content-type-options",
      "referrer-policy",
      "ratelimit-policy",
      "ratelimit",
      "cache-control",
    ]) {
      expect(hit.headers.get(name), name).toBe(name === "ratelimit" ? hit.headers.get(name) : first.headers.get(name));
    }
    expect(hit.headers.get("ratelimit")).toMatch(/^limit=60, remaining=\d+, reset=\d+$/);
  });

  it("hits count against the read limit: the 61st read of a minute from one address is refused", async () => {
    const a = fixture("p2tr");
    await publishAttestation(a);
    await fund(a.address, 70_000, 12);
    const from = { headers: { "cf-connecting-ip": "198.51.100.61" } };
    const url = `${BASE}/api/check?addr=${a.address}&min_sats=4`;
    for (let i = 1; i <= 60; i++) {
      const res = await SELF.fetch(url, from);
      await res.arrayBuffer();
      expect(res.status, `read ${i}`).toBe(200);
      if (i > 1) expect(res.headers.get("x-cache"), `read ${i}`).toBe("HIT");
    }
    const refused = await SELF.fetch(url, from);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ ok: false, reason: "rate_limited" });
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.headers.get("ratelimit")).toMatch(/^limit=60, remaining=0, /);
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("never caches an upstream failure as an answer", async () => {
    const a = fixture("bond");
    await publishAttestation(a);
    await fund(a.address, 200_000, 40);
    await esploraMode({ down: true });
    const path = `/api/check?addr=${a.address}`;
    const failed = await get(path);
    expect(failed.status).toBe(502);
    expect(failed.body.reason).toBe("chain_unavailable");
    await esploraMode({});
    const next = await get(path);
    expect(next.status).toBe(200);
    expect(next.body.ok).toBe(true);
    await relayMode(0, { down: true });
    await relayMode(1, { down: true });
    const relaysDown = await get(`/api/check?id=${"1".repeat(64)}`);
    expect(relaysDown.status).toBe(502);
    await relayMode(0, {});
    await relayMode(1, {});
    expect((await get(`/api/check?id=${"1".repeat(64)}`)).status).toBe(404);
  });
});
