// Following a project's transparency log (issue 29; docs/log.md "Monitoring a log"): one monitor step over a reader
// of the log's tiles, the state it keeps between steps, and the HTTP reader. `oc log monitor` is built on this.

export { parseVerifierKey } from "../../tlog/note";
export { legacyLogOrigin, logKeyName, logOrigin } from "../../tlog/origin";
export { auditKeys, type CheckpointFailure } from "../envelopes/bundle-log";
export { type HttpLogReaderOptions, httpLogReader } from "./http-reader";
export { type MonitorFailure, type MonitorInput, type MonitorResult, monitorStep } from "./monitor";
export type { LogReader } from "./pieces";
export { type MonitorState, parseMonitorState, stateJson } from "./state";
