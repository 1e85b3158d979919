// The log monitor's step with a witness policy and across the log's rename (issue 48; shared/kit/log/monitor.ts):
// 0 to 3 of 3 witnesses cosigning against a threshold of 2 (refused before anything but the checkpoint is read), a
// forged cosignature, an unknown witness, a policy that is no policy; a state saved under the old origin moving to
// the new one, a fork across the rename still caught, the two names not mixed; and gzip-compressed entry bundles.
import { beforeAll, describe, expect, it } from "vitest";
import type { MonitorInput } from "../../shared/kit/log";
import type { MonitorState } from "../../shared/kit/log/state";
import {
  type AuditKey,
  auditKey,
  type Cosigner,
  cosigner,
  envelopeEntries,
  FLEET_HOST,
  LEGACY_ORIGIN,
  LOG_ORIGIN,
  type LogOptions,
  logPieces,
  stepOver,
} from "../helpers/monitor-log";

let key: AuditKey;
let entries: Uint8Array[];
const [w1, w2, w3] = [cosigner("witness.example/w1"), cosigner("witness.example/w2"), cosigner("w3.example")] as [
  Cosigner,
  Cosigner,
  Cosigner,
];
const POLICY = { witnesses: [w1.vkey, w2.vkey, w3.vkey], threshold: 2 };

beforeAll(async () => {
  key = auditKey();
  entries = await envelopeEntries(300);
}, 120_000);

const step = (pieces: Map<string, Uint8Array>, state?: MonitorState, more: Partial<MonitorInput> = {}) =>
  stepOver(key, pieces, state, more);
const log = (size: number, options: Partial<LogOptions> = {}) => logPieces(entries.slice(0, size), { key, ...options });

describe("a witness policy: 2 of 3", () => {
  for (const [count, ok] of [
    [0, false],
    [1, false],
    [2, true],
    [3, true],
  ] as const) {
    it(`${count} of 3 witnesses cosigning: ${ok ? "verified" : "witness_policy_unmet, nothing else read"}`, async () => {
      const result = await step(log(10, { cosigners: [w1, w2, w3].slice(0, count) }), undefined, POLICY);
      if (ok) {
        expect(result).toMatchObject({ ok: true, verified: 10 });
        expect(result.ok && result.cosigned?.map((c) => c.name)).toEqual(
          [w1, w2, w3].slice(0, count).map((w) => w.name),
        );
      } else {
        expect(result).toMatchObject({ ok: false, reason: "witness_policy_unmet", asked: ["checkpoint"] });
      }
    });
  }

  it("a forged cosignature (a listed witness's name, another key) and an unknown witness do not count", async () => {
    const forger = cosigner(w2.name);
    const stranger = cosigner("stranger.example");
    const result = await step(log(10, { cosigners: [w1, { ...forger, vkey: w2.vkey }, stranger] }), undefined, POLICY);
    expect(result).toMatchObject({ ok: false, reason: "witness_policy_unmet" });
  });

  it("a threshold above the witnesses listed, or a vkey that is no witness's, is witness_policy_invalid", async () => {
    const pieces = log(10, { cosigners: [w1, w2, w3] });
    expect(await step(pieces, undefined, { ...POLICY, threshold: 4 })).toMatchObject({
      ok: false,
      reason: "witness_policy_invalid",
    });
    expect(await step(pieces, undefined, { witnesses: [key.verifier] })).toMatchObject({
      ok: false,
      reason: "witness_policy_invalid",
    });
  });

  it("without a policy, cosignatures are ignored and none are required", async () => {
    expect(await step(log(10))).toMatchObject({ ok: true, verified: 10 });
    const cosigned = await step(log(10, { cosigners: [w1] }));
    expect(cosigned).toMatchObject({ ok: true });
    expect(cosigned.ok && cosigned.cosigned).toBeUndefined();
  });
});

describe("the log's new name (origin = key name = <host>/api/log/<project>) and the old one", () => {
  it("a checkpoint of the old form (origin <host>/log/<project>, signed as the host) still verifies", async () => {
    const result = await step(log(10, { legacy: true }));
    expect(result).toMatchObject({ ok: true, verified: 10 });
    expect(result.ok && result.state.origin).toBe(LEGACY_ORIGIN);
  });

  it("a state saved under the old name moves on to the new one, verifying only the new entries", async () => {
    const old = await step(log(10, { legacy: true }));
    if (!old.ok) throw new Error(old.detail);
    const moved = await step(log(20), old.state);
    expect(moved).toMatchObject({ ok: true, previousSize: 10, verified: 10 });
    expect(moved.ok && moved.state.origin).toBe(LOG_ORIGIN);
    const same = await step(log(10), old.state);
    expect(same).toMatchObject({ ok: true, verified: 0 });
    expect(same.ok && same.state.origin).toBe(LOG_ORIGIN);
  });

  it("a fork across the rename is still a fork, and a rollback a rollback", async () => {
    const old = await step(log(10, { legacy: true }));
    if (!old.ok) throw new Error(old.detail);
    const forked = logPieces([...entries.slice(0, 9), entries[20] as Uint8Array], { key });
    expect(await step(forked, old.state)).toMatchObject({ ok: false, reason: "fork" });
    expect(await step(log(9), old.state)).toMatchObject({ ok: false, reason: "rollback" });
  });

  it("the names are not mixed: the new origin signed as the host, or the old one signed as itself", async () => {
    expect(await step(log(10, { name: FLEET_HOST }))).toMatchObject({ ok: false, reason: "checkpoint_wrong_log" });
    expect(await step(log(10, { origin: LEGACY_ORIGIN }))).toMatchObject({ ok: false, reason: "checkpoint_wrong_log" });
  });
});

/** Gzip, as a server compresses an entry bundle (`Content-Encoding: gzip`). */
async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Response(new Uint8Array(bytes)).body?.pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe("compressed entry bundles", () => {
  it("bundles still gzipped when read (a fetch that does not decode, a mirror of what was sent) are verified", async () => {
    const pieces = log(300);
    for (const [path, bytes] of pieces) if (path.startsWith("tile/entries/")) pieces.set(path, await gzip(bytes));
    expect(pieces.get("tile/entries/000")?.subarray(0, 2)).toEqual(new Uint8Array([0x1f, 0x8b]));
    expect(await step(pieces)).toMatchObject({ ok: true, verified: 300 });
  });

  it("a gzip stream that is no bundle is tile_missing", async () => {
    const pieces = log(10);
    pieces.set("tile/entries/000.p/10", await gzip(new Uint8Array([0, 9, 1])));
    expect(await step(pieces)).toMatchObject({ ok: false, reason: "tile_missing" });
  });
});
