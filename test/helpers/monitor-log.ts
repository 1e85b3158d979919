// A project's log as a fleet serves it, built in memory for monitor tests: the checkpoint signed by an audit key as
// the log's origin `<fleet host>/api/log/<project>` (or, `legacy`, the form before issue 48: origin
// `<fleet host>/log/<project>` signed as the host), optionally cosigned by witnesses, every hash tile and entry bundle at the log's size by its path under the prefix (full tiles at
// `tile/<L>/<N>`, the edge at `.p/<W>`), from real signed envelopes. Written to a directory (the CLI test does), it
// is a `--dir` mirror.
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, base64urlnopad, hex } from "@scure/base";
import { type MonitorInput, monitorStep } from "../../shared/kit/log";
import type { MonitorState } from "../../shared/kit/log/state";
import { checkpointText } from "../../shared/tlog/checkpoint";
import { leafHash } from "../../shared/tlog/merkle";
import { signNote, verifierKey } from "../../shared/tlog/note";
import { integrate } from "../../shared/tlog/tile-proofs";
import { encodeEntryBundle, entriesPath, HASH_SIZE, TILE_WIDTH, tilePath } from "../../shared/tlog/tiles";
import { action, delegation, keptOutcome, pledge, revocation } from "./envelopes";
import { newWallet } from "./wallet";

export const FLEET_HOST = "fleet.example.test";
export const FLEET = `https://${FLEET_HOST}`;
export const PROJECT = "proj_0123456789abcdef01234567";
export const LOG_ORIGIN = `${FLEET_HOST}/api/log/${PROJECT}`;
export const LEGACY_ORIGIN = `${FLEET_HOST}/log/${PROJECT}`;

const utf8 = new TextEncoder();

export interface AuditKey {
  secret: Uint8Array;
  publicKey: Uint8Array;
  /** The C2SP verifier key string, named for the log's origin (what GET /api/log/key?project_id= answers). */
  verifier: string;
}

export function auditKey(name = LOG_ORIGIN): AuditKey {
  const secret = ed25519.utils.randomSecretKey();
  const publicKey = ed25519.getPublicKey(secret);
  return { secret, publicKey, verifier: verifierKey({ name, publicKey }) };
}

/** The key as the auth host's JWKS publishes it, marked for audit. */
export const auditJwks = (key: AuditKey, oc_use = "audit") => ({
  keys: [{ kty: "OKP", crv: "Ed25519", kid: "audit-1", x: base64urlnopad.encode(key.publicKey), oc_use }],
});

/** `count` envelopes' stored bytes, each kind among them: a delegation, its actions, a revocation, a pledge, its outcome. */
export async function envelopeEntries(count: number): Promise<Uint8Array[]> {
  const [principal, agent, counterparty] = [newWallet(), newWallet("p2tr"), newWallet()];
  const grant = await delegation(principal, agent);
  const sworn = await pledge(principal, counterparty);
  const built: { envelope: object }[] = [
    grant,
    await revocation(grant.id, principal),
    sworn,
    await keptOutcome(sworn.id, counterparty),
  ];
  while (built.length < count) built.push(await action(grant.id, agent));
  return built.slice(0, count).map((b) => utf8.encode(JSON.stringify(b.envelope)));
}

/** An action whose signature is another's: it parses and hashes to its id, but its signature fails. */
export async function badlySignedEntry(): Promise<Uint8Array> {
  const [principal, agent] = [newWallet(), newWallet()];
  const grant = await delegation(principal, agent);
  const [one, two] = [await action(grant.id, agent), await action(grant.id, agent)];
  return utf8.encode(JSON.stringify({ ...one.envelope, sig: two.envelope.sig }));
}

export interface LogOptions {
  key: AuditKey;
  /** The origin's log (default LOG_ORIGIN, or LEGACY_ORIGIN when `legacy`), signed as (default: the origin, or the host). */
  origin?: string;
  name?: string;
  legacy?: boolean;
  /** Witnesses that cosign the checkpoint (their lines after the log's signature, in this order). */
  cosigners?: readonly Cosigner[];
}

