// `open-oc log monitor` (issue 29; docs/log.md "Monitoring a log"): follows a project's transparency log from a saved
// state, over HTTP or from a directory of tiles laid out as the URL paths, with the kit's monitor step
// (shared/kit/log/monitor.ts). The fleet and the audit key are what the person names, never read from the log.
// A check: one line on stdout; a failure: one line on stderr and exit 1; a mistake: one line and exit 2.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseCommand, usageMistake } from "./args.mjs";
import { readJwks, trustedFleetHost, UsageError, WITNESS_OPTIONS, witnessPolicyOf } from "./trust.mjs";

export const LOG_USAGE = `open-oc log monitor — follow a project's transparency log from a saved state (docs/log.md "Monitoring a log")

  open-oc log monitor --project <proj_…> --fleet <origin> (--key <verifier key> | --jwks <url or file>)
                      [--token <ock_…>] [--state <file>] [--dir <directory>] [--once] [--interval <seconds>]
                      [--trust-from-checkpoint] [--witness <vkey> ... | --witness-file <file>] [--witness-threshold <n>]

  Reads the project's checkpoint (<fleet>/api/log/<project>/checkpoint) and checks that the fleet's audit key
  signed it as the log <fleet host>/api/log/<project> (its origin and key name; a checkpoint from before they were
  renamed, <fleet host>/log/<project> signed as the host, is the same log): --key is that key's verifier key
  (GET <fleet>/api/log/key?project_id=<project>), --jwks the auth host's JWKS (its keys marked oc_use "audit").
  With --witness (a witness's vkey <name>+<hex8>+<base64>, repeatable) or --witness-file (one vkey a line, # for
  comments), the checkpoint must also carry valid cosignatures by --witness-threshold of those witnesses (default:
  all of them); otherwise it is refused (witness_policy_unmet) before anything else is read. Then, against the state
  the last run saved (--state, default .oc/monitor-<project>.json): the same size with another root is a fork, a
  smaller size a rollback; a larger one reads the entry bundles of the new entries only, checks that each is a
  valid envelope (its kind's parser, its id, its signature) and that their hashes grow the saved tree into the
  checkpoint's. A first run verifies the whole log, or with --trust-from-checkpoint starts from the checkpoint (its
  tiles checked against its root, the entries before it not checked). Each success saves the new state.
  --fleet ($OC_FLEET) is the fleet whose log you follow; --token ($OC_TOKEN) a project token, read scope is enough,
  and none is needed for a log its owner made public; --project may come from $OC_PROJECT. --dir reads <dir>/checkpoint and <dir>/tile/… laid out as the URL paths
  (a mirror of the prefix), with no network. Without --once it checks again every --interval seconds (default 60),
  printing a line when the log grows, until a check fails (an unreachable fleet is reported and tried again).
  Exit 0: OK. 1: FAILED (<reason>): checkpoint_unsigned, checkpoint_wrong_log, checkpoint_malformed,
  witness_policy_unmet, fork, rollback, inconsistent, entry_invalid, tile_missing or unreachable. 2: a mistake in the
  command line (a --witness that is no witness vkey, a threshold above the witnesses given, …).`;

const OPTIONS = {
  project: { type: "string" },
  fleet: { type: "string" },
  token: { type: "string" },
  key: { type: "string" },
  jwks: { type: "string" },
  state: { type: "string" },
  dir: { type: "string" },
  once: { type: "boolean", default: false },
  interval: { type: "string", default: "60" },
  "trust-from-checkpoint": { type: "boolean", default: false },
  ...WITNESS_OPTIONS,
  help: { type: "boolean", short: "h", default: false },
};

const PROJECT_ID = /^proj_[0-9a-f]{24}$/;

/** The audit public keys the checkpoints must be signed by, as the person gives them. */
async function auditKeys(kit, values, fleetHost, projectId) {
  if (values.key && values.jwks) throw new UsageError("give --key or --jwks, not both");
  if (values.key) {
    const key = kit.parseVerifierKey(values.key);
    if (!key) throw new UsageError("--key is not a verifier key <name>+<hex8>+<base64> (GET <fleet>/api/log/key)");
    // The log's own name, or the fleet's host (the key's name before issue 48): the same audit key either way.
    if (key.name !== kit.logOrigin(fleetHost, projectId) && key.name !== fleetHost) {
      throw new UsageError(`--key is named ${key.name}, not the log ${kit.logOrigin(fleetHost, projectId)}`);
    }
    return [key.publicKey];
  }
  if (!values.jwks) {
    throw new UsageError("--key <verifier key> (GET <fleet>/api/log/key) or --jwks <url or file> is required");
  }
  if (!/^https?:\/\//.test(values.jwks) && !existsSync(values.jwks)) {
    throw new UsageError(`--jwks ${values.jwks}: no such file`);
  }
  const keys = kit.auditKeys(await readJwks(values.jwks));
  if (keys.length === 0) throw new UsageError(`--jwks ${values.jwks} holds no Ed25519 key marked oc_use "audit"`);
  return keys;
}

/**
 * The state the last run saved, if any: it must be a monitor's, of this very log. A state saved under the log's name
 * before issue 48 is read as it is; the next successful check saves it under the new name.
 */
