// What `open-oc bundle verify`, `open-oc restore` and `open-oc log monitor` are told rather than read: the JWKS that vouches for a
// bundle or a checkpoint and the fleet whose log a checkpoint must be. Shared by the commands, with the usage error
// they raise.
import { readFileSync } from "node:fs";

/** A mistake in the command line: answered with one line and exit 2. */
export class UsageError extends Error {}

/** The auth host's JWKS, from its URL or a file. */
export async function readJwks(source) {
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source);
    if (!res.ok) throw new UsageError(`GET ${source} → ${res.status}`);
    return res.json();
  }
  return JSON.parse(readFileSync(source, "utf8"));
}

/**
 * The fleet whose log the checkpoints must be, as the person names it: never a default and never read from the
 * checkpoint itself, or any log signed by the audit key could stand in for this project's (issue 26).
 */
export function trustedFleetHost(values, needer = "--checkpoint") {
  const fleet = values.fleet ?? process.env.OC_FLEET;
  if (!fleet) throw new UsageError(`${needer} needs --fleet <origin> (or $OC_FLEET): the fleet whose log it is`);
  let url;
  try {
    url = new URL(fleet);
  } catch {
    throw new UsageError(`--fleet ${fleet} is not an origin such as https://fleet.example.com`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UsageError(`--fleet ${fleet} is not an http(s) origin`);
  }
  return url.host;
}

/** The witness flags every command that checks a checkpoint takes: `--witness <vkey>` (repeatable), `--witness-file`, `--witness-threshold`. */
export const WITNESS_OPTIONS = {
  witness: { type: "string", multiple: true },
  "witness-file": { type: "string" },
  "witness-threshold": { type: "string" },
};

/** One vkey a line; blank lines and `#` comments are skipped. */
function witnessFile(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`--witness-file ${file}: no such file`);
  }
  return text
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter(Boolean);
}

/**
 * The witness policy the person gives (issue 48): `{ witnesses, threshold }` for the kit, `{}` with no witness, or a
 * usage error naming what is wrong (a vkey that is no witness's, a threshold above the witnesses listed).
 */
export function witnessPolicyOf(kit, values) {
  const witnesses = [...(values.witness ?? []), ...(values["witness-file"] ? witnessFile(values["witness-file"]) : [])];
  const given = values["witness-threshold"];
  if (witnesses.length === 0) {
    if (given !== undefined) throw new UsageError("--witness-threshold needs --witness <vkey> or --witness-file");
    return {};
  }
  const threshold = given === undefined ? undefined : Number(given);
  const read = kit.readWitnessPolicy({ witnesses, threshold });
  if (!read.ok) throw new UsageError(`--witness: ${read.detail}`);
  return { witnesses, threshold: read.threshold };
}