export interface Cosigner {
  name: string;
  secret: Uint8Array;
  /** The witness's vkey, `<name>+<hex8>+<base64(0x04 ‖ key)>`, made here from the tlog-cosignature text. */
  vkey: string;
}

/** The key ID tlog-cosignature gives a witness: SHA-256(name ‖ "\n" ‖ 0x04 ‖ key)[:4], computed here. */
const cosignerId = (name: string, publicKey: Uint8Array) =>
  sha256(new Uint8Array([...utf8.encode(name), 0x0a, 0x04, ...publicKey])).slice(0, 4);

export function cosigner(name: string): Cosigner {
  const secret = ed25519.utils.randomSecretKey();
  const publicKey = ed25519.getPublicKey(secret);
  const material = base64.encode(new Uint8Array([0x04, ...publicKey]));
  return { name, secret, vkey: `${name}+${hex.encode(cosignerId(name, publicKey))}+${material}` };
}

/** A witness's cosignature line on a checkpoint's text (cosignature/v1, written from the spec here). */
export function cosignatureOf(witness: Cosigner, text: string, time = 1_800_000_000): string {
  const stamp = new Uint8Array(8);
  new DataView(stamp.buffer).setBigUint64(0, BigInt(time));
  const signature = ed25519.sign(utf8.encode(`cosignature/v1\ntime ${time}\n${text}`), witness.secret);
  const id = cosignerId(witness.name, ed25519.getPublicKey(witness.secret));
  return `— ${witness.name} ${base64.encode(new Uint8Array([...id, ...stamp, ...signature]))}\n`;
}

/** The signed checkpoint of `entries`' tree. */
export function signedCheckpoint(entries: readonly Uint8Array[], options: LogOptions): string {
  const { root, size } = integrate(0, new Map(), entries.map(leafHash));
  const origin = options.origin ?? (options.legacy ? LEGACY_ORIGIN : LOG_ORIGIN);
  const text = checkpointText({ origin, size, root, extensions: [] });
  const note = signNote(text, options.name ?? (options.legacy ? FLEET_HOST : origin), options.key.secret);
  return note + (options.cosigners ?? []).map((w) => cosignatureOf(w, text)).join("");
}

/** Every piece a tile client may read of the log of `entries`, by path under the prefix. */
export function logPieces(entries: readonly Uint8Array[], options: LogOptions): Map<string, Uint8Array> {
  const pieces = new Map<string, Uint8Array>();
  for (const t of integrate(0, new Map(), entries.map(leafHash)).tiles) {
    pieces.set(tilePath({ level: t.level, index: t.index, width: t.hashes.length / HASH_SIZE }), t.hashes);
  }
  for (let index = 0; index * TILE_WIDTH < entries.length; index++) {
    const bundle = entries.slice(index * TILE_WIDTH, (index + 1) * TILE_WIDTH);
    pieces.set(entriesPath(index, bundle.length), encodeEntryBundle(bundle));
  }
  pieces.set("checkpoint", utf8.encode(signedCheckpoint(entries, options)));
  return pieces;
}

/** A reader over pieces that records every path it is asked for. */
export function piecesReader(pieces: ReadonlyMap<string, Uint8Array>) {
  const asked: string[] = [];
  return {
    asked,
    read: async (piece: string) => {
      asked.push(piece);
      return pieces.get(piece);
    },
  };
}

/**
 * One step of the kit's monitor over `pieces` (this log's fleet and project, `key` its audit key), with the paths it
 * read.
 */
export async function stepOver(
  key: AuditKey,
  pieces: ReadonlyMap<string, Uint8Array>,
  state?: MonitorState,
  more: Partial<MonitorInput> = {},
) {
  const reader = piecesReader(pieces);
  const result = await monitorStep({
    state,
    reader,
    fleetHost: FLEET_HOST,
    projectId: PROJECT,
    auditKeys: [key.publicKey],
    ...more,
  });
  return { ...result, asked: reader.asked };
}
