// Witness cosignatures and the witness policy (issue 48; shared/tlog/cosignature.ts): cosignatures made here from the
// C2SP tlog-cosignature text with keys generated here (noble), not with the module's own signer: 0, 1, 2 and 3 of 3
// witnesses against thresholds, a forged or altered cosignature, an unknown witness, a line of a listed witness's
// name under another key, duplicate lines, a cosignature of another text, and policies that are no policy.
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, hex } from "@scure/base";
import { describe, expect, it } from "vitest";
import {
  checkCosignatures,
  cosignatureLine,
  cosignerVerifierKey,
  parseCosignerKey,
} from "../../shared/tlog/cosignature";
import { signNote } from "../../shared/tlog/note";

const utf8 = new TextEncoder();
const TEXT = "fleet.example/api/log/proj_0123456789abcdef01234567\n3\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
const LOG_SECRET = ed25519.utils.randomSecretKey();
const NOTE = signNote(TEXT, "fleet.example/api/log/proj_0123456789abcdef01234567", LOG_SECRET);

interface Witness {
  name: string;
  secret: Uint8Array;
  publicKey: Uint8Array;
  vkey: string;
}

/** The key ID as tlog-cosignature defines it, computed here: SHA-256(name ‖ "\n" ‖ 0x04 ‖ key)[:4]. */
const idOf = (name: string, publicKey: Uint8Array) =>
  sha256(new Uint8Array([...utf8.encode(name), 0x0a, 0x04, ...publicKey])).slice(0, 4);

function witness(name: string): Witness {
  const secret = ed25519.utils.randomSecretKey();
  const publicKey = ed25519.getPublicKey(secret);
  const vkey = `${name}+${hex.encode(idOf(name, publicKey))}+${base64.encode(new Uint8Array([0x04, ...publicKey]))}`;
  return { name, secret, publicKey, vkey };
}

/** A cosignature line made from the spec's text, by this test alone. */
function cosign(w: Witness, text = TEXT, time = 1_700_000_000, as = w.name, secret = w.secret): string {
  const message = utf8.encode(`cosignature/v1\ntime ${time}\n${text}`);
  const stamp = new Uint8Array(8);
  new DataView(stamp.buffer).setBigUint64(0, BigInt(time));
  const blob = new Uint8Array([...idOf(as, w.publicKey), ...stamp, ...ed25519.sign(message, secret)]);
  return `— ${as} ${base64.encode(blob)}\n`;
}

const [w1, w2, w3] = [witness("witness.example/w1"), witness("witness.example/w2"), witness("w3.example")] as [
  Witness,
  Witness,
  Witness,
];
const ALL = [w1.vkey, w2.vkey, w3.vkey];
const noteWith = (...lines: string[]) => NOTE + lines.join("");

describe("witness vkeys", () => {
  it("the module reads the vkeys made here and writes the same ones", () => {
    const key = parseCosignerKey(w1.vkey);
    expect(key?.name).toBe(w1.name);
    expect(key && hex.encode(key.publicKey)).toBe(hex.encode(w1.publicKey));
    expect(cosignerVerifierKey({ name: w1.name, publicKey: w1.publicKey })).toBe(w1.vkey);
  });

  it("refuses a log's Ed25519 vkey (type 0x01), a wrong key ID and garbage", () => {
    const logVkey = `${w1.name}+${hex.encode(idOf(w1.name, w1.publicKey))}+${base64.encode(new Uint8Array([0x01, ...w1.publicKey]))}`;
    expect(parseCosignerKey(logVkey)).toBeUndefined();
    expect(parseCosignerKey(w1.vkey.replace(/\+[0-9a-f]{8}\+/, "+00000000+"))).toBeUndefined();
    expect(parseCosignerKey("not a key")).toBeUndefined();
  });

  it("the module's own cosignature line is what the spec says, byte for byte (Ed25519 is deterministic)", () => {
    expect(cosignatureLine(TEXT, w2.name, w2.secret, 1_700_000_123n)).toBe(cosign(w2, TEXT, 1_700_000_123));
  });
});

