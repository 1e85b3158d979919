// What the log screen says of one witness (issue 48): the size it last cosigned and, plainly, why it has not cosigned
// the current checkpoint when it has not. Pure (no DOM), apart from log-witnesses.ts so tests read it directly.

export interface WitnessView {
  name: string;
  vkey: string;
  cosigned_size: number | null;
  cosigned_at: number | null;
  current: boolean;
  problem: {
    reason: "witness_conflict" | "witness_refused" | "witness_unreachable" | "cosignature_invalid";
    checkpoint_size: number;
    witness_size: number | null;
    at: number;
  } | null;
  next_attempt_at: number | null;
}

const at = (ms: number) => `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`;

/** One sentence on where a witness stands with the log's current checkpoint of `size`. */
export function witnessStatus(w: WitnessView, size: number): string {
  const p = w.problem;
  const retry = w.next_attempt_at ? ` Next try ${at(w.next_attempt_at)}.` : "";
  if (w.current) return `Cosigned the current checkpoint (size ${size}).`;
  if (!p) return size === 0 ? "Nothing to cosign yet." : `Not yet asked to cosign checkpoint ${size}.`;
  switch (p.reason) {
    case "witness_conflict":
      return p.witness_size !== null && p.witness_size > p.checkpoint_size
        ? `Witness ${w.name} refused checkpoint ${p.checkpoint_size}: it holds a larger tree, size ${p.witness_size} (a rollback or a fork).${retry}`
        : `Witness ${w.name} refused checkpoint ${p.checkpoint_size}: not consistent with its size ${p.witness_size} (a fork).${retry}`;
    case "witness_refused":
      return `Witness ${w.name} refused checkpoint ${p.checkpoint_size} (it may not know this log or its key).${retry}`;
    case "witness_unreachable":
      return `Witness ${w.name} did not answer for checkpoint ${p.checkpoint_size}.${retry}`;
    case "cosignature_invalid":
      return `Witness ${w.name} answered checkpoint ${p.checkpoint_size} without a valid cosignature.${retry}`;
  }
}
