// A transparency-log witness on loopback, written from the C2SP specifications alone (tlog-witness's
// add-checkpoint, tlog-cosignature's cosignature/v1, signed-note's verifier keys, RFC 6962/9162's consistency
// proof): its own Ed25519 key, its own record per log origin, its own Merkle code (it never imports the project's
// shared/tlog, so a mistake there cannot hide here). It cosigns a checkpoint only if a trusted key signed it and it
// is consistent with the last one it cosigned for that origin; otherwise it answers as the spec says (400, 403, 404,
// 409 with its size as text/x.tlog.size, 422). Admin routes let a test configure and break it:
//   POST /admin/trust {origin, vkey} | {prefix, public_key}  trust a log key for one origin, or a raw key for every
//                                                            origin under a prefix (whatever key name signs)
//   POST /admin/down {mode: "reset" | "hang", origin?}         stop answering add-checkpoint (socket reset or never),
//   POST /admin/up {origin?}                                   for one origin only when given (test files share it)
//   GET  /admin/state?origin=                                 {size, root} it holds for the origin (size 0: none)
//   GET  /admin/requests                                      every add-checkpoint answered: {origin, old, size, status}
import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import http from "node:http";

const EM_DASH_LINE = "— ";
const COSIGNATURE_ALG = 0x04; // tlog-cosignature: Ed25519 cosignature/v1
const NOTE_ALG = 0x01; // signed-note: Ed25519
const MAX_PROOF_LINES = 63;

const sha256 = (...parts) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};
const keyId = (name, alg, rawKey) => sha256(Buffer.from(`${name}\n`), Buffer.of(alg), rawKey).subarray(0, 4);
const rawPublic = (keyObject) => Buffer.from(keyObject.export({ format: "jwk" }).x, "base64url");
const publicKeyOf = (raw) =>
  createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") }, format: "jwk" });
const strictBase64 = (text) => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  return Buffer.from(text, "base64");
};

/** "name+hex8+base64(alg ‖ key)" → {name, raw}; throws unless well formed with a matching key ID. */
function readVkey(vkey, alg) {
  const [name, id, ...rest] = vkey.split("+");
  const material = rest.length > 0 ? rest.join("+") : undefined; // base64 may hold "+"
  const bytes = material === undefined ? undefined : strictBase64(material);
  if (!name || !bytes || bytes.length !== 33 || bytes[0] !== alg) throw new Error(`not a vkey: ${vkey}`);
  const raw = bytes.subarray(1);
  if (keyId(name, alg, raw).toString("hex") !== id) throw new Error(`vkey ${vkey}: wrong key ID`);
  return { name, raw };
}

// RFC 9162 2.1.4.2 (RFC 6962 2.1.2's proofs): verify that `proof` takes the tree of size m (root `oldRoot`) to the
// tree of size n (root `newRoot`). Written here, not imported.
const interior = (left, right) => sha256(Buffer.of(1), left, right);
function consistent(m, n, proof, oldRoot, newRoot) {
  if (m === n) return proof.length === 0 && oldRoot.equals(newRoot);
  if (m === 0 || m > n || proof.length === 0) return false;
  const path = (m & (m - 1)) === 0 ? [oldRoot, ...proof] : proof.slice();
  let fn = m - 1;
  let sn = n - 1;
  while (fn & 1) {
    fn >>>= 1;
    sn >>>= 1;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn & 1 || fn === sn) {
      fr = interior(c, fr);
      sr = interior(c, sr);
      while (!(fn & 1) && fn !== 0) {
        fn >>>= 1;
        sn >>>= 1;
      }
    } else {
      sr = interior(sr, c);
    }
    fn >>>= 1;
    sn >>>= 1;
  }
  return sn === 0 && fr.equals(oldRoot) && sr.equals(newRoot);
}

/** The add-checkpoint body: {old, proof, note, text, origin, size, root, signatures}; undefined when malformed. */
function readSubmission(body) {
  const blank = body.indexOf("\n\n");
  if (blank < 0) return undefined;
  const [oldLine, ...proofLines] = body.slice(0, blank).split("\n");
  const oldMatch = /^old (0|[1-9][0-9]*)$/.exec(oldLine ?? "");
  if (!oldMatch || proofLines.length > MAX_PROOF_LINES) return undefined;
  const proof = proofLines.map(strictBase64);
  if (proof.some((h) => h?.length !== 32)) return undefined;
  const note = body.slice(blank + 2);
  const split = note.indexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) return undefined;
  const text = note.slice(0, split + 1);
  const [origin, sizeLine, rootLine] = text.split("\n");
  const root = strictBase64(rootLine ?? "");
  if (!origin || !/^(0|[1-9][0-9]*)$/.test(sizeLine ?? "") || !root || root.length !== 32) return undefined;
  const signatures = [];
  for (const line of note.slice(split + 2, -1).split("\n")) {
    const match = /^— (\S+) (\S+)$/.exec(line);
    const blob = match && strictBase64(match[2]);
    if (!blob || blob.length < 5) return undefined;
    signatures.push({ name: match[1], id: blob.subarray(0, 4), signature: blob.subarray(4) });
  }
  return { old: Number(oldMatch[1]), proof, text, origin, size: Number(sizeLine), root, signatures };
}

/**
 * Starts one witness. `name` is its key name (a schema-less URL); the answer has its `url` (the submission prefix:
 * POST `${url}/add-checkpoint`), its `vkey` (C2SP form, algorithm 0x04) and in-process handles to the same admin.
 */
