// Signed notes and checkpoints (issue 18): the signed-note format against the Go reference vector
// (golang.org/x/mod/sumdb/note, "PeterNeumann"): the same key string, byte-for-byte the same signature (Ed25519 is
// deterministic), and verification; then what must fail, and checkpoints round-tripped through a signed note.
import { ed25519 } from "@noble/curves/ed25519.js";
import { base64 } from "@scure/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkpointText, parseCheckpoint } from "../../shared/tlog/checkpoint";
import { leafHash, rootOf } from "../../shared/tlog/merkle";
import { openNote, parseVerifierKey, signNote, verifierKey } from "../../shared/tlog/note";

const GO_SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const GO_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;
const seed = base64.decode(GO_SIGNER.slice("PRIVATE+KEY+PeterNeumann+c74f20a3+".length)).slice(1);

describe("signed-note, Go reference vector", () => {
  it("derives the same verifier key and signs the same bytes", () => {
    const key = { name: "PeterNeumann", publicKey: ed25519.getPublicKey(seed) };
    expect(verifierKey(key)).toBe(GO_VERIFIER);
    expect(signNote(GO_TEXT, "PeterNeumann", seed)).toBe(GO_NOTE);
  });

  it("opens the note with the verifier key; a changed text, name or key does not", () => {
    const key = parseVerifierKey(GO_VERIFIER);
    expect(key).toBeDefined();
    if (!key) return;
    expect(openNote(GO_NOTE, [key])).toEqual({ text: GO_TEXT, signedBy: ["PeterNeumann"] });
    expect(openNote(GO_NOTE.replace("cryptography", "cryptographY"), [key])).toBeUndefined();
    expect(openNote(GO_NOTE, [{ ...key, name: "Peter" }])).toBeUndefined();
    expect(openNote(GO_NOTE, [{ ...key, publicKey: ed25519.getPublicKey(new Uint8Array(32)) }])).toBeUndefined();
    expect(parseVerifierKey(GO_VERIFIER.replace("c74f20a3", "c74f20a4"))).toBeUndefined();
  });
});

describe("checkpoints", () => {
  it("round-trip through a signed note, and any changed line fails", () => {
    const secret = ed25519.utils.randomSecretKey();
    const key = { name: "fleet.example/log", publicKey: ed25519.getPublicKey(secret) };
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 8 }), { maxLength: 20 }), (data) => {
        const checkpoint = {
          origin: "fleet.example/log/proj_1",
          size: data.length,
          root: rootOf(data.map(leafHash)),
          extensions: [],
        };
        const note = signNote(checkpointText(checkpoint), key.name, secret);
        const opened = openNote(note, [key]);
        expect(opened?.signedBy).toEqual([key.name]);
        expect(parseCheckpoint(opened?.text ?? "")).toEqual(checkpoint);
        const lines = note.split("\n");
        for (const at of [0, 1, 2]) {
          const altered = lines.map((l, i) => (i === at ? `${l}x` : l)).join("\n");
          expect(openNote(altered, [key])).toBeUndefined();
        }
      }),
      { numRuns: 50 },
    );
  });

  it("refuses malformed texts", () => {
    const root = base64.encode(new Uint8Array(32));
    for (const text of [
      "",
      "origin\n",
      `origin\n01\n${root}\n`,
      `origin\n-1\n${root}\n`,
      "origin\n1\nAAAA\n",
      `\n1\n${root}\n`,
      `origin\n1\n${root}`,
    ]) {
      expect(parseCheckpoint(text), JSON.stringify(text)).toBeUndefined();
    }
    expect(parseCheckpoint(`origin\n1\n${root}\n`)).toMatchObject({ origin: "origin", size: 1 });
  });
});
