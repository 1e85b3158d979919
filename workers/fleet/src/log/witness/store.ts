// The log_witnesses rows of a project (0023): read whole (a handful per project), written back one upsert a witness
// after a round, and read with the log's state in one round trip when the checkpoint is served.
import type { Db } from "../../../../../shared/db/client";
import type { WitnessProblem, WitnessState } from "./state";

interface Row {
  witness: string;
  size: number;
  cosigned_size: number | null;
  checkpoint: string | null;
  cosignature: string | null;
  cosigned_at: number | null;
  problem: string | null;
  problem_size: number | null;
  witness_size: number | null;
  problem_at: number | null;
  failures: number;
  retry_at: number;
}

const COLUMNS =
  "witness, size, cosigned_size, checkpoint, cosignature, cosigned_at, problem, problem_size, witness_size, " +
  "problem_at, failures, retry_at";

const stateOf = (r: Row): WitnessState => ({
  witness: r.witness,
  size: r.size,
  cosignedSize: r.cosigned_size,
  checkpoint: r.checkpoint,
  cosignature: r.cosignature,
  cosignedAt: r.cosigned_at,
  problem: r.problem as WitnessProblem | null,
  problemSize: r.problem_size,
  witnessSize: r.witness_size,
  problemAt: r.problem_at,
  failures: r.failures,
  retryAt: r.retry_at,
});

/** The statement reading every witness row of a project. */
export function witnessRowsQuery(db: Db, projectId: string): D1PreparedStatement {
  return db.$client.prepare(`select ${COLUMNS} from log_witnesses where project_id = ?`).bind(projectId);
}

/** The rows `witnessRowsQuery` read, by witness name. */
export function witnessStatesOf(rows: readonly unknown[]): Map<string, WitnessState> {
  return new Map((rows as Row[]).map((r) => [r.witness, stateOf(r)]));
}

/** Every witness row of a project, by witness name: one query. */
export async function readWitnessStates(db: Db, projectId: string): Promise<Map<string, WitnessState>> {
  const { results } = await witnessRowsQuery(db, projectId).all<Row>();
  return witnessStatesOf(results);
}

/** Writes the given states of a project's witnesses, one upsert each, in one batch. */
export async function writeWitnessStates(db: Db, projectId: string, states: readonly WitnessState[]): Promise<void> {
  if (states.length === 0) return;
  const upsert = db.$client.prepare(
    `insert into log_witnesses (project_id, ${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (project_id, witness) do update set size = excluded.size, cosigned_size = excluded.cosigned_size,
       checkpoint = excluded.checkpoint, cosignature = excluded.cosignature, cosigned_at = excluded.cosigned_at,
       problem = excluded.problem, problem_size = excluded.problem_size, witness_size = excluded.witness_size,
       problem_at = excluded.problem_at, failures = excluded.failures, retry_at = excluded.retry_at`,
  );
  await db.$client.batch(
    states.map((s) =>
      upsert.bind(
        projectId,
        s.witness,
        s.size,
        s.cosignedSize,
        s.checkpoint,
        s.cosignature,
        s.cosignedAt,
        s.problem,
        s.problemSize,
        s.witnessSize,
        s.problemAt,
        s.failures,
        s.retryAt,
      ),
    ),
  );
}
