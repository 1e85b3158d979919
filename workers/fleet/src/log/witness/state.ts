// What the log keeps per project and witness (issue 48; table log_witnesses, 0023) and how one submission's outcome
// moves it. Pure: the round (round.ts) does the I/O and writes what `afterOutcome` returns. The problems are the
// log screen's codes, not HTTP reasons: nothing answers a request with them.

/** Waits before the next attempt after 1, 2, … failures in a row (the last one repeats). */
export const RETRY_DELAYS_MS = [10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000] as const;

export type WitnessProblem =
  /** Its size is above ours, or it holds a tree at its size our log is not consistent with: a fork or rollback. */
  | "witness_conflict"
  /** It refused the submission otherwise (400, 403, 404: it does not know this log or its key, or the body). */
  | "witness_refused"
  /** No answer in time, a network failure or a 5xx. */
  | "witness_unreachable"
  /** It answered 200 without a valid cosignature by its configured key over the checkpoint. */
  | "cosignature_invalid";

export interface WitnessState {
  witness: string;
  /** The size of the latest checkpoint the witness holds for this log, as far as the log knows (the next `old`). */
  size: number;
  /** The latest checkpoint it cosigned for this log: its size, text and the cosignature line(s) over that text. */
  cosignedSize: number | null;
  checkpoint: string | null;
  cosignature: string | null;
  cosignedAt: number | null;
  problem: WitnessProblem | null;
  /** The checkpoint size that met the problem, and the witness's own size when it said one (409). */
  problemSize: number | null;
  witnessSize: number | null;
  problemAt: number | null;
  failures: number;
  /** No attempt before this time (ms). */
  retryAt: number;
}

export const freshState = (witness: string): WitnessState => ({
  witness,
  size: 0,
  cosignedSize: null,
  checkpoint: null,
  cosignature: null,
  cosignedAt: null,
  problem: null,
  problemSize: null,
  witnessSize: null,
  problemAt: null,
  failures: 0,
  retryAt: 0,
});

export type Outcome =
  | { kind: "cosigned"; size: number; text: string; lines: string[] }
  | { kind: "problem"; problem: WitnessProblem; size: number; witnessSize?: number };

/** The state after one submission of the checkpoint of `size` at `now`. */
export function afterOutcome(state: WitnessState, outcome: Outcome, now: number): WitnessState {
  if (outcome.kind === "cosigned") {
    return {
      ...freshState(state.witness),
      size: outcome.size,
      cosignedSize: outcome.size,
      checkpoint: outcome.text,
      cosignature: outcome.lines.join("\n"),
      cosignedAt: now,
    };
  }
  const failures = state.failures + 1;
  const delay = RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length) - 1] as number;
  return {
    ...state,
    // What the witness said it holds is where the next submission starts from.
    size: outcome.witnessSize ?? state.size,
    problem: outcome.problem,
    problemSize: outcome.size,
    witnessSize: outcome.witnessSize ?? null,
    problemAt: now,
    failures,
    retryAt: now + delay,
  };
}

/** Whether the witness should be sent the checkpoint `text` now: it has not cosigned it and is not waiting. */
export const due = (state: WitnessState, text: string, now: number) =>
  state.checkpoint !== text && state.retryAt <= now;
