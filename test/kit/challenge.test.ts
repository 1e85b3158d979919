// The kit's challenge reader and client (issue 16, item 5): `expiresAt` as this host sends it (ISO 8601, the spec)
// and as the OrangeCheck host sends it and the published SDKs read it (unix ms, with `expiresAtIso` beside it).
// The round trip against the real auth host is in test/auth/challenge.test.ts.
import { describe, expect, it } from "vitest";
import {
  expiryMs,
  readChallenge,
  readVerifiedChallenge,
  requestChallenge,
  submitChallenge,
} from "../../shared/kit/challenge";

const MS = Date.parse("2026-05-18T16:00:00.000Z");
const ISO = "2026-05-18T16:00:00.000Z";
const base = { message: "orangecheck-auth\n…", nonce: "a1b2" };

describe("readChallenge", () => {
  it("reads this host's ISO 8601 expiresAt", () => {
    expect(readChallenge({ ...base, expiresAt: ISO })).toEqual({
      ok: true,
      challenge: { ...base, expiresAt: MS, expiresAtIso: ISO },
    });
  });

  it("reads the OrangeCheck host's unix-ms expiresAt (and its expiresAtIso), as the SDKs do", () => {
    const expected = { ok: true, challenge: { ...base, expiresAt: MS, expiresAtIso: ISO } };
    expect(readChallenge({ ...base, expiresAt: MS, expiresAtIso: ISO })).toEqual(expected);
    expect(readChallenge({ ...base, expiresAt: MS })).toEqual(expected);
    expect(readChallenge({ ...base, expiresAt: String(MS) })).toEqual(expected);
    expect(readChallenge({ ...base, expiresAtIso: ISO })).toEqual(expected);
  });

  it("refuses an answer without a usable message, nonce or expiry", () => {
    for (const body of [
      null,
      [],
      { ...base, message: undefined, expiresAt: ISO },
      { ...base, nonce: 7, expiresAt: ISO },
      { ...base },
      { ...base, expiresAt: "soon" },
      { ...base, expiresAt: "2026-02-30T00:00:00Z" },
      { ...base, expiresAt: -1 },
      { ...base, expiresAt: 1.5 },
    ]) {
      expect(readChallenge(body), JSON.stringify(body)).toMatchObject({ ok: false, reason: "malformed" });
    }
  });

  it("expiryMs reads seconds-precision ISO too", () => {
    expect(expiryMs("2026-05-18T16:00:00Z")).toBe(MS);
  });
});

describe("readVerifiedChallenge", () => {
  it("reads both forms of the POST answer's expiresAt, and an answer without the echoes", () => {
    const echoes = { address: "bc1qexample", nonce: "a1b2", purpose: "login" };
    for (const expiresAt of [ISO, MS]) {
      expect(readVerifiedChallenge({ ok: true, ...echoes, expiresAt })).toEqual({
        ok: true,
        verified: { ...echoes, expiresAt: MS },
      });
    }
    expect(readVerifiedChallenge({ ok: true, address: "bc1qexample" })).toEqual({
      ok: true,
      verified: { address: "bc1qexample" },
    });
    expect(readVerifiedChallenge({ ok: false, reason: "invalid_challenge" }).ok).toBe(false);
  });
});

/** A host answering as the OrangeCheck host documents it (EXAMPLES.md): expiresAt in unix milliseconds. */
const orangecheckHost: typeof fetch = async (input, init) => {
  const url = new URL(String(input));
  if (url.pathname !== "/api/challenge") return Response.json({ ok: false }, { status: 404 });
  if (init?.method === "POST") {
    const body = JSON.parse(String(init.body)) as { signature: string };
    return body.signature === "good"
      ? Response.json({ ok: true, address: "bc1qexample", nonce: "a1b2", expiresAt: MS })
      : Response.json({ ok: false, reason: "invalid_challenge" });
  }
  if (url.searchParams.get("addr") === "bad")
    return Response.json({ ok: false, reason: "bad_request" }, { status: 400 });
  return Response.json({ ...base, expiresAt: MS, expiresAtIso: ISO });
};

describe("requestChallenge and submitChallenge", () => {
  const options = { authOrigin: "https://ochk.example", fetch: orangecheckHost };

  it("complete the flow against a host that sends unix milliseconds", async () => {
    const issued = await requestChallenge(options, { addr: "bc1qexample", purpose: "login" });
    expect(issued).toEqual({ ok: true, challenge: { ...base, expiresAt: MS, expiresAtIso: ISO } });
    const verdict = await submitChallenge(options, { message: base.message, signature: "good", expectedNonce: "a1b2" });
    expect(verdict).toEqual({ ok: true, verified: { address: "bc1qexample", nonce: "a1b2", expiresAt: MS } });
    // A refused proof is a failure at the top level: `res.ok` alone cannot accept it (issue 45).
    const refused = await submitChallenge(options, { message: base.message, signature: "bad" });
    expect(refused).toMatchObject({ ok: false, reason: "invalid_challenge" });
  });

  it("say why no challenge came: refused (4xx) or unavailable (unreachable, 5xx, not JSON)", async () => {
    expect(await requestChallenge(options, { addr: "bad" })).toMatchObject({ ok: false, reason: "refused" });
    const down: typeof fetch = async () => {
      throw new TypeError("fetch failed");
    };
    const html: typeof fetch = async () => new Response("<h1>502</h1>", { status: 502 });
    for (const fetchImpl of [down, html]) {
      const answer = await requestChallenge({ authOrigin: "https://ochk.example", fetch: fetchImpl }, { addr: "x" });
      expect(answer).toMatchObject({ ok: false, reason: "unavailable" });
    }
  });
});
