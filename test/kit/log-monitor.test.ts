// The log monitor's step (shared/kit/log/monitor.ts) over logs built in memory from real signed envelopes: a first
// run verifies every entry, a later one only the new ones (and reads only their bundles); a fork, a rollback, entries
// that are not the log's, an invalid envelope the log holds, a checkpoint of another key, host or project, a missing
// piece and a failing reader each give their reason; the saved state reads back and refuses a broken one.
import { base64 } from "@scure/base";
import { beforeAll, describe, expect, it } from "vitest";
import { httpLogReader, type MonitorInput, monitorStep, parseMonitorState, stateJson } from "../../shared/kit/log";
import type { MonitorState } from "../../shared/kit/log/state";
import { signNote } from "../../shared/tlog/note";
import { encodeEntryBundle } from "../../shared/tlog/tiles";
import {
  type AuditKey,
  auditKey,
  badlySignedEntry,
  envelopeEntries,
  FLEET_HOST,
  logPieces,
  PROJECT,
  signedCheckpoint,
  stepOver,
} from "../helpers/monitor-log";

let key: AuditKey;
let entries: Uint8Array[]; // 700: three bundles, two of them full

beforeAll(async () => {
  key = auditKey();
  entries = await envelopeEntries(700);
}, 120_000);

const log = (from: readonly Uint8Array[]) => logPieces(from, { key });
const step = (pieces: Map<string, Uint8Array>, state?: MonitorState, more: Partial<MonitorInput> = {}) =>
  stepOver(key, pieces, state, more);

async function stateAt(size: number): Promise<MonitorState> {
  const result = await step(log(entries.slice(0, size)));
  if (!result.ok) throw new Error(result.detail);
  return result.state;
}

describe("a log followed from its saved state", () => {
  it("a first run verifies every entry, reading only the entry bundles", async () => {
    const result = await step(log(entries.slice(0, 300)));
    expect(result).toMatchObject({ ok: true, previousSize: 0, verified: 300 });
    if (!result.ok) return;
    expect(result.state.size).toBe(300);
    expect(result.state.origin).toBe(`${FLEET_HOST}/api/log/${PROJECT}`);
    expect(result.state.root).toBe(base64.encode(result.checkpoint.root));
    expect(result.state.frontier).toHaveLength(4); // one hash per set bit: 300 = 256 + 32 + 8 + 4
    expect(result.asked).toEqual(["checkpoint", "tile/entries/000", "tile/entries/001.p/44"]);
  });

  it("a later run verifies only the new entries, at the widths the new checkpoint requires", async () => {
    const result = await step(log(entries), await stateAt(300));
    expect(result).toMatchObject({ ok: true, previousSize: 300, verified: 400 });
    expect(result.asked).toEqual(["checkpoint", "tile/entries/001", "tile/entries/002.p/188"]);
    if (!result.ok) return;
    const again = await step(log(entries), result.state);
    expect(again).toMatchObject({ ok: true, verified: 0, asked: ["checkpoint"] });
  });

  it("an empty log, then its first entries", async () => {
    const empty = await step(log([]));
    expect(empty).toMatchObject({ ok: true, verified: 0 });
    if (!empty.ok) return;
    expect(await step(log(entries.slice(0, 3)), empty.state)).toMatchObject({ ok: true, verified: 3 });
  });

  it("a partial piece no longer served is read from its full tile", async () => {
    const pieces = log(entries);
    pieces.delete("tile/entries/001.p/44"); // what a log may do once tile 1 is full (it is at 700)
    const at300 = new Map([...log(entries.slice(0, 300))].filter(([p]) => p !== "tile/entries/001.p/44"));
    at300.set("tile/entries/001", pieces.get("tile/entries/001") as Uint8Array);
    const result = await step(at300);
    expect(result).toMatchObject({ ok: true, verified: 300 });
    expect(result.asked).toContain("tile/entries/001");
  });
});

