// Rebuilding a project's registry from its signed audit bundle and its log (issue 28; docs/recovery.md): what the
// `oc restore` command (scripts/kit/restore.mjs) runs, through the kit's Node entry.
export {
  planRestore,
  projectProblem,
  type RestoreFailure,
  type RestoreInput,
  type RestorePlan,
  type RestoreProof,
} from "./plan";
export { type LogEntry, type Replay, type ReplayedRow, replay } from "./replay";
export { MAX_STATEMENT_BYTES, restoreStatements, sqlFile } from "./sql";
