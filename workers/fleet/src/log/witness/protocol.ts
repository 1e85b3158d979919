// The wire side of C2SP tlog-witness's add-checkpoint, for the log as a client: the request body ("old <size>", the
// consistency proof's hashes one a line, a blank line, the signed checkpoint), what an answer means, and which of a
// 200's lines are the witness's valid cosignatures over the checkpoint (shared/tlog/cosignature.ts checks). Pure.
import { base64 } from "@scure/base";
import { checkCosignatures } from "../../../../../shared/tlog/cosignature";
import type { Hash } from "../../../../../shared/tlog/merkle";

/** The body of a submission of `note` to a witness that last cosigned size `old`. */
export function addCheckpointBody(old: number, proof: readonly Hash[], note: string): string {
  return `old ${old}\n${proof.map((h) => `${base64.encode(h)}\n`).join("")}\n${note}`;
}

export type Answer =
  /** 200: the body holds the witness's cosignature line(s), to be checked against its key. */
  | { kind: "cosigned"; body: string }
  /** 409 with the size of the witness's latest cosigned checkpoint (text/x.tlog.size). */
  | { kind: "conflict"; size: number }
  /** Another 4xx: a checkpoint or proof it will not cosign (422), an origin or key it does not know (404, 403). */
  | { kind: "refused"; status: number }
  /** No answer in time, a network failure, a 5xx or a 429: try again later. */
  | { kind: "unavailable"; status?: number };

/** An add-checkpoint answer read. */
export function readAnswer(status: number, body: string): Answer {
  if (status === 200) return { kind: "cosigned", body };
  if (status === 409) {
    const size = /^(0|[1-9][0-9]*)\n?$/.exec(body);
    return size && Number.isSafeInteger(Number(size[1]))
      ? { kind: "conflict", size: Number(size[1]) }
      : { kind: "refused", status };
  }
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return { kind: "refused", status };
  return { kind: "unavailable", status };
}

/** The lines of a 200 answer that are valid cosignatures by the witness `vkey` over `text`; others are dropped. */
export function cosignaturesIn(answer: string, vkey: string, text: string): string[] {
  return answer
    .split("\n")
    .filter((line) => line.startsWith("— ") && checkCosignatures(`${text}\n${line}\n`, { witnesses: [vkey] }).ok);
}
