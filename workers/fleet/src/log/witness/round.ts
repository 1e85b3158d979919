// One witnessing round of a project's log (issue 48; docs/log.md "Witnesses"), run by its log integrator after an
// integration or when a witness's retry is due, never on a request's path: the current checkpoint goes to every
// configured witness that has not cosigned it and is not waiting, all at once, each bounded by WITNESS_TIMEOUT_MS,
// with the consistency proof from the size that witness holds (none from 0). A 409 names the witness's size: one
// more try from it, unless it is above ours or the witness refuses that too, which is a fork or rollback signal kept
// for the log screen. A witness that is down delays only its own cosignature: it is tried again after a backoff.
import type { Db } from "../../../../../shared/db/client";
import { parseCheckpoint } from "../../../../../shared/tlog/checkpoint";
import { splitNote } from "../../../../../shared/tlog/note";
import { consistencyFromTiles, tilesForConsistency } from "../../../../../shared/tlog/tile-proofs";
import { readState, readTiles } from "../store";
import type { WitnessConfig } from "./config";
import { type Answer, addCheckpointBody, cosignaturesIn, readAnswer } from "./protocol";
import { afterOutcome, due, freshState, type Outcome, type WitnessState } from "./state";
import { readWitnessStates, writeWitnessStates } from "./store";

/** How long a witness has to answer one add-checkpoint. */
export const WITNESS_TIMEOUT_MS = 5_000;

interface Checkpoint {
  db: Db;
  projectId: string;
  note: string;
  text: string;
  size: number;
}

async function post(witness: WitnessConfig, body: string): Promise<Answer> {
  try {
    const res = await fetch(`${witness.url}/add-checkpoint`, {
      method: "POST",
      headers: { "Content-Type": "text/plain; charset=utf-8" },
      body,
      signal: AbortSignal.timeout(WITNESS_TIMEOUT_MS),
    });
    return readAnswer(res.status, await res.text());
  } catch {
    return { kind: "unavailable" };
  }
}

async function proofFrom(cp: Checkpoint, old: number) {
  if (old === 0 || old === cp.size) return [];
  return consistencyFromTiles(old, cp.size, await readTiles(cp.db, cp.projectId, tilesForConsistency(old, cp.size)));
}

/** Submits the checkpoint to one witness from the size it holds, once more from the size a 409 names. */
async function submit(witness: WitnessConfig, cp: Checkpoint, state: WitnessState): Promise<Outcome> {
  let old = state.size;
  for (let attempt = 0; ; attempt++) {
    // The witness holds a larger tree than the log now has: a rollback, or a fork it was shown.
    if (old > cp.size) return { kind: "problem", problem: "witness_conflict", size: cp.size, witnessSize: old };
    const answer = await post(witness, addCheckpointBody(old, await proofFrom(cp, old), cp.note));
    switch (answer.kind) {
      case "cosigned": {
        const lines = cosignaturesIn(answer.body, witness.vkey, cp.text);
        if (lines.length === 0) return { kind: "problem", problem: "cosignature_invalid", size: cp.size };
        return { kind: "cosigned", size: cp.size, text: cp.text, lines };
      }
      case "conflict":
        if (attempt === 0 && answer.size !== old) {
          old = answer.size;
          continue;
        }
        return { kind: "problem", problem: "witness_conflict", size: cp.size, witnessSize: answer.size };
      case "refused":
        // 422 from a size the witness holds: our tree is not its tree grown.
        if (answer.status === 422 && old > 0) {
          return { kind: "problem", problem: "witness_conflict", size: cp.size, witnessSize: old };
        }
        return { kind: "problem", problem: "witness_refused", size: cp.size };
      case "unavailable":
        return { kind: "problem", problem: "witness_unreachable", size: cp.size };
    }
  }
}

export interface RoundResult {
  /** Witnesses sent the checkpoint this round. */
  submitted: number;
  /** The earliest time a witness that has not cosigned the current checkpoint may be tried again (none: undefined). */
  retryAt: number | undefined;
}

/** Sends the project's current checkpoint to the witnesses that are due; writes what they answered. */
export async function witnessRound(
  db: Db,
  projectId: string,
  witnesses: readonly WitnessConfig[],
  now = Date.now(),
): Promise<RoundResult> {
  if (witnesses.length === 0) return { submitted: 0, retryAt: undefined };
  const [state, states] = await Promise.all([readState(db, projectId), readWitnessStates(db, projectId)]);
  if (!state) return { submitted: 0, retryAt: undefined };
  const text = splitNote(state.checkpoint)?.text;
  if (text === undefined || !parseCheckpoint(text)) return { submitted: 0, retryAt: undefined };
  const cp = { db, projectId, note: state.checkpoint, text, size: state.size };
  const current = witnesses.map((w) => ({ witness: w, state: states.get(w.name) ?? freshState(w.name) }));
  const sending = current.filter((c) => due(c.state, text, now));
  const updated = await Promise.all(
    sending.map(async (c) => afterOutcome(c.state, await submit(c.witness, cp, c.state), Date.now())),
  );
  await writeWitnessStates(db, projectId, updated);
  const after = new Map([
    ...current.map((c) => [c.witness.name, c.state] as const),
    ...updated.map((s) => [s.witness, s] as const),
  ]);
  const waiting = [...after.values()].filter((s) => s.checkpoint !== text).map((s) => s.retryAt);
  return { submitted: sending.length, retryAt: waiting.length > 0 ? Math.min(...waiting) : undefined };
}
