// The `oc` command line (issue 8, part 2) over the kit (shared/kit): keys, every OC Agent / OC Pledge envelope
// built and signed from WIF keys and printed as JSON (stdout), optionally registered with a fleet, offline
// audit-bundle verification, and a monitor of a project's log (`open-oc log monitor`). Every envelope field has a flag so
// a run can be reproduced exactly.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseCommand, usageMistake } from "./args.mjs";
import { logMain } from "./log-monitor.mjs";
import { readJwks, trustedFleetHost, UsageError, WITNESS_OPTIONS, witnessPolicyOf } from "./trust.mjs";

const BASE_USAGE = `open-oc — OrangeCheck-compatible envelope kit

  open-oc key new [--type p2wpkh|p2tr|p2pkh] [--network mainnet|testnet] [--out .oc/agent.json]
  open-oc key show --wif <WIF> [--type …]
  open-oc delegate    --wif <principal WIF> (--agent <address> | --agent-wif <WIF>) --scope <scope> [--scope …]
                      [--hours 24 | --expires-at <ISO>] [--issued-at <ISO>] [--nonce <hex>]
                      [--bond-sats <n> --bond-attestation <id>] [--holders principal,agent]
  open-oc subdelegate --wif <parent's agent WIF> --parent <delegation id> --agent <address> --scope <scope> […as delegate]
  open-oc act         --wif <agent WIF> --delegation <id> --scope <scope exercised>
                      (--content <text> | --content-file <path> | --content-hash sha256:<hex> --content-length <n>)
                      [--mime text/plain] [--content-ref <uri>] [--signed-at <ISO>]
  open-oc revoke      --wif <holder WIF> --delegation <id> [--reason <text>] [--signed-at <ISO>]
  open-oc pledge      --wif <swearer WIF> --proposition <text> --mechanism <m> --query <q>
                      (--resolves-at <ISO> | --resolves-block <height>) (--expires-at <ISO> | --hours <n>)
                      --bond-attestation <id> --bond-sats <n> --bond-days <n> [--counterparty <address>]
                      [--dispute-mechanism <m> --dispute-params <p>] [--remediation breach_recorded] [--sworn-at <ISO>]
                      [--nonce <hex>] [--swearer <address> --via-delegation <id>   (signed by the agent's --wif)]
  open-oc outcome     --wif <resolver WIF> --pledge <id> --outcome kept|broken|disputed --mechanism <m>
                      --result <r> --witness <w> [--resolved-at <ISO>] [--dispute-window-ends-at <ISO>]
  open-oc abandon     --wif <swearer WIF> --pledge <id> [--reason <text>] [--abandoned-at <ISO>]
  open-oc register <envelope.json | ->
  open-oc bundle verify <bundle file> [--jwks <url or file>] [--format ndjson|json|csv]
                        [--checkpoint <note file> ... --leaves <file> --fleet <origin>]
                        [--witness <vkey> ... | --witness-file <file>] [--witness-threshold <n>]
                        (a CSV or JSON bundle against the project's log on that fleet; --fleet defaults to $OC_FLEET;
                        with witnesses, each checkpoint must carry valid cosignatures by the threshold of them,
                        default all: witness_policy_unmet otherwise)
  open-oc log monitor --project <proj_…> --fleet <origin> (--key <verifier key> | --jwks <url or file>) [--token <ock_…>]
                      [--state <file>] [--dir <directory of tiles>] [--once] [--interval <seconds>] [--trust-from-checkpoint]
                      (follows the project's transparency log from a saved state: see open-oc log monitor --help)

Envelope commands print the envelope JSON on stdout. Add --register (or use open-oc register) to post it:
  --fleet <url> (default $OC_FLEET or http://localhost:8788) --token <ock_…> ($OC_TOKEN) --project <proj_…> ($OC_PROJECT)
--type picks the address type of every --wif (default p2wpkh).`;

