// `open-oc restore` (issue 28; docs/recovery.md): a project's registry rebuilt in an empty database from its signed audit
// bundle and its log's leaf order, every check offline first (shared/audit/restore/plan.ts), then written as an SQL
// file for `wrangler d1 execute`, and run there with --apply. It prints the proof it can give before writing a row:
// the rebuilt log's root at the checkpoint's size is the checkpoint's.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs, promisify } from "node:util";
import { loadRestore } from "./load.mjs";
import { readJwks, trustedFleetHost, UsageError } from "./trust.mjs";

/** What `open-oc --help` says of restore (its own --help says the rest). */
export const RESTORE_SUMMARY = `  open-oc restore <bundle.csv> --leaves <file> --checkpoint <note file> --fleet <origin> --name <name> --owner <address>
                   [--jwks …] [--out <file.sql>] [--apply (--local | --remote) [--db oc-db] …]
                   (rebuilds a project's registry in an empty database: see open-oc restore --help, docs/recovery.md)`;

export const RESTORE_USAGE = `open-oc restore — rebuild a project's registry from its audit bundle (docs/recovery.md)

  open-oc restore <bundle.csv | bundle.json> --leaves <leaves.json> --checkpoint <checkpoint.txt> [--checkpoint …]
                  --fleet <origin> --name <project name> --owner <owner address>
                  [--jwks <url or file>] [--out <file.sql>] [--apply (--local | --remote) [--db oc-db]
                  [--persist-to <dir>] [--config <wrangler.toml>]]

  The bundle (GET /api/audit/export?format=csv|json), the leaves (GET /api/log/leaves) and the checkpoint
  (GET /api/log/checkpoint) of one project, fetched together. Checked offline: the manifest's signature by an
  audit key of the JWKS (default http://localhost:8787/.well-known/jwks.json), the bundle's sha256, every
  envelope's id and signature, the checkpoint as this project's log on the fleet --fleet names ($OC_FLEET), and
  the bundle's envelopes in the leaf order giving its root. Then it writes the SQL (default <project>.restore.sql):
  the project (--name, --owner, who is also its one member, an owner), every envelope's row with the status its
  registrations gave it, the log's leaves with their hashes. No webhook event is queued and none is delivered.
  --apply runs the file with npx wrangler d1 execute <db> --file … (--local or --remote, named: no default).
  Members, roles, API tokens, webhook endpoints and billing are not in a bundle: see docs/recovery.md.`;

const OPTIONS = {
  jwks: { type: "string", default: "http://localhost:8787/.well-known/jwks.json" },
  leaves: { type: "string" },
  checkpoint: { type: "string", multiple: true },
  fleet: { type: "string" },
  name: { type: "string" },
  owner: { type: "string" },
  out: { type: "string" },
  apply: { type: "boolean", default: false },
  local: { type: "boolean", default: false },
  remote: { type: "boolean", default: false },
  db: { type: "string", default: "oc-db" },
  "persist-to": { type: "string" },
  config: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
};

const need = (values, name, what) => {
  if (!values[name]) throw new UsageError(`--${name} is required (${what})`);
  return values[name];
};

/** Reads a file the command was given, or says which one could not be read. */
function read(file, flag) {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`${flag} ${file}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
  }
}

function leafIds(file) {
  let ids;
  try {
    ids = JSON.parse(read(file, "--leaves")).ids;
  } catch (err) {
    if (err instanceof UsageError) throw err;
  }
  if (!Array.isArray(ids)) throw new UsageError(`--leaves ${file} is not GET /api/log/leaves's {size, ids}`);
  return ids;
}