export function startWitness({ name = "witness.test/w", port = 0, host = "127.0.0.1", unref = false } = {}) {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = rawPublic(publicKey);
  const vkey = `${name}+${keyId(name, COSIGNATURE_ALG, raw).toString("hex")}+${Buffer.concat([Buffer.of(COSIGNATURE_ALG), raw]).toString("base64")}`;
  /** Per origin: the latest cosigned {size, root}. */
  const records = new Map();
  /** Trusted log keys: exact {origin, name, raw} and open {prefix, raw}. */
  const trusted = [];
  const requests = [];
  /** Down for every origin (key "") or for one: the mode. */
  const down = new Map();

  const trust = ({ origin, vkey: logVkey, prefix, public_key }) => {
    if (origin && logVkey) trusted.push({ origin, ...readVkey(logVkey, NOTE_ALG) });
    else if (typeof prefix === "string" && public_key) trusted.push({ prefix, raw: Buffer.from(public_key, "base64") });
    else throw new Error("trust {origin, vkey} or {prefix, public_key}");
  };

  const signedByTrusted = (sub) => {
    const keys = trusted.filter(
      (k) => k.origin === sub.origin || (k.prefix !== undefined && sub.origin.startsWith(k.prefix)),
    );
    if (keys.length === 0) return undefined;
    return sub.signatures.some((s) =>
      keys.some(
        (k) =>
          (k.name === undefined || k.name === s.name) &&
          keyId(s.name, NOTE_ALG, k.raw).equals(s.id) &&
          s.signature.length === 64 &&
          verify(null, Buffer.from(sub.text), publicKeyOf(k.raw), s.signature),
      ),
    );
  };

  const cosign = (text) => {
    const time = Math.floor(Date.now() / 1000);
    const signature = sign(null, Buffer.from(`cosignature/v1\ntime ${time}\n${text}`), privateKey);
    const stamp = Buffer.alloc(8);
    stamp.writeBigUInt64BE(BigInt(time));
    const blob = Buffer.concat([keyId(name, COSIGNATURE_ALG, raw), stamp, signature]);
    return `${EM_DASH_LINE}${name} ${blob.toString("base64")}\n`;
  };

  /** The spec's checks in its order; the check and the update are one synchronous step (no race). */
  const addCheckpoint = (body) => {
    const sub = readSubmission(body);
    if (!sub) return { status: 400, body: "malformed add-checkpoint body\n" };
    const verdict = signedByTrusted(sub);
    if (verdict === undefined) return { status: 404, body: "unknown log origin\n", sub };
    if (!verdict) return { status: 403, body: "no trusted signature\n", sub };
    if (sub.old > sub.size) return { status: 400, body: "old size above the checkpoint's\n", sub };
    const held = records.get(sub.origin) ?? { size: 0, root: undefined };
    if (sub.old !== held.size) {
      return { status: 409, body: `${held.size}\n`, type: "text/x.tlog.size", sub };
    }
    if (sub.old === 0 && sub.proof.length > 0) return { status: 422, body: "a proof from size 0\n", sub };
    if (sub.old === sub.size && sub.old > 0 && !held.root.equals(sub.root)) {
      return { status: 409, body: `${held.size}\n`, type: "text/x.tlog.size", sub };
    }
    if (sub.old > 0 && !consistent(sub.old, sub.size, sub.proof, held.root, sub.root)) {
      return { status: 422, body: "consistency proof does not verify\n", sub };
    }
    records.set(sub.origin, { size: sub.size, root: sub.root });
    return { status: 200, body: cosign(sub.text), sub };
  };

  const json = (res, status, value) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const url = new URL(req.url ?? "/", "http://x");
      try {
        if (url.pathname === "/admin/trust" && req.method === "POST") {
          trust(JSON.parse(body));
          return json(res, 200, { ok: true });
        }
        if (url.pathname === "/admin/down" && req.method === "POST") {
          const { mode = "reset", origin = "" } = body ? JSON.parse(body) : {};
          down.set(origin, mode);
          return json(res, 200, { ok: true });
        }
        if (url.pathname === "/admin/up" && req.method === "POST") {
          down.delete((body && JSON.parse(body).origin) || "");
          return json(res, 200, { ok: true });
        }
        if (url.pathname === "/admin/state") {
          const held = records.get(url.searchParams.get("origin") ?? "");
          return json(res, 200, { size: held?.size ?? 0, root: held?.root.toString("base64") ?? null });
        }
        if (url.pathname === "/admin/requests") return json(res, 200, requests);
      } catch (err) {
        return json(res, 400, { error: String(err) });
      }
      if (url.pathname !== "/add-checkpoint") return json(res, 404, { error: "no such route" });
      if (req.method !== "POST") {
        res.writeHead(405, { allow: "POST" });
        return res.end();
      }
      const origin = body.slice(body.indexOf("\n\n") + 2).split("\n")[0] ?? "";
      const mode = down.get("") ?? down.get(origin);
      if (mode === "reset") return req.socket.destroy();
      if (mode === "hang") return;
      const answer = addCheckpoint(body);
      requests.push({
        origin: answer.sub?.origin,
        old: answer.sub?.old,
        size: answer.sub?.size,
        status: answer.status,
      });
      res.writeHead(answer.status, { "content-type": answer.type ?? "text/plain; charset=utf-8" });
      res.end(answer.body);
    });
  });
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      if (unref) server.unref();
      resolve({
        name,
        vkey,
        url: `http://${host}:${server.address().port}`,
        trust,
        setDown: (mode, origin = "") => {
          if (mode) down.set(origin, mode);
          else down.delete(origin);
        },
        stateOf: (origin) => records.get(origin),
        requests,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
