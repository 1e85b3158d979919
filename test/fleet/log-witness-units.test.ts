// Witnessing's pure parts (issue 48; workers/fleet/src/log/witness/): LOG_WITNESSES read by zod (a bad list is an
// error string, never a throw), the add-checkpoint body and answers, which answer lines are kept, the backoff, and
// which stored cosignatures a served checkpoint carries; and a malformed LOG_WITNESSES seen on the log screen
// while every read still answers.
import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import { cosignatureLine, cosignerVerifierKey } from "../../shared/tlog/cosignature";
import { verifierKey } from "../../shared/tlog/note";
import { readWitnesses } from "../../workers/fleet/src/log/witness/config";
import { addCheckpointBody, cosignaturesIn, readAnswer } from "../../workers/fleet/src/log/witness/protocol";
import { withCosignatures } from "../../workers/fleet/src/log/witness/served";
import { afterOutcome, due, freshState, RETRY_DELAYS_MS } from "../../workers/fleet/src/log/witness/state";
import { integrateLog, loggedProject } from "../helpers/log";
import { readWith } from "../helpers/witnesses";

function witness(name: string) {
  const secret = ed25519.utils.randomSecretKey();
  return { name, secret, vkey: cosignerVerifierKey({ name, publicKey: ed25519.getPublicKey(secret) }) };
}
const A = witness("a.example/w");
const B = witness("b.example/w");
const TEXT = `fleet.test/log/p\n3\n${"A".repeat(43)}=\n`;
const NOTE = `${TEXT}\n— fleet.test AAAAAAAA\n`;

describe("LOG_WITNESSES", () => {
  it("reads a list of {vkey, url}; unset or empty is no witnesses", () => {
    expect(readWitnesses(undefined)).toEqual({ ok: true, witnesses: [] });
    expect(readWitnesses(" ")).toEqual({ ok: true, witnesses: [] });
    const read = readWitnesses(JSON.stringify([{ vkey: A.vkey, url: "https://w.example/a/" }]));
    expect(read).toMatchObject({ ok: true, witnesses: [{ name: A.name, vkey: A.vkey, url: "https://w.example/a" }] });
  });

  it("refuses with a named path: not JSON, a note key (0x01) or a wrong key ID for a vkey, a bad URL, a name twice", () => {
    const error = (text: string) => {
      const read = readWitnesses(text);
      return read.ok ? undefined : read.error;
    };
    expect(error("{")).toBe("LOG_WITNESSES is not JSON");
    const noteKey = verifierKey({ name: A.name, publicKey: ed25519.getPublicKey(A.secret) });
    expect(error(JSON.stringify([{ vkey: noteKey, url: "https://w.example" }]))).toMatch(/^LOG_WITNESSES\.0\.vkey: /);
    const wrongId = A.vkey.replace(/\+[0-9a-f]{8}\+/, "+00000000+");
    expect(error(JSON.stringify([{ vkey: wrongId, url: "https://w.example" }]))).toMatch(/^LOG_WITNESSES\.0\.vkey/);
    expect(error(JSON.stringify([{ vkey: A.vkey, url: "ftp://w.example" }]))).toMatch(/^LOG_WITNESSES\.0\.url/);
    expect(error(JSON.stringify([{ vkey: A.vkey, url: "https://w.example", extra: 1 }]))).toMatch(/^LOG_WITNESSES\.0/);
    const twice = [
      { vkey: A.vkey, url: "https://x.example" },
      { vkey: A.vkey, url: "https://y.example" },
    ];
    expect(error(JSON.stringify(twice))).toMatch(/a witness name appears twice/);
  });

  it("a malformed list: the log screen says so, the checkpoint is served without cosignatures, nothing answers 500", async () => {
    const { owner, projectId } = await loggedProject(1);
    await integrateLog(projectId);
    const screen = await readWith(owner, `/api/log/witnesses?project_id=${projectId}`, "[{");
    expect(screen.status).toBe(200);
    expect(await screen.json()).toMatchObject({
      size: 2,
      configuration_error: "LOG_WITNESSES is not JSON",
      witnesses: [],
    });
    const note = await readWith(owner, `/api/log/${projectId}/checkpoint`, "[{");
    expect(note.status).toBe(200);
    expect((await note.text()).split("\n— ")).toHaveLength(2);
  });
});

