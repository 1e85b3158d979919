// Witnessing (issue 48; docs/log.md "Witnesses"): after an integration the project's log integrator sends the new
// checkpoint to each configured witness by C2SP tlog-witness add-checkpoint, with the consistency proof from the size
// that witness holds, keeps the cosignatures and serves them appended to exactly that checkpoint; a witness that is
// down delays only its own cosignature and catches up; a witness that holds a forked tree refuses the log's and the
// log screen's JSON says so with both sizes. The witnesses are test/harness/witness-server.mjs (from the specs, its
// own key, state and Merkle code), three of them, started by vitest.config.ts.
import { env, runInDurableObject } from "cloudflare:test";
import { base64 } from "@scure/base";
import { beforeAll, describe, expect, it } from "vitest";
import { openNote, signNote } from "../../shared/tlog/note";
import { type WitnessView as ScreenWitness, witnessStatus } from "../../workers/fleet/dashboard/src/witness-status";
import { logKey } from "../../workers/fleet/src/log/key";
import { integrateLog, loggedProject } from "../helpers/log";
import {
  addCheckpoint,
  comeUp,
  cosignedBy,
  goDown,
  integratorWith,
  readWith,
  trustFleet,
  WITNESSES,
  witnessConfig,
  witnessRequests,
  witnessState,
} from "../helpers/witnesses";

const [W1, W2, W3] = WITNESSES as [(typeof WITNESSES)[0], (typeof WITNESSES)[0], (typeof WITNESSES)[0]];

interface WitnessView {
  name: string;
  cosigned_size: number | null;
  current: boolean;
  problem: { reason: string; checkpoint_size: number; witness_size: number | null } | null;
  next_attempt_at: number | null;
}

/** A project whose log runs with `witnesses`, with `actions` actions registered (not yet integrated). */
async function witnessedProject(actions: number, witnesses: typeof WITNESSES) {
  const project = await loggedProject(actions);
  const config = witnessConfig(witnesses);
  await integratorWith(project.projectId, config);
  const checkpoint = async () => {
    const res = await readWith(project.owner, `/api/log/${project.projectId}/checkpoint`, config);
    expect(res.status).toBe(200);
    return res.text();
  };
  const screen = async () => {
    const res = await readWith(project.owner, `/api/log/witnesses?project_id=${project.projectId}`, config);
    expect(res.status).toBe(200);
    return (await res.json()) as { size: number; configuration_error: string | null; witnesses: WitnessView[] };
  };
  // The log's origin and key name, as its (empty) checkpoint says them.
  const empty = await checkpoint();
  const origin = empty.split("\n")[0] as string;
  const keyName = (/\n— (\S+) /.exec(empty) as RegExpExecArray)[1] as string;
  return { ...project, config, checkpoint, screen, origin, keyName };
}

const signatureLines = (note: string) =>
  note
    .slice(note.indexOf("\n\n") + 2)
    .trimEnd()
    .split("\n");
const fleetNoteKey = (name: string) => ({ name, publicKey: logKey(env as never).publicKey });

beforeAll(() => trustFleet(WITNESSES));