describe("a policy of 3 witnesses", () => {
  const lines = [cosign(w1), cosign(w2, TEXT, 1_700_000_005), cosign(w3)];
  for (const count of [0, 1, 2, 3]) {
    for (const threshold of [1, 2, 3]) {
      it(`${count} of 3 cosigning, threshold ${threshold}: ${count >= threshold ? "accepted" : "refused"}`, () => {
        const result = checkCosignatures(noteWith(...lines.slice(0, count)), { witnesses: ALL, threshold });
        if (count >= threshold) {
          expect(result).toMatchObject({ ok: true });
          expect(result.ok && result.cosigned.map((c) => c.name)).toEqual([w1.name, w2.name, w3.name].slice(0, count));
        } else {
          expect(result).toMatchObject({ ok: false, reason: "witness_policy_unmet" });
        }
      });
    }
  }

  it("gives each witness's timestamp", () => {
    const result = checkCosignatures(noteWith(cosign(w2, TEXT, 1_700_000_005)), { witnesses: ALL, threshold: 1 });
    expect(result).toEqual({ ok: true, cosigned: [{ name: w2.name, timestamp: 1_700_000_005 }] });
  });

  it("without a threshold, every listed witness must cosign", () => {
    expect(checkCosignatures(noteWith(...lines), { witnesses: ALL })).toMatchObject({ ok: true });
    expect(checkCosignatures(noteWith(...lines.slice(0, 2)), { witnesses: ALL })).toMatchObject({
      ok: false,
      reason: "witness_policy_unmet",
    });
  });
});

describe("what does not count", () => {
  const two = { witnesses: ALL, threshold: 2 };

  it("a forged cosignature: a listed witness's name and key ID, signed by another key", () => {
    const forger = witness(w2.name);
    const forged = cosign({ ...forger, publicKey: w2.publicKey }, TEXT, 1_700_000_000, w2.name, forger.secret);
    expect(checkCosignatures(noteWith(cosign(w1), forged), two)).toMatchObject({
      ok: false,
      reason: "witness_policy_unmet",
      cosigned: [{ name: w1.name }],
    });
  });

  it("a listed witness's line whose timestamp was changed after signing", () => {
    const line = cosign(w2);
    const blob = base64.decode(line.slice(line.lastIndexOf(" ") + 1, -1));
    blob[11] = (blob[11] as number) ^ 1;
    const altered = `— ${w2.name} ${base64.encode(blob)}\n`;
    expect(checkCosignatures(noteWith(cosign(w1), altered), two)).toMatchObject({ ok: false });
    // A bad line of a listed witness counts as missing; it does not veto the others' cosignatures.
    expect(checkCosignatures(noteWith(cosign(w1), altered, cosign(w3)), two)).toMatchObject({ ok: true });
  });

  it("an unknown witness's valid cosignature is ignored", () => {
    const stranger = witness("stranger.example");
    expect(checkCosignatures(noteWith(cosign(w1), cosign(stranger)), two)).toMatchObject({ ok: false });
    expect(checkCosignatures(noteWith(cosign(w1), cosign(stranger), cosign(w3)), two)).toMatchObject({ ok: true });
  });

  it("a listed key's cosignature under another name is not that witness's", () => {
    expect(checkCosignatures(noteWith(cosign(w1), cosign(w2, TEXT, 1, "other.example")), two)).toMatchObject({
      ok: false,
    });
  });

  it("one witness's lines count once", () => {
    const result = checkCosignatures(noteWith(cosign(w1), cosign(w1, TEXT, 1_700_000_001), cosign(w1)), two);
    expect(result).toMatchObject({ ok: false, reason: "witness_policy_unmet", cosigned: [{ name: w1.name }] });
  });

  it("a cosignature of another checkpoint (another size), and the log's own signature", () => {
    const other = TEXT.replace("\n3\n", "\n4\n");
    expect(checkCosignatures(noteWith(cosign(w1, other), cosign(w2, other)), two)).toMatchObject({ ok: false });
    expect(checkCosignatures(NOTE, { witnesses: ALL, threshold: 1 })).toMatchObject({ ok: false });
  });

  it("a note that is no signed note", () => {
    expect(checkCosignatures(TEXT, two)).toMatchObject({ ok: false, reason: "witness_policy_unmet" });
  });
});

describe("a policy that is no policy", () => {
  const invalid = { ok: false, reason: "witness_policy_invalid" };
  it("a threshold above the witnesses listed, or below 1", () => {
    expect(checkCosignatures(noteWith(cosign(w1)), { witnesses: ALL, threshold: 4 })).toMatchObject(invalid);
    expect(checkCosignatures(noteWith(cosign(w1)), { witnesses: ALL, threshold: 0 })).toMatchObject(invalid);
    expect(checkCosignatures(noteWith(cosign(w1)), { witnesses: ALL, threshold: 1.5 })).toMatchObject(invalid);
    expect(checkCosignatures(noteWith(cosign(w1)), { witnesses: [] })).toMatchObject(invalid);
  });

  it("a vkey that is no witness's, and one key listed twice (even under two names)", () => {
    expect(checkCosignatures(NOTE, { witnesses: [w1.vkey, "nope"], threshold: 1 })).toMatchObject(invalid);
    const renamed = cosignerVerifierKey({ name: "alias.example", publicKey: w1.publicKey });
    expect(checkCosignatures(NOTE, { witnesses: [w1.vkey, renamed], threshold: 2 })).toMatchObject(invalid);
  });
});