function savedState(kit, file, fleetHost, projectId) {
  if (!existsSync(file)) return undefined;
  const read = kit.parseMonitorState(readFileSync(file, "utf8"));
  if (!read.ok) throw new UsageError(`--state ${file} is not a monitor's state: ${read.detail}`);
  if (!kit.logKeyName(read.state.origin, fleetHost, projectId)) {
    throw new UsageError(`--state ${file} is of the log ${read.state.origin}`);
  }
  return read.state;
}

/** Written whole or not at all: a crash mid-write must not leave a state that forks from the log. */
function writeAtomically(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

/** Pieces of the log from a directory laid out as the URL paths under the prefix. */
function dirReader(dir) {
  return {
    async read(piece) {
      try {
        return new Uint8Array(readFileSync(path.join(dir, piece)));
      } catch (err) {
        if (err.code === "ENOENT" || err.code === "ENOTDIR") return undefined;
        throw err;
      }
    },
  };
}

async function settings(kit, values) {
  const projectId = values.project ?? process.env.OC_PROJECT;
  if (!projectId) throw new UsageError("--project <proj_…> is required (or $OC_PROJECT)");
  if (!PROJECT_ID.test(projectId)) throw new UsageError(`--project ${projectId} is not proj_ and 24 hex digits`);
  const fleetHost = trustedFleetHost(values, "open-oc log monitor");
  const interval = Number(values.interval);
  if (!(interval > 0)) throw new UsageError("--interval is a number of seconds above 0");
  const token = values.token ?? process.env.OC_TOKEN;
  if (values.dir && !statSync(values.dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`--dir ${values.dir} is not a directory`);
  }
  const stateFile = values.state ?? path.join(".oc", `monitor-${projectId}.json`);
  const fleet = values.fleet ?? process.env.OC_FLEET;
  return {
    projectId,
    fleetHost,
    interval,
    stateFile,
    state: savedState(kit, stateFile, fleetHost, projectId),
    keys: await auditKeys(kit, values, fleetHost, projectId),
    witnesses: witnessPolicyOf(kit, values),
    reader: values.dir ? dirReader(values.dir) : kit.httpLogReader({ fleet, projectId, token }),
  };
}

/** A signed checkpoint that contradicts the saved one is evidence: kept beside the state. */
function keepEvidence(s, result) {
  const file = path.join(path.dirname(s.stateFile), `${path.basename(s.stateFile, ".json")}.${result.reason}.txt`);
  writeFileSync(file, result.note);
  return file;
}

/** One check; on success the state is saved and the result returned. */
async function check(kit, s, trustFromCheckpoint) {
  const result = await kit.monitorStep({
    state: s.state,
    reader: s.reader,
    fleetHost: s.fleetHost,
    projectId: s.projectId,
    auditKeys: s.keys,
    trustFromCheckpoint,
    ...s.witnesses,
  });
  if (!result.ok) return result;
  writeAtomically(s.stateFile, kit.stateJson(result.state));
  s.state = result.state;
  return result;
}

function okLine(s, result, trusted) {
  const started = trusted && result.previousSize === 0 && result.verified === 0 && result.checkpoint.size > 0;
  const from = started ? "; started from this checkpoint, the entries before it not checked" : "";
  const witnesses = s.witnesses.witnesses;
  const cosigned = result.cosigned
    ? `; cosigned by ${result.cosigned.length} of ${witnesses.length} witnesses (${result.cosigned.map((c) => c.name).join(", ")})`
    : "";
  const tail = from + cosigned;
  return `OK: ${s.projectId} at size ${result.checkpoint.size} (${result.verified} new entries verified${tail})`;
}

function failLine(s, result) {
  const evidence = result.note && (result.reason === "fork" || result.reason === "rollback");
  const kept = evidence ? `; the checkpoint is kept in ${keepEvidence(s, result)}` : "";
  return `FAILED (${result.reason}): ${result.detail}${kept}`;
}

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** `open-oc log …`; returns the exit code. */
export async function logMain(argv, { loadKit, io }) {
  const mistake = usageMistake("open-oc log", io);
  const parsed = parseCommand(argv, OPTIONS, "open-oc log", io);
  if ("code" in parsed) return parsed.code;
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(LOG_USAGE);
    return 0;
  }
  if (positionals[0] !== "monitor" || positionals.length > 1) return mistake("the command is open-oc log monitor");
  try {
    const kit = await loadKit();
    const s = await settings(kit, values);
    const trusted = values["trust-from-checkpoint"];
    const first = await check(kit, s, trusted);
    if (!first.ok) {
      io.err(failLine(s, first));
      return 1;
    }
    io.out(okLine(s, first, trusted));
    if (values.once) return 0;
    for (let size = first.checkpoint.size; ; ) {
      await sleep(s.interval);
      const next = await check(kit, s, false);
      if (!next.ok) {
        io.err(failLine(s, next));
        if (next.reason !== "unreachable") return 1;
      } else if (next.checkpoint.size !== size) {
        size = next.checkpoint.size;
        io.out(okLine(s, next, false));
      }
    }
  } catch (err) {
    if (err instanceof UsageError) return mistake(err.message);
    // The one host reached outside the monitor's reader is the JWKS's.
    if (err?.message === "fetch failed") {
      io.err(
        `FAILED (unreachable): could not reach ${values.jwks} (${err.cause?.code ?? err.cause?.message ?? "no answer"})`,
      );
    } else {
      io.err(`open-oc log monitor: ${err.message}`);
    }
    return 1;
  }
}
