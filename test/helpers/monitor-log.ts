// A project's log as a fleet serves it, built in memory for monitor tests: the checkpoint signed by an audit key as
// the fleet's host, every hash tile and entry bundle at the log's size by its path under the prefix (full tiles at
// `tile/<L>/<N>`, the edge at `.p/<W>`), from real signed envelopes. Written to a directory (the CLI test does), it
// is a `--dir` mirror.
import { ed25519 } from "@noble/curves/ed25519.js";
import { base64urlnopad } from "@scure/base";
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

const utf8 = new TextEncoder();

export interface AuditKey {
  secret: Uint8Array;
  publicKey: Uint8Array;
  /** The C2SP verifier key string, named for FLEET_HOST (what GET /api/log/key answers). */
  verifier: string;
}

export function auditKey(name = FLEET_HOST): AuditKey {
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
  /** Signed as (default FLEET_HOST), and the origin's log (default `${FLEET_HOST}/log/${PROJECT}`). */
  name?: string;
  origin?: string;
}

/** The signed checkpoint of `entries`' tree. */
export function signedCheckpoint(entries: readonly Uint8Array[], options: LogOptions): string {
  const { root, size } = integrate(0, new Map(), entries.map(leafHash));
  const origin = options.origin ?? `${FLEET_HOST}/log/${PROJECT}`;
  return signNote(
    checkpointText({ origin, size, root, extensions: [] }),
    options.name ?? FLEET_HOST,
    options.key.secret,
  );
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