/** The wrangler command --apply runs, as an argument list for npx. */
function wranglerArgs(values, file) {
  return [
    ...["wrangler", "d1", "execute", values.db, "--file", file, values.local ? "--local" : "--remote"],
    ...(values["persist-to"] ? ["--persist-to", values["persist-to"]] : []),
    ...(values.config ? ["--config", values.config] : []),
    "--yes",
  ];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a terminal colour is the point.
const COLOUR = /\u001b\[[0-9;]*m/g;

/** Wrangler's own error ("✘ [ERROR] …", uncoloured), else its last line: one line for the operator. */
function wranglerError(err) {
  const text = `${err.stderr ?? ""}\n${err.stdout ?? ""}`.replace(COLOUR, "");
  const lines = text.split("\n").map((line) => line.trim());
  const error = lines.find((line) => line.includes("[ERROR]"));
  return error?.replace(/^.*\[ERROR\]\s*/, "") ?? lines.filter(Boolean).at(-1) ?? err.message;
}

/** `open-oc restore …`; returns the exit code. Failures are one line on stderr: 2 for the command line, 1 for the rest. */
export async function restoreMain(argv, io) {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true }));
  } catch (err) {
    io.err(`open-oc restore: ${err.message} (open-oc restore --help)`);
    return 2;
  }
  if (values.help) {
    io.out(RESTORE_USAGE);
    return 0;
  }
  try {
    const bundleFile = positionals[0];
    if (!bundleFile) throw new UsageError("name the bundle file (GET /api/audit/export?format=csv)");
    const leavesFile = need(values, "leaves", "GET /api/log/leaves, saved with the bundle");
    if (!values.checkpoint?.length) throw new UsageError("--checkpoint is required (GET /api/log/checkpoint)");
    const fleetHost = trustedFleetHost(values);
    const name = need(values, "name", "the restored project's name");
    const owner = need(values, "owner", "the owner's Bitcoin address");
    // Remote is production: the operator names it, as wrangler itself asks.
    if (values.apply && values.local === values.remote) {
      throw new UsageError("--apply needs --local or --remote (exactly one)");
    }
    const input = {
      bundle: read(bundleFile, "bundle"),
      leaves: leafIds(leavesFile),
      checkpoints: values.checkpoint.map((file) => read(file, "--checkpoint")),
      jwks: await readJwks(values.jwks),
      fleetHost,
      name,
      owner,
    };
    const kit = await loadRestore();
    const problem = kit.projectProblem(name, owner);
    if (problem) throw new UsageError(problem);
    const plan = await kit.planRestore(input);
    if (!plan.ok) {
      io.err(`open-oc restore: FAILED (${plan.reason}): ${plan.detail}`);
      return 1;
    }
    const { manifest: m, proof } = plan;
    const b64 = (bytes) => Buffer.from(bytes).toString("base64");
    io.out(
      `OK: bundle ${m.bundle_id} of ${m.project_id} — signature by ${m.kid}, sha256 matches, ${m.total} envelopes re-verified (id and signature)`,
    );
    io.out(
      `OK: the rebuilt log's first ${proof.checkpoint.size} leaves give ${b64(proof.checkpoint.root)}, the root of the checkpoint of ${proof.checkpoint.origin}`,
    );
    if (proof.size > proof.checkpoint.size) {
      io.out(
        `   the last ${proof.size - proof.checkpoint.size} envelopes are vouched for by the bundle's signature alone`,
      );
    }
    if (proof.dropped > 0) io.out(`   ${proof.dropped} leaves registered after the export are not in the bundle`);
    const out = values.out ?? `${m.project_id}.restore.sql`;
    const header = [
      `open-oc restore of ${m.project_id} from bundle ${m.bundle_id} (${m.generated_at}), ${proof.size} envelopes`,
      `log root at ${proof.size} leaves: ${b64(proof.root)}`,
      `run: npx wrangler d1 execute ${values.db} --file ${out} --remote   (or --local)`,
    ];
    writeFileSync(out, kit.sqlFile(header, plan.statements));
    io.out(
      `wrote ${out}: project ${m.project_id} (owner ${owner}), ${proof.size} envelopes and log leaves, no events; log root ${b64(proof.root)}`,
    );
    if (!values.apply) {
      io.out(`next: npx wrangler d1 execute ${values.db} --file ${out} --remote (or --local), then check the fleet`);
      return 0;
    }
    const args = wranglerArgs(values, out);
    try {
      await promisify(execFile)("npx", args, { maxBuffer: 64 * 1024 * 1024 });
    } catch (err) {
      io.err(`open-oc restore: FAILED (apply): npx ${args.slice(0, 4).join(" ")}: ${wranglerError(err)}`);
      return 1;
    }
    io.out(
      `applied ${out} to ${values.db} (${values.local ? "local" : "remote"}); GET /api/log/checkpoint?project_id=${m.project_id} should now show size ${proof.size}`,
    );
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`open-oc restore: ${err.message} (open-oc restore --help)`);
      return 2;
    }
    // "fetch failed" says nothing: the one host this command reaches is the JWKS's.
    const code = err?.cause?.code ?? err?.cause?.message ?? "unreachable";
    const why =
      err?.message === "fetch failed"
        ? `could not reach ${values.jwks} (${code}): pass --jwks <saved file>`
        : err.message;
    io.err(`open-oc restore: ${why}`);
    return 1;
  }
}
