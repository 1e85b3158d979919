// The checkpoint as served with its witnesses' cosignatures (issue 48): the log's signed note, then the stored
// cosignature lines of the configured witnesses whose cosigned checkpoint is exactly this one's text (C2SP
// signed-note: more signature lines after the log's; a client ignores the keys it does not know). One round trip:
// the log's state and its witness rows in one batch; without configured witnesses, the state alone as before.
import type { Db } from "../../../../../shared/db/client";
import { splitNote } from "../../../../../shared/tlog/note";
import type { WitnessConfig } from "./config";
import type { WitnessState } from "./state";
import { witnessRowsQuery, witnessStatesOf } from "./store";

/** `note` with the cosignatures over its exact text appended, in the configuration's order. */
export function withCosignatures(
  note: string,
  states: ReadonlyMap<string, WitnessState>,
  witnesses: readonly WitnessConfig[],
): string {
  const text = splitNote(note)?.text;
  if (text === undefined) return note;
  const lines = witnesses.flatMap((w) => {
    const state = states.get(w.name);
    return state?.checkpoint === text && state.cosignature ? state.cosignature.split("\n") : [];
  });
  return lines.length === 0 ? note : `${note}${lines.map((line) => `${line}\n`).join("")}`;
}

/** The project's stored checkpoint with its cosignatures, or undefined before its first integration. */
export async function readCosignedCheckpoint(
  db: Db,
  projectId: string,
  witnesses: readonly WitnessConfig[],
): Promise<string | undefined> {
  const stateQuery = db.$client.prepare("select checkpoint from log_state where project_id = ?").bind(projectId);
  if (witnesses.length === 0) return (await stateQuery.first<{ checkpoint: string }>())?.checkpoint;
  const [state, rows] = await db.$client.batch<never>([stateQuery, witnessRowsQuery(db, projectId)]);
  const note = (state?.results?.[0] as { checkpoint: string } | undefined)?.checkpoint;
  return note === undefined ? undefined : withCosignatures(note, witnessStatesOf(rows?.results ?? []), witnesses);
}