const OPTIONS = {
  wif: { type: "string" },
  type: { type: "string", default: "p2wpkh" },
  network: { type: "string", default: "mainnet" },
  agent: { type: "string" },
  "agent-wif": { type: "string" },
  scope: { type: "string", multiple: true },
  hours: { type: "string" },
  "expires-at": { type: "string" },
  "issued-at": { type: "string" },
  nonce: { type: "string" },
  "bond-sats": { type: "string" },
  "bond-attestation": { type: "string" },
  "bond-days": { type: "string" },
  holders: { type: "string" },
  parent: { type: "string" },
  delegation: { type: "string" },
  content: { type: "string" },
  "content-file": { type: "string" },
  "content-hash": { type: "string" },
  "content-length": { type: "string" },
  "content-ref": { type: "string" },
  mime: { type: "string" },
  "signed-at": { type: "string" },
  reason: { type: "string" },
  proposition: { type: "string" },
  mechanism: { type: "string" },
  query: { type: "string" },
  "resolves-at": { type: "string" },
  "resolves-block": { type: "string" },
  counterparty: { type: "string" },
  "dispute-mechanism": { type: "string" },
  "dispute-params": { type: "string" },
  remediation: { type: "string" },
  "sworn-at": { type: "string" },
  swearer: { type: "string" },
  "via-delegation": { type: "string" },
  pledge: { type: "string" },
  outcome: { type: "string" },
  result: { type: "string" },
  "resolved-at": { type: "string" },
  "dispute-window-ends-at": { type: "string" },
  "abandoned-at": { type: "string" },
  register: { type: "boolean", default: false },
  fleet: { type: "string" },
  token: { type: "string" },
  project: { type: "string" },
  jwks: { type: "string", default: "http://localhost:8787/.well-known/jwks.json" },
  format: { type: "string" },
  checkpoint: { type: "string", multiple: true },
  leaves: { type: "string" },
  // --witness: a witness vkey for `bundle verify` (repeatable), the evidence's witness for `outcome` (once).
  ...WITNESS_OPTIONS,
  help: { type: "boolean", short: "h", default: false },
  out: { type: "string" },
};