describe("add-checkpoint", () => {
  it("the body: old size, proof lines, a blank line, the signed note", () => {
    expect(addCheckpointBody(0, [], NOTE)).toBe(`old 0\n\n${NOTE}`);
    const proof = [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)];
    expect(addCheckpointBody(2, proof, NOTE)).toBe(
      `old 2\n${Buffer.from(proof[0] as Uint8Array).toString("base64")}\n${Buffer.from(proof[1] as Uint8Array).toString("base64")}\n\n${NOTE}`,
    );
  });

  it("answers: 200 cosigned, 409 with a size or without one, other 4xx refused, 5xx/429/408 unavailable", () => {
    expect(readAnswer(200, "— w x\n")).toEqual({ kind: "cosigned", body: "— w x\n" });
    expect(readAnswer(409, "17\n")).toEqual({ kind: "conflict", size: 17 });
    expect(readAnswer(409, "017\n")).toEqual({ kind: "refused", status: 409 });
    for (const status of [400, 403, 404, 422]) expect(readAnswer(status, "")).toEqual({ kind: "refused", status });
    for (const status of [408, 429, 500, 503]) expect(readAnswer(status, "")).toEqual({ kind: "unavailable", status });
  });

  it("keeps only the witness's valid cosignature lines over exactly the checkpoint's text", () => {
    const good = cosignatureLine(TEXT, A.name, A.secret, 1_700_000_000n).trimEnd();
    const otherText = cosignatureLine(TEXT.replace("\n3\n", "\n4\n"), A.name, A.secret, 1_700_000_000n).trimEnd();
    const otherWitness = cosignatureLine(TEXT, B.name, B.secret, 1_700_000_000n).trimEnd();
    const answer = [otherText, good, otherWitness, "junk", ""].join("\n");
    expect(cosignaturesIn(answer, A.vkey, TEXT)).toEqual([good]);
    expect(cosignaturesIn(otherText, A.vkey, TEXT)).toEqual([]);
  });
});

describe("what the log keeps per witness", () => {
  it("a problem backs off along RETRY_DELAYS_MS and keeps the size a 409 named; a cosignature clears it", () => {
    let s = freshState(A.name);
    const now = 1_000_000;
    const seen: number[] = [];
    for (let i = 0; i < RETRY_DELAYS_MS.length + 1; i++) {
      s = afterOutcome(s, { kind: "problem", problem: "witness_unreachable", size: 5 }, now);
      seen.push(s.retryAt - now);
    }
    expect(seen).toEqual([...RETRY_DELAYS_MS, RETRY_DELAYS_MS.at(-1)]);
    expect(due(s, TEXT, now)).toBe(false);
    expect(due(s, TEXT, s.retryAt)).toBe(true);
    s = afterOutcome(s, { kind: "problem", problem: "witness_conflict", size: 5, witnessSize: 7 }, now);
    expect(s).toMatchObject({ size: 7, problem: "witness_conflict", problemSize: 5, witnessSize: 7 });
    s = afterOutcome(s, { kind: "cosigned", size: 8, text: TEXT, lines: ["— a x"] }, now);
    expect(s).toMatchObject({ size: 8, cosignedSize: 8, checkpoint: TEXT, problem: null, failures: 0, retryAt: 0 });
    expect(due(s, TEXT, now)).toBe(false);
  });

  it("serves a witness's lines only over the same text and only for configured witnesses, in their order", () => {
    const line = (w: typeof A) => cosignatureLine(TEXT, w.name, w.secret, 1n).trimEnd();
    const states = new Map([
      [A.name, { ...freshState(A.name), checkpoint: TEXT, cosignature: line(A) }],
      [B.name, { ...freshState(B.name), checkpoint: TEXT, cosignature: line(B) }],
    ]);
    const config = (w: typeof A) => ({ name: w.name, publicKey: new Uint8Array(32), vkey: w.vkey, url: "https://x" });
    expect(withCosignatures(NOTE, states, [config(B), config(A)])).toBe(`${NOTE}${line(B)}\n${line(A)}\n`);
    expect(withCosignatures(NOTE, states, [config(A)])).toBe(`${NOTE}${line(A)}\n`);
    const grown = NOTE.replace("\n3\n", "\n4\n");
    expect(withCosignatures(grown, states, [config(A), config(B)])).toBe(grown);
  });
});