describe("a log with witnesses", () => {
  it("one witness: the checkpoint is cosigned after integration and served with its line after the log's", async () => {
    const p = await witnessedProject(2, [W1]);
    await integrateLog(p.projectId);
    const note = await p.checkpoint();
    expect(note.split("\n")[1]).toBe("3");
    const lines = signatureLines(note);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^— ${p.keyName} `));
    expect(lines[1]).toMatch(/^— witness\.test\/w1 /);
    expect(cosignedBy(note, W1)).toBe(true);
    // The log's own verifier still opens the note: the witness's line is a key it does not know, ignored.
    expect(openNote(note, [fleetNoteKey(p.keyName)])?.signedBy).toEqual([p.keyName]);
    expect(await witnessState(W1, p.origin)).toMatchObject({ size: 3 });
    const view = await p.screen();
    expect(view.size).toBe(3);
    expect(view.witnesses).toEqual([
      expect.objectContaining({ name: W1.name, cosigned_size: 3, current: true, problem: null }),
    ]);
    // The other checkpoint route serves the same cosigned note; without witnesses configured, the log's alone.
    const legacy = await readWith(p.owner, `/api/log/checkpoint?project_id=${p.projectId}`, p.config);
    expect(await legacy.text()).toBe(note);
    const bare = await readWith(p.owner, `/api/log/${p.projectId}/checkpoint`, "");
    expect(signatureLines(await bare.text())).toHaveLength(1);
  });

  it("two witnesses: a grown log goes to each from the size it holds, with the consistency proof", async () => {
    const p = await witnessedProject(2, [W1, W2]);
    await integrateLog(p.projectId);
    await p.register();
    await p.register();
    await integrateLog(p.projectId);
    const note = await p.checkpoint();
    expect(note.split("\n")[1]).toBe("5");
    expect(cosignedBy(note, W1) && cosignedBy(note, W2)).toBe(true);
    for (const w of [W1, W2]) {
      expect((await witnessRequests(w, p.origin)).map((r) => [r.old, r.size, r.status])).toEqual([
        [0, 3, 200],
        [3, 5, 200],
      ]);
    }
    expect((await p.screen()).witnesses.map((w) => [w.cosigned_size, w.current])).toEqual([
      [5, true],
      [5, true],
    ]);
  });

  it("three witnesses, one down and one holding a forged fork: the one good cosignature is served, the screen says why not the others", async () => {
    const p = await witnessedProject(2, [W1, W2, W3]);
    await goDown(W2, p.origin);
    // A fork: the fleet's key signs a tree of 2 leaves that is not this log's, and W3 is shown it first.
    const forged = signNote(
      `${p.origin}\n2\n${base64.encode(new Uint8Array(32).fill(7))}\n`,
      p.keyName,
      logKey(env as never).secret,
    );
    expect((await addCheckpoint(W3, `old 0\n\n${forged}`)).status).toBe(200);
    await integrateLog(p.projectId);
    const note = await p.checkpoint();
    expect(cosignedBy(note, W1)).toBe(true);
    expect(cosignedBy(note, W2) || cosignedBy(note, W3)).toBe(false);
    expect(signatureLines(note)).toHaveLength(2);
    // W3 answered 409 with its size, then refused the proof from it (422): the log tried once more, no further.
    expect((await witnessRequests(W3, p.origin)).map((r) => [r.old, r.size, r.status])).toEqual([
      [0, 2, 200],
      [0, 3, 409],
      [2, 3, 422],
    ]);
    const [one, two, three] = (await p.screen()).witnesses as unknown as [ScreenWitness, ScreenWitness, ScreenWitness];
    expect(one).toMatchObject({ cosigned_size: 3, current: true, problem: null });
    expect(two).toMatchObject({ cosigned_size: null, current: false, problem: { reason: "witness_unreachable" } });
    expect(three).toMatchObject({
      cosigned_size: null,
      current: false,
      problem: { reason: "witness_conflict", checkpoint_size: 3, witness_size: 2 },
    });
    expect(two.next_attempt_at).toBeGreaterThan(Date.now());
    // The log screen (the audit view's witness section) says it plainly.
    expect(witnessStatus(three, 3)).toMatch(
      /^Witness witness\.test\/w3 refused checkpoint 3: not consistent with its size 2 \(a fork\)\. Next try /,
    );
    expect(witnessStatus(two, 3)).toMatch(/^Witness witness\.test\/w2 did not answer for checkpoint 3\. Next try /);
    expect(witnessStatus(one, 3)).toBe("Cosigned the current checkpoint (size 3).");
    await comeUp(W2, p.origin);
  });

  it("a witness holding a larger tree than the log (a rollback signal): no retry past its size, the screen says so", async () => {
    const p = await witnessedProject(2, [W1]);
    const forged = signNote(
      `${p.origin}\n5\n${base64.encode(new Uint8Array(32).fill(5))}\n`,
      p.keyName,
      logKey(env as never).secret,
    );
    expect((await addCheckpoint(W1, `old 0\n\n${forged}`)).status).toBe(200);
    await integrateLog(p.projectId);
    expect((await witnessRequests(W1, p.origin)).map((r) => [r.old, r.size, r.status])).toEqual([
      [0, 5, 200],
      [0, 3, 409],
    ]);
    const [view] = (await p.screen()).witnesses as unknown as [ScreenWitness];
    expect(view.problem).toMatchObject({ reason: "witness_conflict", checkpoint_size: 3, witness_size: 5 });
    expect(witnessStatus(view, 3)).toMatch(
      /^Witness witness\.test\/w1 refused checkpoint 3: it holds a larger tree, size 5 \(a rollback or a fork\)\./,
    );
    expect(signatureLines(await p.checkpoint())).toHaveLength(1);
  });

  it("a witness down, then up, catches up from the size it holds once its retry is due", async () => {
    const p = await witnessedProject(1, [W1, W2]);
    await integrateLog(p.projectId);
    await goDown(W2, p.origin);
    await p.register();
    await integrateLog(p.projectId);
    const integrator = env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(p.projectId));
    let view = await p.screen();
    expect(view.witnesses.map((w) => [w.cosigned_size, w.current, w.problem?.reason ?? null])).toEqual([
      [3, true, null],
      [2, false, "witness_unreachable"],
    ]);
    await comeUp(W2, p.origin);
    // The failure set the integrator's alarm for the retry; that time has come (in whichever shard holds the log).
    expect(await runInDurableObject(integrator, (_o, state) => state.storage.getAlarm())).not.toBeNull();
    for (const db of [env.DB, env.REGISTRY_1, env.REGISTRY_2]) {
      await db?.prepare("update log_witnesses set retry_at = 0 where project_id = ?").bind(p.projectId).run();
    }
    await integrator.integrateNow(p.projectId);
    view = await p.screen();
    expect(view.witnesses.map((w) => [w.cosigned_size, w.current, w.problem])).toEqual([
      [3, true, null],
      [3, true, null],
    ]);
    expect((await witnessRequests(W2, p.origin)).map((r) => [r.old, r.size, r.status])).toEqual([
      [0, 2, 200],
      [2, 3, 200],
    ]);
    const note = await p.checkpoint();
    expect(cosignedBy(note, W1) && cosignedBy(note, W2)).toBe(true);
  });
});

describe("a witness's retry never delays a checkpoint", () => {
  it("a poke brings an alarm set beyond one interval (a witness's backoff) back within it", async () => {
    const { projectId } = await loggedProject(0);
    const integrator = env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(projectId));
    const interval = Number((env as unknown as { LOG_CHECKPOINT_INTERVAL_MS: string }).LOG_CHECKPOINT_INTERVAL_MS);
    const far = Date.now() + 2 * interval;
    await runInDurableObject(integrator, (_o, state) => state.storage.setAlarm(far));
    const at = await integrator.poke(projectId);
    expect(at).toBeLessThanOrEqual(Date.now() + interval);
    expect(await runInDurableObject(integrator, (_o, state) => state.storage.getAlarm())).toBe(at);
    // An alarm already within the interval is kept (registrations in a burst share it).
    expect(await integrator.poke(projectId)).toBe(at);
  });
});

describe("the test witness refuses what the spec says it must", () => {
  it("a fork or a rollback presented after it cosigned the log: 409 with its size, 422, 400; a key it does not trust: 403", async () => {
    const p = await witnessedProject(2, [W1]);
    await integrateLog(p.projectId);
    const real = await p.checkpoint();
    const sign = (size: number, fill: number) =>
      signNote(
        `${p.origin}\n${size}\n${base64.encode(new Uint8Array(32).fill(fill))}\n`,
        p.keyName,
        logKey(env as never).secret,
      );
    // The same size, another root: a fork.
    expect(await addCheckpoint(W1, `old 3\n\n${sign(3, 1)}`)).toMatchObject({ status: 409, body: "3\n" });
    // A larger tree that does not extend the cosigned one (the proof cannot hold).
    const bogus = `${base64.encode(new Uint8Array(32).fill(2))}\n`;
    expect((await addCheckpoint(W1, `old 3\n${bogus}\n${sign(5, 1)}`)).status).toBe(422);
    // A rollback: from its size to a smaller one, or from the smaller one (its size comes back, text/x.tlog.size).
    expect((await addCheckpoint(W1, `old 3\n\n${sign(2, 1)}`)).status).toBe(400);
    expect(await addCheckpoint(W1, `old 2\n\n${sign(2, 1)}`)).toMatchObject({
      status: 409,
      type: "text/x.tlog.size",
      body: "3\n",
    });
    // A checkpoint signed by a key it does not trust.
    const stranger = signNote(
      `example.com/other\n1\n${base64.encode(new Uint8Array(32))}\n`,
      "example.com",
      new Uint8Array(32).fill(9),
    );
    expect((await addCheckpoint(W1, `old 0\n\n${stranger}`)).status).toBe(403);
    expect(await witnessState(W1, p.origin)).toMatchObject({ size: 3 });
    // The log's real checkpoint again, from its size: cosigned (nothing changed).
    const again = await addCheckpoint(W1, `old 3\n\n${real.slice(0, real.indexOf("\n— witness") + 1)}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatch(/^— witness\.test\/w1 \S+\n$/);
  });
});