const need = (values, name) => {
  const value = values[name];
  if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
  return value;
};
/** A flag that may be given several times for another command, given exactly once here. */
const one = (values, name) => {
  const given = need(values, name);
  if (given.length !== 1) throw new UsageError(`--${name} is given once here`);
  return given[0];
};
const int = (values, name) => {
  const n = Number(need(values, name));
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number`);
  return n;
};
const pick = (values, map) =>
  Object.fromEntries(
    Object.entries(map)
      .filter(([flag]) => values[flag] !== undefined)
      .map(([flag, field]) => [field, values[flag]]),
  );
const expiresAt = (values) =>
  values["expires-at"] ??
  (values.hours === undefined
    ? undefined
    : new Date(Math.floor((Date.now() + Number(values.hours) * 3_600_000) / 1000) * 1000)
        .toISOString()
        .replace(".000Z", "Z"));

async function build(kit, command, values) {
  const signer = () => kit.keyFromWif(need(values, "wif"), values.type);
  const grant = () => ({
    scopes: values.scope?.length
      ? values.scope
      : (() => {
          throw new UsageError("--scope is required");
        })(),
    ...pick(values, { "issued-at": "issued_at", nonce: "nonce" }),
    ...(expiresAt(values) && { expires_at: expiresAt(values) }),
    ...(values.holders && { holders: values.holders.split(",") }),
  });
  const agentAddress = () =>
    values.agent ??
    (values["agent-wif"] ? kit.keyFromWif(values["agent-wif"], values.type).address : need(values, "agent"));
  switch (command) {
    case "delegate":
      return kit.delegation(
        {
          agent: agentAddress(),
          ...grant(),
          ...(values["bond-sats"] !== undefined && {
            bond: { sats: int(values, "bond-sats"), attestation_id: need(values, "bond-attestation") },
          }),
        },
        signer(),
      );
    case "subdelegate":
      return kit.subdelegation({ parent_id: need(values, "parent"), agent: agentAddress(), ...grant() }, signer());
    case "act": {
      const content = values["content-file"] ? readFileSync(values["content-file"]) : values.content;
      return kit.action(
        {
          delegation_id: need(values, "delegation"),
          scope_exercised: values.scope?.[0] ?? need(values, "scope"),
          ...(content !== undefined
            ? { content: typeof content === "string" ? content : new Uint8Array(content) }
            : { content_hash: need(values, "content-hash"), content_length: int(values, "content-length") }),
          ...pick(values, { mime: "content_mime", "content-ref": "content_ref", "signed-at": "signed_at" }),
        },
        signer(),
      );
    }
    case "revoke":
      return kit.revocation(
        { delegation_id: need(values, "delegation"), ...pick(values, { reason: "reason", "signed-at": "signed_at" }) },
        signer(),
      );
    case "pledge": {
      const resolvesAt =
        values["resolves-block"] !== undefined
          ? { block: int(values, "resolves-block") }
          : { time: need(values, "resolves-at") };
      const expires = expiresAt(values);
      if (!expires) throw new UsageError("--expires-at or --hours is required");
      const fields = {
        proposition: need(values, "proposition"),
        resolution: { mechanism: need(values, "mechanism"), query: need(values, "query") },
        resolves_at: resolvesAt,
        expires_at: expires,
        bond: {
          attestation_id: need(values, "bond-attestation"),
          min_sats: int(values, "bond-sats"),
          min_days: int(values, "bond-days"),
        },
        ...pick(values, {
          counterparty: "counterparty",
          remediation: "remediation",
          "sworn-at": "sworn_at",
          nonce: "nonce",
          swearer: "swearer",
        }),
        ...(values["dispute-mechanism"] !== undefined && {
          dispute: { mechanism: values["dispute-mechanism"], params: values["dispute-params"] ?? null },
        }),
      };
      return kit.pledge(fields, signer(), { viaDelegation: values["via-delegation"] });
    }
    case "outcome":
      return kit.outcome(
        {
          pledge_id: need(values, "pledge"),
          outcome: need(values, "outcome"),
          evidence: {
            mechanism: need(values, "mechanism"),
            result: need(values, "result"),
            witness: one(values, "witness"),
          },
          ...pick(values, { "resolved-at": "resolved_at", "dispute-window-ends-at": "dispute_window_ends_at" }),
        },
        signer(),
      );
    case "abandon":
      return kit.abandonment(
        { pledge_id: need(values, "pledge"), ...pick(values, { reason: "reason", "abandoned-at": "abandoned_at" }) },
        signer(),
      );
    default:
      return undefined;
  }
}

async function register(kit, envelope, values, io) {
  const options = {
    fleet: values.fleet ?? process.env.OC_FLEET ?? "http://localhost:8788",
    token: values.token ?? process.env.OC_TOKEN ?? need(values, "token"),
    project: values.project ?? process.env.OC_PROJECT ?? need(values, "project"),
  };
  const { status, body } = await kit.registerEnvelope(envelope, options);
  if (status !== 201) {
    io.err(`registration refused: ${status} ${JSON.stringify(body)}`);
    return 1;
  }
  io.err(`registered ${envelope.kind} ${envelope.id} in ${options.project} (201)`);
  return 0;
}

/** "fetch failed" says nothing: name the host that could not be reached and what to do. */
function networkHint(err, command, values) {
  const code = err?.cause?.code;
  if (err?.message !== "fetch failed" || !code) return undefined;
  const host = command === "bundle" ? values.jwks : (values.fleet ?? process.env.OC_FLEET ?? "http://localhost:8788");
  return `could not reach ${host} (${code}); is the stack running (npm start)? or pass --fleet / --jwks`;
}

const STD_IO = { out: (s) => console.log(s), err: (s) => console.error(s) };

/**
 * Runs one command; returns the exit code. `loadKit` gives the kit (the package bundles it beside this file; a clone
 * compiles the sources: scripts/kit/load.mjs). `commands` adds commands with their own flags and help (the
 * repository's `open-oc restore`), each `{ run(argv, io), usage }`. `io` collects output (tests), default stdout/stderr.
 */
export async function main(argv, { loadKit, commands = {}, io = STD_IO }) {
  const usage = [BASE_USAGE, ...Object.values(commands).map((c) => c.usage)].join("\n\n");
  const extra = commands[argv[0]];
  if (extra) return extra.run(argv.slice(1), io);
  // `open-oc log` has flags of its own (scripts/kit/log-monitor.mjs), and is in the package's `open-oc` too.
  if (argv[0] === "log") return logMain(argv.slice(1), { loadKit, io });
  // A mistake is one line (STYLE: CLI commands fail in one human line); --help has the whole usage.
  const mistake = usageMistake("open-oc", io);
  const parsed = parseCommand(argv, OPTIONS, "open-oc", io);
  if ("code" in parsed) return parsed.code;
  const { values, positionals } = parsed;
  const [command, sub, ...rest] = positionals;
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (!command) return mistake("name a command");
  try {
    const kit = await loadKit();
    if (command === "key") {
      if (sub === "new") {
        const key = kit.newKey(values.type, values.network);
        const json = JSON.stringify(
          { wif: key.wif, address: key.address, type: key.type, network: key.network },
          null,
          2,
        );
        if (!values.out) {
          io.out(json);
          return 0;
        }
        // A key file is a secret: readable by its owner only, in a folder the repository ignores (.oc/).
        mkdirSync(path.dirname(values.out), { recursive: true });
        writeFileSync(values.out, `${json}\n`, { mode: 0o600 });
        chmodSync(values.out, 0o600);
        io.out(
          JSON.stringify({ address: key.address, type: key.type, network: key.network, file: values.out }, null, 2),
        );
        return 0;
      }
      if (sub === "show") {
        const key = kit.keyFromWif(need(values, "wif"), values.type);
        io.out(JSON.stringify({ address: key.address, type: key.type, network: key.network }, null, 2));
        return 0;
      }
      throw new UsageError("open-oc key new | open-oc key show --wif <WIF>");
    }
    if (command === "register") {
      const file = sub ?? "-";
      const envelope = JSON.parse(readFileSync(file === "-" ? 0 : file, "utf8"));
      return await register(kit, envelope, values, io);
    }
    if (command === "bundle") {
      if (sub !== "verify" || !rest[0]) throw new UsageError("open-oc bundle verify <file> [--jwks <url or file>]");
      const withLog = Boolean(values.checkpoint?.length);
      if (withLog && !values.leaves) throw new UsageError("--checkpoint needs --leaves <file> (GET /api/log/leaves)");
      const fleetHost = withLog ? trustedFleetHost(values) : undefined;
      const witnesses = witnessPolicyOf(kit, values);
      if (witnesses.witnesses && !withLog)
        throw new UsageError("--witness needs --checkpoint: witnesses cosign checkpoints");
      const text = readFileSync(rest[0], "utf8");
      const jwks = await readJwks(values.jwks);
      const format = values.format ?? kit.detectFormat(text);
      const result = await kit.verifyBundle(text, jwks, format);
      if (!result.ok) {
        io.err(`FAILED (${result.reason}): ${result.detail}`);
        return 1;
      }
      const m = result.manifest;
      io.out(
        `OK: bundle ${m.bundle_id} of ${m.project_id} — signature by ${m.kid}, sha256 matches, ${result.checked} envelopes re-verified (id and signature)`,
      );
      if (!withLog) return 0;
      const leaves = JSON.parse(readFileSync(values.leaves, "utf8")).ids;
      const checkpoints = values.checkpoint.map((file) => readFileSync(file, "utf8"));
      const projectId = m.project_id;
      const log = kit.checkBundleLog({
        bundle: text,
        format,
        leaves,
        checkpoints,
        jwks,
        projectId,
        fleetHost,
        ...witnesses,
      });
      if (!log.ok) {
        io.err(`FAILED (${log.reason}): ${log.detail}`);
        return 1;
      }
      const sizes = log.checkpoints.map((c) => c.size).join(", ");
      const policy = witnesses.witnesses
        ? `; each cosigned by at least ${witnesses.threshold} of the ${witnesses.witnesses.length} witnesses given`
        : "";
      io.out(
        `OK: the bundle matches ${log.checkpoints.length} signed checkpoint(s) of sizes ${sizes}; each smaller one is a prefix of the larger${policy}`,
      );
      return 0;
    }
    const built = await build(kit, command, values);
    if (!built) throw new UsageError(`unknown command ${command}`);
    io.out(JSON.stringify(built.envelope, null, 2));
    return values.register ? await register(kit, built.envelope, values, io) : 0;
  } catch (err) {
    if (err instanceof UsageError) return mistake(err.message);
    io.err(`open-oc ${command}: ${networkHint(err, command, values) ?? err.message}`);
    return 1;
  }
}
