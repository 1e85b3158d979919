// The independent tlog-tiles client (test/helpers/tile-client.ts) against logs this file writes naively from the C2SP
// specs and serves from memory: the RFC 6962 reference vectors, Go's sumdb/note vector, the tree shapes tlog-tiles
// names (sizes 1, 255, 256, 257 and its 70,000 example), and one test per fault the client must catch.
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, hex } from "@scure/base";
import { beforeAll, describe, expect, it } from "vitest";
import { RFC6962_CONSISTENCY, RFC6962_ENTRIES, RFC6962_INCLUSION, RFC6962_ROOTS } from "../helpers/rfc6962-vectors";
import {
  createTileClient,
  encodeTileIndex,
  TileClientError,
  type TileClientReason,
  tilePath,
  verifyConsistency,
  verifyInclusion,
} from "../helpers/tile-client";
import { openSignedNote, parseVerifierKey } from "../helpers/tile-client-note";

const utf8 = (text: string) => new TextEncoder().encode(text);
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};
const hexes = (hashes: Uint8Array[]) => hashes.map((h) => hex.encode(h));

/** A log kept as its entries, hashed naively by RFC 9162 §2.1 (MTH, PATH, PROOF) over the leaf hashes. */
class NaiveLog {
  readonly leaves: Uint8Array[];
  private readonly memo = new Map<string, Uint8Array>();
  constructor(readonly entries: Uint8Array[]) {
    this.leaves = entries.map((e) => sha256(cat(Uint8Array.of(0), e)));
  }
  mth(lo: number, hi: number): Uint8Array {
    const n = hi - lo;
    if (n === 0) return sha256(new Uint8Array(0));
    if (n === 1) return this.leaves[lo] as Uint8Array;
    const key = `${lo}:${hi}`;
    let hash = this.memo.get(key);
    if (!hash) {
      const k = split(n);
      hash = sha256(cat(Uint8Array.of(1), this.mth(lo, lo + k), this.mth(lo + k, hi)));
      this.memo.set(key, hash);
    }
    return hash;
  }
  path(m: number, lo: number, hi: number): Uint8Array[] {
    if (hi - lo === 1) return [];
    const k = split(hi - lo);
    return m < k
      ? [...this.path(m, lo, lo + k), this.mth(lo + k, hi)]
      : [...this.path(m - k, lo + k, hi), this.mth(lo, lo + k)];
  }
  proof(m: number, n: number): Uint8Array[] {
    const sub = (m: number, lo: number, hi: number, whole: boolean): Uint8Array[] => {
      if (m === hi - lo) return whole ? [] : [this.mth(lo, hi)];
      const k = split(hi - lo);
      return m <= k
        ? [...sub(m, lo, lo + k, whole), this.mth(lo + k, hi)]
        : [...sub(m - k, lo + k, hi, false), this.mth(lo, lo + k)];
    };
    return m === 0 || m === n ? [] : sub(m, 0, n, true);
  }
}
function split(n: number) {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** This file's own path writer: N zero-padded to whole groups of three digits, "x" before all but the last. */
function pathOf(level: number | "entries", n: number, width = 256) {
  const digits = String(n);
  const padded = digits.padStart(Math.ceil(digits.length / 3) * 3, "0");
  const groups = padded.match(/\d{3}/g) ?? [];
  const index = groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
  return `tile/${level}/${index}${width === 256 ? "" : `.p/${width}`}`;
}

type Files = Map<string, Uint8Array>;

/** tlog-tiles for `size` leaves: tile n of level l is MTH(D[(256n + i)·256^l : (256n + i + 1)·256^l]) for each i. */
function writeTiles(log: NaiveLog, size: number, files: Files) {
  for (let level = 0; Math.floor(size / 256 ** level) > 0; level++) {
    const span = 256 ** level;
    const count = Math.floor(size / span);
    for (let n = 0; n * 256 < count; n++) {
      const width = Math.min(256, count - n * 256);
      const items = Array.from({ length: width }, (_, i) => n * 256 + i);
      files.set(pathOf(level, n, width), cat(...items.map((i) => log.mth(i * span, (i + 1) * span))));
      if (level > 0) continue;
      const entries = items.map((i) => log.entries[i] as Uint8Array);
      files.set(
        pathOf("entries", n, width),
        cat(...entries.map((e) => cat(Uint8Array.of(e.length >> 8, e.length), e))),
      );
    }
  }
}

interface LogKey {
  name: string;
  seed: Uint8Array;
  id: Uint8Array;
  vkey: string;
}
/** signed-note Ed25519: key ID = SHA-256(name || 0x0A || 0x01 || public key)[:4]. */
function logKey(name: string, seed: Uint8Array = ed25519.utils.randomSecretKey()): LogKey {
  const publicKey = ed25519.getPublicKey(seed);
  const id = sha256(cat(utf8(name), Uint8Array.of(0x0a, 0x01), publicKey)).slice(0, 4);
  return { name, seed, id, vkey: `${name}+${hex.encode(id)}+${base64.encode(cat(Uint8Array.of(0x01), publicKey))}` };
}
function signatureLine(text: string, key: LogKey, id = key.id) {
  return `\u2014 ${key.name} ${base64.encode(cat(id, ed25519.sign(utf8(text), key.seed)))}\n`;
}
const checkpointText = (origin: string, size: number, root: Uint8Array, ...ext: string[]) =>
  [origin, String(size), base64.encode(root), ...ext, ""].join("\n");

const ORIGIN = "log.example/tile-client-test";
const PREFIX = "https://fleet.example/api/log/p-test/";
const KEY = logKey(ORIGIN);

/** Publish `size` leaves: its tiles and bundles (earlier ones stay, as a log's would) and a signed checkpoint. */
function publish(log: NaiveLog, size: number, files: Files = new Map()): Files {
  writeTiles(log, size, files);
  const text = checkpointText(ORIGIN, size, log.mth(0, size));
  files.set("checkpoint", utf8(`${text}\n${signatureLine(text, KEY)}`));
  return files;
}

function serve(files: Files, status = 200) {
  return async (url: string) => {
    const body = url.startsWith(PREFIX) ? files.get(url.slice(PREFIX.length)) : undefined;
    if (status !== 200) return new Response("down", { status });
    return body ? new Response(body.slice()) : new Response("not found", { status: 404 });
  };
}
const clientOf = (files: Files, verifierKey = KEY.vkey, origin = ORIGIN) =>
  createTileClient({ prefix: PREFIX, fetch: serve(files), verifierKey, origin });

async function reasonOf(promise: Promise<unknown>): Promise<TileClientReason | "resolved"> {
  try {
    await promise;
    return "resolved";
  } catch (error) {
    if (error instanceof TileClientError) return error.reason;
    throw error;
  }
}
const reasonOfSync = (run: () => unknown) => reasonOf(Promise.resolve().then(run));

/** The partial tiles and bundles a checkpoint of `size` requires: width floor(size / 256^l) mod 256 at each level. */
function requiredPartials(size: number): Set<string> {
  const paths = new Set<string>();
  for (let level = 0; Math.floor(size / 256 ** level) > 0; level++) {
    const count = Math.floor(size / 256 ** level);
    if (count % 256 === 0) continue;
    paths.add(pathOf(level, Math.floor(count / 256), count % 256));
    if (level === 0) paths.add(pathOf("entries", Math.floor(count / 256), count % 256));
  }
  return paths;
}

/** Entries of every length class: empty, short, and longer than 255 bytes (the uint16 prefix's high byte). */
const entryOf = (i: number) =>
  i === 0 ? new Uint8Array(0) : i % 100 === 7 ? utf8(`long ${i} `.repeat(40)) : utf8(`entry ${i}`);

// ---------------------------------------------------------------------------------------------------------------

// RFC 6962's reference inputs and tree heads, as published with Certificate Transparency (and transparency-dev/merkle).
const CT_ENTRIES = RFC6962_ENTRIES.map((h) => hex.decode(h));
const CT_ROOTS = RFC6962_ROOTS;
const CT_INCLUSION = RFC6962_INCLUSION;
// The client proves consistency between two different sizes (a proof from a size to itself is empty by definition).
const CT_CONSISTENCY = RFC6962_CONSISTENCY.filter(([first, second]) => first < second);
const root = (size: number) => hex.decode(CT_ROOTS[size] as string);
const flipped = (hash: Uint8Array, bit = 3) => Uint8Array.from(hash, (b, i) => (i === 0 ? b ^ (1 << bit) : b));
const SOME_HASH = hex.decode("abacaba000000000000000000000000000000000000000000060061e00123456");

describe("RFC 6962 / 9162 reference vectors", () => {
  const ct = new NaiveLog(CT_ENTRIES);

  it("this file's naive tree and the client's tile reading both give the reference roots of sizes 0 to 8", async () => {
    const client = clientOf(publish(ct, 8));
    expect((await client.checkpoint()).size).toBe(8);
    for (let size = 0; size <= 8; size++) {
      expect(hex.encode(ct.mth(0, size)), `naive ${size}`).toBe(CT_ROOTS[size]);
      expect(hex.encode(await client.root(size)), `client ${size}`).toBe(CT_ROOTS[size]);
    }
  });

  it("the client computes the reference inclusion and consistency proofs, smaller sizes from size 8's tiles", async () => {
    const client = clientOf(publish(ct, 8));
    await client.checkpoint();
    for (const [index, size, proof] of CT_INCLUSION) {
      expect(hexes(await client.inclusionProof(index, size))).toEqual(proof);
    }
    for (const [first, second, proof] of CT_CONSISTENCY) {
      expect(hexes(await client.consistencyProof(first, second))).toEqual(proof);
    }
    expect(client.tilesFetched).toEqual(["tile/0/000.p/8"]);
  });

  it("verifyInclusion accepts each reference proof and refuses every corruption of it", () => {
    for (const [index, size, hexProof] of CT_INCLUSION) {
      const proof = hexProof.map((h) => hex.decode(h));
      const leaf = ct.leaves[index] as Uint8Array;
      expect(verifyInclusion(index, size, leaf, proof, root(size))).toBe(true);
      const corrupt: [number, number, Uint8Array, Uint8Array[], Uint8Array][] = [
        [index - 1, size, leaf, proof, root(size)],
        [index + 1, size, leaf, proof, root(size)],
        [index ^ 2, size, leaf, proof, root(size)],
        [index, size * 2, leaf, proof, root(size)],
        [index, size / 2, leaf, proof, root(size)],
        [index, size, utf8("WrongLeaf"), proof, root(size)],
        [index, size, SOME_HASH, proof, root(size)],
        [index, size, leaf, proof, root(0)],
        [index, size, leaf, proof, SOME_HASH],
        [index, size, leaf, [...proof, new Uint8Array(0)], root(size)],
        [index, size, leaf, [...proof, root(size)], root(size)],
        [index, size, leaf, [new Uint8Array(0), ...proof], root(size)],
        [index, size, leaf, [root(size), ...proof], root(size)],
        [index, size, leaf, proof.slice(0, -1), root(size)],
        ...proof.map((_, i): [number, number, Uint8Array, Uint8Array[], Uint8Array] => [
          index,
          size,
          leaf,
          proof.map((h, j) => (i === j ? flipped(h) : h)),
          root(size),
        ]),
      ];
      for (const args of corrupt) expect(verifyInclusion(...args), JSON.stringify(args.slice(0, 2))).toBe(false);
    }
    // A one-leaf tree: the root is the leaf hash and the proof is empty.
    expect(verifyInclusion(0, 1, root(1), [], root(1))).toBe(true);
    expect(verifyInclusion(0, 0, root(1), [], root(1))).toBe(false);
    expect(verifyInclusion(1, 1, root(1), [], root(1))).toBe(false);
  });

  it("verifyConsistency accepts each reference proof and refuses every corruption of it", () => {
    for (const [first, second, hexProof] of CT_CONSISTENCY) {
      const proof = hexProof.map((h) => hex.decode(h));
      const [r1, r2] = [root(first), root(second)];
      expect(verifyConsistency(first, second, r1, r2, proof)).toBe(true);
      const corrupt: [number, number, Uint8Array, Uint8Array, Uint8Array[]][] = [
        [first - 1, second, r1, r2, proof],
        [first + 1, second, r1, r2, proof],
        [first ^ 2, second, r1, r2, proof],
        [first, second * 2, r1, r2, proof],
        [first, second / 2, r1, r2, proof],
        [first, second, utf8("WrongRoot"), r2, proof],
        [first, second, r1, utf8("WrongRoot"), proof],
        [first, second, r2, r1, proof],
        [first, second, r1, r2, []],
        [first, second, r1, r2, [...proof, new Uint8Array(0)]],
        [first, second, r1, r2, [...proof, r1]],
        [first, second, r1, r2, [...proof, r2]],
        [first, second, r1, r2, [new Uint8Array(0), ...proof]],
        [first, second, r1, r2, [r1, ...proof]],
        [first, second, r1, r2, [r2, ...proof]],
        [first, second, r1, r2, [proof[0] as Uint8Array, ...proof]],
        [first, second, r1, r2, proof.slice(0, -1)],
        ...proof.map((_, i): [number, number, Uint8Array, Uint8Array, Uint8Array[]] => [
          first,
          second,
          r1,
          r2,
          proof.map((h, j) => (i === j ? flipped(h, 4) : h)),
        ]),
      ];
      for (const args of corrupt) expect(verifyConsistency(...args), JSON.stringify(args.slice(0, 2))).toBe(false);
    }
  });

  it("verifyConsistency at the edges RFC 9162 leaves to its definitions: equal sizes, the empty tree, going back", () => {
    expect(verifyConsistency(3, 3, root(3), root(3), [])).toBe(true);
    expect(verifyConsistency(3, 3, root(3), root(4), [])).toBe(false);
    expect(verifyConsistency(3, 3, root(3), root(3), [root(0)])).toBe(false);
    expect(verifyConsistency(0, 5, root(0), root(5), [])).toBe(true);
    expect(verifyConsistency(0, 5, SOME_HASH, root(5), [])).toBe(false);
    expect(verifyConsistency(0, 5, root(0), root(5), [root(0)])).toBe(false);
    expect(verifyConsistency(5, 3, root(5), root(3), [])).toBe(false);
    expect(verifyConsistency(1, 2, root(1), root(2), [])).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("signed notes (c2sp.org/signed-note), with golang.org/x/mod/sumdb/note's vector", () => {
  const PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
  const PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
  const ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";
  const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
  const PETER_SIG =
    "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
  const ENOCH_SIG =
    "\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";
  const peter = parseVerifierKey(PETER_VKEY);
  const open = (note: string | Uint8Array, verifier = peter) =>
    reasonOfSync(() => openSignedNote(typeof note === "string" ? utf8(note) : note, verifier));

  it("this file's signer reproduces Go's key and signature byte for byte (Ed25519 is deterministic)", () => {
    const seed = base64.decode(PETER_SKEY.split("+").slice(4).join("+")).slice(1);
    const key = logKey("PeterNeumann", seed);
    expect(key.vkey).toBe(PETER_VKEY);
    expect(signatureLine(TEXT, key)).toBe(PETER_SIG);
    expect(hex.encode(peter.keyId)).toBe("c74f20a3");
  });

  it("opens the note by the trusted key and ignores a signature by another key", async () => {
    expect(openSignedNote(utf8(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`), peter)).toBe(TEXT);
    expect(openSignedNote(utf8(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`), parseVerifierKey(ENOCH_VKEY))).toBe(TEXT);
    expect(await open(`${TEXT}\n${ENOCH_SIG}`)).toBe("no_verified_signature");
    expect(await open(`${TEXT}\n${PETER_SIG.replace("PeterNeumann", "CarmenSandiego")}`)).toBe("no_verified_signature");
    // Same name, another key ID: unknown, so ignored.
    expect(await open(`${TEXT}\n${PETER_SIG.replace("x08g", "xxxx")}`)).toBe("no_verified_signature");
  });

  it("refuses a note whose trusted signature does not verify", async () => {
    // Go's case, "ABCD" inserted 60 bytes in (58 UTF-16 units: the em dash is three bytes).
    expect(await open(`${TEXT}\n${PETER_SIG.slice(0, 58)}ABCD${PETER_SIG.slice(58)}`)).toBe("bad_signature");
    expect(await open(`${TEXT.replace("cryptography", "cryptographY")}\n${PETER_SIG}`)).toBe("bad_signature");
    expect(await open(`${TEXT}\n${PETER_SIG}${PETER_SIG.replace("AM=", "AA=")}`)).toBe("bad_signature");
  });

  it("refuses malformed notes (Go's cases, and over-long signature lists)", async () => {
    const bad: (string | Uint8Array)[] = [
      TEXT,
      `${TEXT}\n`,
      `${TEXT}\n${PETER_SIG.slice(0, -1)}`,
      `\x01${TEXT}\n${PETER_SIG}`,
      cat(Uint8Array.of(0xff), utf8(`${TEXT}\n${PETER_SIG}`)),
      `${TEXT}\n\u2014 Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
      `${TEXT}\n${PETER_SIG}Unexpected line.\n`,
      `${TEXT}\n${PETER_SIG.repeat(101)}`,
      `${TEXT}\n\u2014 PeterNeumann AAAA\n`,
      `${TEXT}\n- PeterNeumann${PETER_SIG.slice(14)}`,
    ];
    for (const note of bad) expect(await open(note), String(note)).toBe("malformed_note");
    expect(await open(`${TEXT}\n${PETER_SIG.repeat(16)}`)).toBe("resolved");
  });

  it("accepts Go's verifier key and refuses each of its manglings", async () => {
    const manglings = new Set<string>();
    for (let i = 0; i <= PETER_VKEY.length; i++) {
      for (let j = i + 1; j <= PETER_VKEY.length; j++) manglings.add(PETER_VKEY.slice(i, j));
    }
    for (let i = 0; i < PETER_VKEY.length; i++) {
      manglings.add(
        PETER_VKEY.slice(0, i) + String.fromCharCode(PETER_VKEY.charCodeAt(i) + 1) + PETER_VKEY.slice(i + 1),
      );
    }
    manglings.delete(PETER_VKEY);
    manglings.add("PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==");
    manglings.add("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
    for (const key of manglings) expect(await reasonOfSync(() => parseVerifierKey(key)), key).toBe("bad_verifier_key");
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("checkpoints (c2sp.org/tlog-checkpoint) through the client", () => {
  const log = new NaiveLog(Array.from({ length: 20 }, (_, i) => entryOf(i)));
  const served = (note: string) => {
    const files = publish(log, 20);
    files.set("checkpoint", utf8(note));
    return clientOf(files);
  };
  const signed = (text: string, ...extra: string[]) => `${text}\n${signatureLine(text, KEY)}${extra.join("")}`;
  const good = checkpointText(ORIGIN, 20, log.mth(0, 20));

  it("verifies a checkpoint, keeps its extension lines, and ignores a witness's cosignature", async () => {
    const witness = logKey("witness.example/w1");
    const text = checkpointText(ORIGIN, 20, log.mth(0, 20), "ext one", "ext two");
    const checkpoint = await served(signed(text, signatureLine(text, witness))).checkpoint();
    expect(checkpoint).toEqual({
      origin: ORIGIN,
      size: 20,
      root: log.mth(0, 20),
      text,
      extensions: ["ext one", "ext two"],
    });
  });

  it("refuses a bad signature, another key under the log's name, and a forged key ID", async () => {
    const note = signed(good);
    const at = note.lastIndexOf(" ") + 1;
    const blob = base64.decode(note.slice(at, -1));
    blob[10] = (blob[10] as number) ^ 0x01;
    expect(await reasonOf(served(`${note.slice(0, at)}${base64.encode(blob)}\n`).checkpoint())).toBe("bad_signature");
    const impostor = logKey(ORIGIN);
    expect(await reasonOf(served(`${good}\n${signatureLine(good, impostor)}`).checkpoint())).toBe(
      "no_verified_signature",
    );
    expect(await reasonOf(served(`${good}\n${signatureLine(good, impostor, KEY.id)}`).checkpoint())).toBe(
      "bad_signature",
    );
  });

  it("refuses another origin, even when signed by the log's key", async () => {
    const other = checkpointText("log.example/another-log", 20, log.mth(0, 20));
    expect(await reasonOf(served(signed(other)).checkpoint())).toBe("wrong_origin");
  });

  it("refuses a malformed checkpoint body even when it is validly signed", async () => {
    const r = base64.encode(log.mth(0, 20));
    const bodies = [
      `${ORIGIN}\n020\n${r}\n`,
      `${ORIGIN}\n-20\n${r}\n`,
      `${ORIGIN}\n2e1\n${r}\n`,
      `${ORIGIN}\n 20\n${r}\n`,
      `${ORIGIN}\n99999999999999999999\n${r}\n`,
      `${ORIGIN}\n20\n${base64.encode(log.mth(0, 20).slice(1))}\n`,
      `${ORIGIN}\n20\n${r.slice(0, -1)}\n`,
      `${ORIGIN}\n20\n${hex.encode(log.mth(0, 20))}\n`,
      `${ORIGIN}\n20\n`,
      `${ORIGIN}\n20\n${r}\n\nextension\n`,
      `\n20\n${r}\n`,
    ];
    for (const body of bodies)
      expect(await reasonOf(served(signed(body)).checkpoint()), body).toBe("malformed_checkpoint");
  });

  it("reports a checkpoint the server does not serve", async () => {
    const client = createTileClient({
      prefix: PREFIX,
      fetch: serve(new Map(), 503),
      verifierKey: KEY.vkey,
      origin: ORIGIN,
    });
    expect(await reasonOf(client.checkpoint())).toBe("http_error");
  });
});

// ---------------------------------------------------------------------------------------------------------------

const BIG = 70_000;
let big: NaiveLog;
let bigFiles: Files;

beforeAll(() => {
  big = new NaiveLog(Array.from({ length: BIG }, (_, i) => entryOf(i)));
  bigFiles = publish(big, BIG);
}, 120_000);

// Hashing-heavy: a minute of room when the whole suite shares the machine.
describe("tiles (c2sp.org/tlog-tiles)", { timeout: 60_000 }, () => {
  it("encodes tile paths as the spec does", () => {
    expect(encodeTileIndex(1234067)).toBe("x001/x234/067");
    expect(tilePath(0, 1234067)).toBe("tile/0/x001/x234/067");
    expect(tilePath(2, 0, 1)).toBe("tile/2/000.p/1");
    expect(tilePath(1, 1000, 17)).toBe("tile/1/x001/000.p/17");
    expect(tilePath("entries", 999)).toBe("tile/entries/999");
    for (const n of [0, 7, 999, 1000, 1234067, 987654321012]) expect(tilePath(3, n, 5)).toBe(pathOf(3, n, 5));
  });

  it("this file's writer makes the spec's example: size 70,000 is 273 full level-0 tiles, 0/273.p/112, 1/000, 1/001.p/17, 2/000.p/1", () => {
    const tiles = [...bigFiles.keys()].filter((p) => /^tile\/\d/.test(p));
    expect(tiles.filter((p) => p.startsWith("tile/0/") && !p.includes(".p/"))).toHaveLength(273);
    expect(tiles.filter((p) => !p.startsWith("tile/0/") || p.includes(".p/")).sort()).toEqual([
      "tile/0/273.p/112",
      "tile/1/000",
      "tile/1/001.p/17",
      "tile/2/000.p/1",
    ]);
    expect([...publish(big, 256).keys()].sort()).toEqual([
      "checkpoint",
      "tile/0/000",
      "tile/1/000.p/1",
      "tile/entries/000",
    ]);
  });

  const boundaries = (size: number) => [
    0,
    1,
    2,
    127,
    128,
    254,
    255,
    256,
    257,
    511,
    512,
    65535,
    65536,
    65537,
    size - 2,
    size - 1,
  ];
  const indicesOf = (size: number) =>
    size <= 1024
      ? Array.from({ length: size }, (_, i) => i)
      : [...new Set([...boundaries(size), ...Array.from({ length: Math.ceil(size / 97) }, (_, i) => i * 97)])].filter(
          (i) => i >= 0 && i < size,
        );

  it.each([1, 2, 255, 256, 257, 1000, 65536, 65537, BIG])(
    "size %i: roots, inclusion proofs, consistency proofs and entries all verify, fetching only required partial tiles",
    async (size) => {
      const files = size === BIG ? bigFiles : publish(big, size);
      const client = clientOf(files);
      const checkpoint = await client.checkpoint();
      expect(checkpoint.size).toBe(size);
      expect(hex.encode(await client.root(size))).toBe(hex.encode(checkpoint.root));

      for (const i of indicesOf(size)) {
        const proof = await client.inclusionProof(i, size);
        const leaf = await client.leafHash(i, size);
        expect(verifyInclusion(i, size, leaf, proof, checkpoint.root), `leaf ${i}`).toBe(true);
        expect(hexes(proof)).toEqual(hexes(big.path(i, 0, size)));
        if (i % 7 === 0 || i === size - 1) expect(await client.entry(i, size)).toEqual(big.entries[i]);
      }

      for (const first of indicesOf(size + 1)) {
        const proof = await client.consistencyProof(first, size);
        const firstRoot = await client.root(first);
        expect(hex.encode(firstRoot)).toBe(hex.encode(big.mth(0, first)));
        expect(verifyConsistency(first, size, firstRoot, checkpoint.root, proof), `first ${first}`).toBe(true);
        expect(hexes(proof)).toEqual(hexes(big.proof(first, size)));
      }

      const required = requiredPartials(size);
      const partials = client.tilesFetched.filter((p) => p.includes(".p/"));
      expect(partials.filter((p) => !required.has(p))).toEqual([]);
      // Fetched once each (a path names its width, so every tile is immutable and cached).
      expect(new Set(client.tilesFetched).size).toBe(client.tilesFetched.length);
    },
    30_000,
  );

  it("refuses any size beyond the verified checkpoint, before fetching anything", async () => {
    const client = clientOf(publish(big, 257));
    expect(await reasonOf(client.leafHash(0, 1))).toBe("size_not_verified");
    expect(await reasonOf(client.root(0))).toBe("size_not_verified");
    await client.checkpoint();
    expect(await reasonOf(client.root(258))).toBe("size_not_verified");
    expect(await reasonOf(client.inclusionProof(300, 301))).toBe("size_not_verified");
    expect(await reasonOf(client.consistencyProof(10, 1000))).toBe("size_not_verified");
    expect(await reasonOf(client.entry(257, 257))).toBe("out_of_range");
    expect(await reasonOf(client.consistencyProof(258, 257))).toBe("out_of_range");
    expect(client.tilesFetched).toEqual([]);
  });

  it("follows a growing log: a later checkpoint is consistent with an earlier one, read from the later tiles", async () => {
    const files = publish(big, 257);
    const client = clientOf(files);
    const before = await client.checkpoint();
    expect(await client.root(257)).toEqual(before.root);
    // The log grows and, as the spec allows, drops the partial tiles its full tiles replaced.
    publish(big, BIG, files);
    files.delete("tile/0/001.p/1");
    files.delete("tile/entries/001.p/1");
    const fetchedBefore = client.tilesFetched.length;
    const after = await client.checkpoint();
    const proof = await client.consistencyProof(before.size, after.size);
    expect(verifyConsistency(before.size, after.size, before.root, after.root, proof)).toBe(true);
    expect(await client.root(257)).toEqual(before.root);
    expect(await client.entry(256, 257)).toEqual(big.entries[256]);
    const required = requiredPartials(BIG);
    expect(client.tilesFetched.slice(fetchedBefore).filter((p) => p.includes(".p/") && !required.has(p))).toEqual([]);
  });

  it("falls back to the full tile when a checkpoint's partial tile is gone", async () => {
    const files = publish(big, 300);
    const stale = files.get("checkpoint") as Uint8Array;
    publish(big, 512, files);
    files.set("checkpoint", stale);
    files.delete("tile/0/001.p/44");
    files.delete("tile/entries/001.p/44");
    const client = clientOf(files);
    const checkpoint = await client.checkpoint();
    expect(await client.root(300)).toEqual(checkpoint.root);
    expect(await client.entry(299, 300)).toEqual(big.entries[299]);
    expect(client.tilesFetched).toEqual(
      expect.arrayContaining(["tile/0/001.p/44", "tile/0/001", "tile/entries/001.p/44", "tile/entries/001"]),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------

// Hashing-heavy: a minute of room when the whole suite shares the machine.
describe("tampering", { timeout: 60_000 }, () => {
  /** The 70,000-leaf log with one file changed. */
  const tampered = (path: string, change: (bytes: Uint8Array) => Uint8Array) => {
    const files = new Map(bigFiles);
    files.set(path, change((files.get(path) as Uint8Array).slice()));
    return clientOf(files);
  };
  const flipByte = (at: number) => (bytes: Uint8Array) => {
    bytes[at] = (bytes[at] as number) ^ 0x01;
    return bytes;
  };
  const proves = async (client: ReturnType<typeof clientOf>, index: number) => {
    const checkpoint = await client.checkpoint();
    const leaf = await client.leafHash(index, checkpoint.size);
    return verifyInclusion(
      index,
      checkpoint.size,
      leaf,
      await client.inclusionProof(index, checkpoint.size),
      checkpoint.root,
    );
  };

  it("a flipped byte in a level-0 tile fails the proofs of that leaf and of its neighbour", async () => {
    expect(await proves(tampered("tile/0/000", flipByte(5 * 32 + 9)), 5)).toBe(false);
    expect(await proves(tampered("tile/0/000", flipByte(5 * 32 + 9)), 4)).toBe(false);
    expect(await proves(tampered("tile/0/000", flipByte(5 * 32 + 9)), 300)).toBe(true);
  });

  it("a level-1 hash that is not the MTH of its tile below fails the proofs that use it", async () => {
    expect(await proves(tampered("tile/1/000", flipByte(32)), 0)).toBe(false);
    expect(await proves(tampered("tile/1/000", flipByte(32)), 256)).toBe(true);
  });

  it("a flipped byte in a partial tile changes the root away from the checkpoint's", async () => {
    for (const path of ["tile/0/273.p/112", "tile/1/001.p/17", "tile/2/000.p/1"]) {
      const client = tampered(path, flipByte(0));
      const checkpoint = await client.checkpoint();
      expect(hex.encode(await client.root(BIG)), path).not.toBe(hex.encode(checkpoint.root));
    }
  });

  it("refuses a tile whose length is not 32 × its width", async () => {
    const short = tampered("tile/0/000", (b) => b.slice(0, -32));
    await short.checkpoint();
    expect(await reasonOf(short.leafHash(0, BIG))).toBe("bad_tile");
    const long = tampered("tile/0/273.p/112", (b) => cat(b, new Uint8Array(32)));
    await long.checkpoint();
    expect(await reasonOf(long.leafHash(BIG - 1, BIG))).toBe("bad_tile");
    const ragged = tampered("tile/1/001.p/17", (b) => b.slice(0, -1));
    await ragged.checkpoint();
    expect(await reasonOf(ragged.root(BIG))).toBe("bad_tile");
  });

  it("refuses an entry that does not hash to its level-0 tile hash, and a bundle of the wrong shape", async () => {
    const altered = tampered("tile/entries/000", flipByte(5));
    await altered.checkpoint();
    expect(await reasonOf(altered.entry(1, BIG))).toBe("entry_mismatch");
    const trailing = tampered("tile/entries/000", (b) => cat(b, Uint8Array.of(0)));
    await trailing.checkpoint();
    expect(await reasonOf(trailing.entry(1, BIG))).toBe("bad_entry_bundle");
    const truncated = tampered("tile/entries/273.p/112", (b) => b.slice(0, -3));
    await truncated.checkpoint();
    expect(await reasonOf(truncated.entry(BIG - 50, BIG))).toBe("bad_entry_bundle");
    const missing = tampered("tile/entries/001", (b) => b.slice(0, b.length - (2 + entryOf(511).length)));
    await missing.checkpoint();
    expect(await reasonOf(missing.entry(300, BIG))).toBe("bad_entry_bundle");
  });

  it("reports a tile the server does not serve", async () => {
    const files = new Map(bigFiles);
    files.delete("tile/0/001");
    const client = clientOf(files);
    await client.checkpoint();
    expect(await reasonOf(client.leafHash(300, BIG))).toBe("http_error");
  });
});