describe("what a monitor catches", () => {
  it("fork: the saved size with another root, both roots named", async () => {
    const saved = await stateAt(5);
    const other = [...entries.slice(0, 4), entries[10] as Uint8Array];
    const result = await step(log(other), saved);
    expect(result).toMatchObject({ ok: false, reason: "fork" });
    if (result.ok) return;
    expect(result.detail).toContain(saved.root);
    expect(result.detail).toMatch(/at size 5 the saved root \S+ and the checkpoint's root \S+ differ/);
    expect(result.note).toBe(signedCheckpoint(other, { key }));
  });

  it("rollback: a smaller checkpoint after a larger one", async () => {
    const result = await step(log(entries.slice(0, 5)), await stateAt(7));
    expect(result).toMatchObject({ ok: false, reason: "rollback" });
    if (!result.ok) expect(result.detail).toBe("the checkpoint's size 5 is below the saved 7");
  });

  it("inconsistent: an entry's bytes changed (still a valid envelope), named by the level-0 tile", async () => {
    const pieces = log(entries.slice(0, 10));
    const served = entries.slice(0, 10);
    served[6] = entries[20] as Uint8Array;
    pieces.set("tile/entries/000.p/10", encodeEntryBundle(served));
    const result = await step(pieces);
    expect(result).toMatchObject({ ok: false, reason: "inconsistent" });
    if (!result.ok) expect(result.detail).toMatch(/^entry 6 does not hash to the log's leaf 6/);
  });

  it("inconsistent: a checkpoint that is not the saved tree grown", async () => {
    const saved = await stateAt(5);
    const rewritten = [...entries.slice(0, 4), entries[10] as Uint8Array, ...entries.slice(5, 9)];
    const result = await step(log(rewritten), saved);
    expect(result).toMatchObject({ ok: false, reason: "inconsistent" });
    if (!result.ok) {
      expect(result.detail).toBe("the checkpoint of size 9 is not the saved tree of size 5 grown by entries 5…8");
    }
  });

  it("entry_invalid: the log holds an envelope whose signature fails (its hash is in the log)", async () => {
    const logged = [...entries.slice(0, 3), await badlySignedEntry(), ...entries.slice(3, 6)];
    const result = await step(log(logged));
    expect(result).toMatchObject({ ok: false, reason: "entry_invalid" });
    if (!result.ok) expect(result.detail).toMatch(/^entry 3: /);
  });

  it("entry_invalid: an entry that is no JSON, or of no known kind", async () => {
    const utf8 = (s: string) => new TextEncoder().encode(s);
    const notJson = await step(log([entries[0] as Uint8Array, utf8("hello")]));
    expect(notJson).toMatchObject({ ok: false, reason: "entry_invalid", detail: "entry 1: not a JSON envelope" });
    const unknown = await step(log([utf8('{"kind":"agent-greeting","id":"x"}')]));
    expect(unknown).toMatchObject({
      ok: false,
      reason: "entry_invalid",
      detail: "entry 0: unknown kind agent-greeting",
    });
  });

  it("checkpoint_unsigned: a checkpoint signed by another key", async () => {
    const result = await step(logPieces(entries.slice(0, 3), { key: auditKey() }));
    expect(result).toMatchObject({ ok: false, reason: "checkpoint_unsigned" });
  });

  it("checkpoint_wrong_log: another project's origin, or signed as another host", async () => {
    const origin = `${FLEET_HOST}/log/proj_ffffffffffffffffffffffff`;
    const project = await step(logPieces(entries.slice(0, 3), { key, origin }));
    expect(project).toMatchObject({ ok: false, reason: "checkpoint_wrong_log" });
    if (!project.ok) expect(project.detail).toContain(origin);
    const host = await step(logPieces(entries.slice(0, 3), { key, name: "other.example" }));
    expect(host).toMatchObject({ ok: false, reason: "checkpoint_wrong_log" });
  });

  it("checkpoint_malformed: a signed note that is no checkpoint", async () => {
    const pieces = log(entries.slice(0, 3));
    pieces.set("checkpoint", new TextEncoder().encode(signNote("hello\n", FLEET_HOST, key.secret)));
    expect(await step(pieces)).toMatchObject({ ok: false, reason: "checkpoint_malformed" });
  });

  it("tile_missing: a bundle the checkpoint requires, or a checkpoint, is not served", async () => {
    const pieces = log(entries.slice(0, 300));
    pieces.delete("tile/entries/001.p/44");
    const result = await step(pieces);
    expect(result).toMatchObject({ ok: false, reason: "tile_missing", detail: "tile/entries/001.p/44 is not served" });
    pieces.delete("checkpoint");
    expect(await step(pieces)).toMatchObject({ ok: false, reason: "tile_missing" });
  });

  it("unreachable: the reader fails", async () => {
    const result = await monitorStep({
      reader: {
        read: () => Promise.reject(new Error("could not reach https://fleet.example.test (ECONNREFUSED)")),
      },
      fleetHost: FLEET_HOST,
      projectId: PROJECT,
      auditKeys: [key.publicKey],
    });
    expect(result).toEqual({
      ok: false,
      reason: "unreachable",
      detail: "could not reach https://fleet.example.test (ECONNREFUSED)",
    });
  });
});

describe("starting from the checkpoint, and the saved state", () => {
  it("--trust-from-checkpoint: the frontier from tiles, no entry read; then growth as usual", async () => {
    const first = await step(log(entries.slice(0, 600)), undefined, { trustFromCheckpoint: true });
    expect(first).toMatchObject({ ok: true, verified: 0 });
    expect(first.asked.filter((p) => p.startsWith("tile/entries"))).toEqual([]);
    if (!first.ok) return;
    expect(first.state).toEqual(await stateAt(600));
    expect(await step(log(entries), first.state)).toMatchObject({ ok: true, verified: 100 });
  });

  it("--trust-from-checkpoint checks the tiles against the root", async () => {
    const pieces = log(entries.slice(0, 600));
    const edge = (pieces.get("tile/0/002.p/88") as Uint8Array).slice();
    edge[0] = (edge[0] as number) ^ 1;
    pieces.set("tile/0/002.p/88", edge);
    expect(await step(pieces, undefined, { trustFromCheckpoint: true })).toMatchObject({
      ok: false,
      reason: "inconsistent",
    });
  });

  it("the state reads back as written, and a broken one is refused", async () => {
    const saved = await stateAt(300);
    const read = parseMonitorState(stateJson(saved));
    expect(read).toEqual({ ok: true, state: saved });
    if (!read.ok) return;
    expect(await step(log(entries.slice(0, 301)), read.state)).toMatchObject({ ok: true, verified: 1 });
    const wrongRoot = { ...saved, root: base64.encode(new Uint8Array(32)) };
    expect(parseMonitorState(JSON.stringify(wrongRoot))).toMatchObject({ ok: false });
    expect(parseMonitorState(JSON.stringify({ ...saved, size: 301 }))).toMatchObject({ ok: false });
    expect(parseMonitorState("{")).toEqual({ ok: false, detail: "not JSON" });
  });

  it("a state of another log is the caller's mistake", async () => {
    const saved = { ...(await stateAt(3)), origin: `${FLEET_HOST}/log/proj_ffffffffffffffffffffffff` };
    await expect(step(log(entries.slice(0, 3)), saved)).rejects.toThrow(RangeError);
  });
});

describe("the HTTP reader", () => {
  const reader = (answer: (url: string, init?: RequestInit) => Response | Promise<Response>) => {
    const calls: { url: string; init?: RequestInit }[] = [];
    const fetch = (async (url: string, init?: RequestInit) => {
      calls.push({ url, init });
      return answer(url, init);
    }) as typeof globalThis.fetch;
    return {
      calls,
      r: httpLogReader({ fleet: "https://fleet.example.test/", projectId: PROJECT, token: "ock_t", fetch }),
    };
  };

  it("reads pieces under the prefix with the token; a tile's 404 is not served", async () => {
    const { calls, r } = reader((url) =>
      url.endsWith("/checkpoint") ? new Response("note\n") : new Response("{}", { status: 404 }),
    );
    expect(new TextDecoder().decode(await r.read("checkpoint"))).toBe("note\n");
    expect(await r.read("tile/entries/000")).toBeUndefined();
    expect(calls[0]?.url).toBe(`https://fleet.example.test/api/log/${PROJECT}/checkpoint`);
    expect(new Headers(calls[0]?.init?.headers).get("authorization")).toBe("Bearer ock_t");
  });

  it("a refusal or a network failure throws one line", async () => {
    const refused = reader(() => Response.json({ ok: false, reason: "unauthenticated" }, { status: 401 })).r;
    await expect(refused.read("checkpoint")).rejects.toThrow(/checkpoint answered 401 unauthenticated$/);
    const gone = reader(() => {
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    }).r;
    await expect(gone.read("checkpoint")).rejects.toThrow("could not reach https://fleet.example.test (ECONNREFUSED)");
  });
});
