// The fleet's hold on the auth host's session keys (shared/auth/jwks-keys.ts), without a worker: a clock passed in
// and a JWKS read injected and counted. A rotated kid is read for at once, made-up kids at most once per interval,
// concurrent requests share a read, a key the JWKS drops leaves within its max-age, a failed read keeps the keys.
import { describe, expect, it } from "vitest";
import {
  afterRead,
  configuredSessionKeys,
  cookieKids,
  createJwksKeys,
  FAILED_READ_COOLDOWN_MS,
  JWKS_TTL_MS,
  keysInForce,
  mayRead,
  readWanted,
  UNKNOWN_KID_INTERVAL_MS,
} from "../../shared/auth/jwks-keys";
import { type PublicJwk, toPublicJwk } from "../../shared/crypto/signing-key";

const T0 = Date.parse("2026-06-01T12:00:00Z");
const key = (kid: string): PublicJwk => toPublicJwk({ kid, x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" });
const session = (kid: string) => ({ ...key(kid), oc_use: "session" });
const kids = (keys: readonly PublicJwk[]) => keys.map((k) => k.kid);

const b64 = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
const token = (header: Record<string, unknown>) => `${b64(header)}.${b64({ sub: "a" })}.c2ln`;

/** A JWKS whose keys the test sets, counting its reads; `fail` makes it answer nothing usable. */
function jwks(...keys: object[]) {
  const host = { keys, reads: 0, fail: false, delay: 0 };
  const read = async () => {
    host.reads += 1;
    if (host.delay) await new Promise((resolve) => setTimeout(resolve, host.delay));
    if (host.fail) throw new Error("auth host unreachable");
    return host.keys;
  };
  return Object.assign(host, { read });
}

describe("cookieKids", () => {
  it("names the kid of each EdDSA token, in order, and at most the four resolveSession tries", () => {
    const cookies = ["a", "b", "c", "d", "e"].map((kid) => `oc_session=${token({ alg: "EdDSA", typ: "JWT", kid })}`);
    expect(cookieKids(cookies.join("; "))).toEqual(["a", "b", "c", "d"]);
  });

  it("ignores what cannot verify with any key: not a JWS, another alg, no kid", () => {
    const cookie = [
      "oc_session=garbage",
      `oc_session=${token({ alg: "none", kid: "n" })}`,
      `oc_session=${token({ alg: "EdDSA", typ: "JWT" })}`,
    ].join("; ");
    expect(cookieKids(cookie)).toEqual([]);
    expect(cookieKids(undefined)).toEqual([]);
  });
});

describe("the key set and when to read", () => {
  it("configured keys come first and are never replaced; read keys add the other kids", () => {
    const configuredA = key("A");
    const state = { read: { keys: [{ ...key("A"), x: "other" }, key("B")], at: T0 } };
    expect(keysInForce([configuredA], state)).toEqual([configuredA, key("B")]);
  });

  it("an unknown kid wants a read; a configured one never does; a read one when the read is past the TTL", () => {
    const state = { read: { keys: [key("B")], at: T0 } };
    expect(readWanted(["A"], [key("A")], state, T0 + 10 * JWKS_TTL_MS)).toBeUndefined();
    expect(readWanted(["B"], [key("A")], state, T0 + JWKS_TTL_MS - 1)).toBeUndefined();
    expect(readWanted(["B"], [key("A")], state, T0 + JWKS_TTL_MS)).toBe("stale");
    expect(readWanted(["B", "X"], [key("A")], state, T0)).toBe("unknown_kid");
    expect(readWanted([], [], {}, T0)).toBeUndefined();
  });

  it("reads for unknown kids once per interval; a stale set waits out the cooldown after a failure", () => {
    const state = afterRead({}, "unknown_kid", T0, undefined);
    expect(mayRead("unknown_kid", state, T0 + UNKNOWN_KID_INTERVAL_MS - 1)).toBe(false);
    expect(mayRead("unknown_kid", state, T0 + UNKNOWN_KID_INTERVAL_MS)).toBe(true);
    expect(mayRead("stale", state, T0 + FAILED_READ_COOLDOWN_MS - 1)).toBe(false);
    expect(mayRead("stale", state, T0 + FAILED_READ_COOLDOWN_MS)).toBe(true);
    // A stale refresh is not an unknown-kid read: a rotation right after one is still read for at once.
    const refreshed = afterRead({}, "stale", T0, [key("A")]);
    expect(mayRead("unknown_kid", refreshed, T0 + 1)).toBe(true);
  });

  it("a good read replaces the last whole; a failed one keeps it", () => {
    const first = afterRead({}, "unknown_kid", T0, [key("A"), key("B")]);
    expect(kids(keysInForce([], afterRead(first, "stale", T0 + 5, undefined)))).toEqual(["A", "B"]);
    expect(kids(keysInForce([], afterRead(first, "stale", T0 + 5, [key("B")])))).toEqual(["B"]);
  });

  it("only session keys count, configured or read", () => {
    const configured = JSON.stringify([session("A"), { ...key("F"), oc_use: "audit" }, key("plain")]);
    expect(kids(configuredSessionKeys(configured))).toEqual(["A", "plain"]);
    expect(configuredSessionKeys(undefined)).toEqual([]);
  });
});

describe("createJwksKeys", () => {
  it("a kid rotated in since AUTH_PUBLIC_KEYS was written is read for on its first token", async () => {
    const host = jwks(session("B"), session("A"), { ...key("F"), oc_use: "audit" });
    const held = createJwksKeys();
    expect(kids(await held.keysFor(["A"], [key("A")], T0, host.read))).toEqual(["A"]);
    expect(host.reads).toBe(0);
    expect(kids(await held.keysFor(["B"], [key("A")], T0 + 1, host.read))).toEqual(["A", "B"]);
    expect(host.reads).toBe(1);
    // The audit key of the same JWKS never joins, even when a token names it.
    expect(kids(await held.keysFor(["F"], [key("A")], T0 + 2, host.read))).toEqual(["A", "B"]);
  });

  it("made-up kids cost one read per interval, and concurrent requests share the read in flight", async () => {
    const host = jwks(session("A"));
    host.delay = 5;
    const held = createJwksKeys();
    await Promise.all([1, 2, 3, 4, 5].map((n) => held.keysFor([`made-up-${n}`], [], T0, host.read)));
    expect(host.reads).toBe(1);
    for (let n = 0; n < 20; n++) await held.keysFor([`other-${n}`], [], T0 + n * 1000, host.read);
    expect(host.reads).toBe(1);
    await held.keysFor(["yet-another"], [], T0 + UNKNOWN_KID_INTERVAL_MS, host.read);
    expect(host.reads).toBe(2);
  });

  it("a key the JWKS no longer publishes stops verifying when the read is past its TTL", async () => {
    const host = jwks(session("A"), session("old"));
    const held = createJwksKeys();
    expect(kids(await held.keysFor(["old"], [], T0, host.read))).toEqual(["A", "old"]);
    host.keys = [session("A")]; // `npm run keys -- retire old`
    expect(kids(await held.keysFor(["old"], [], T0 + JWKS_TTL_MS - 1, host.read))).toEqual(["A", "old"]);
    expect(kids(await held.keysFor(["old"], [], T0 + JWKS_TTL_MS, host.read))).toEqual(["A"]);
    expect(host.reads).toBe(2);
  });

  it("a failed read keeps the keys in hand and is not retried within the cooldown", async () => {
    const host = jwks(session("A"));
    const held = createJwksKeys();
    await held.keysFor(["A"], [], T0, host.read);
    host.fail = true;
    const stale = T0 + JWKS_TTL_MS;
    expect(kids(await held.keysFor(["A"], [], stale, host.read))).toEqual(["A"]);
    expect(kids(await held.keysFor(["A"], [], stale + FAILED_READ_COOLDOWN_MS - 1, host.read))).toEqual(["A"]);
    expect(host.reads).toBe(2);
    host.fail = false;
    await held.keysFor(["A"], [], stale + FAILED_READ_COOLDOWN_MS, host.read);
    expect(host.reads).toBe(3);
    expect(held.state().failedAt).toBeUndefined();
  });

  it("a JWKS with no session key is a failed read, not an empty set", async () => {
    const host = jwks(session("A"));
    const held = createJwksKeys();
    await held.keysFor(["A"], [], T0, host.read);
    host.keys = [{ ...key("F"), oc_use: "audit" }];
    expect(kids(await held.keysFor(["A"], [], T0 + JWKS_TTL_MS, host.read))).toEqual(["A"]);
    expect(held.state().failedAt).toBe(T0 + JWKS_TTL_MS);
  });
});
