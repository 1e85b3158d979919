// The kit's witness policy against the harness's witness (test/harness/witness-server.mjs, written from the C2SP
// specs apart from the project's code): a checkpoint submitted by tlog-witness add-checkpoint comes back with the
// witness's cosignature line, which the kit's policy then counts; the same witness listed under a threshold of 2
// with a second one that never cosigned is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCosignatures } from "../../shared/kit/envelopes";
import { startWitness, type Witness } from "../harness/witness-server.mjs";
import { auditKey, cosigner, envelopeEntries, LOG_ORIGIN, signedCheckpoint } from "../helpers/monitor-log";

let witness: Witness;
beforeAll(async () => {
  witness = await startWitness({ name: "witness.example/policy" });
});
afterAll(() => witness.close());

describe("a policy over the harness witness's cosignature", () => {
  it("the witness cosigns a first checkpoint; one of one meets the policy, one of two below a threshold of 2 does not", async () => {
    const key = auditKey();
    witness.trust({ origin: LOG_ORIGIN, vkey: key.verifier });
    const note = signedCheckpoint(await envelopeEntries(3), { key });
    const res = await fetch(`${witness.url}/add-checkpoint`, { method: "POST", body: `old 0\n\n${note}` });
    expect(res.status, await res.clone().text()).toBe(200);
    const cosigned = note + (await res.text());
    expect(checkCosignatures(cosigned, { witnesses: [witness.vkey] })).toMatchObject({
      ok: true,
      cosigned: [{ name: "witness.example/policy" }],
    });
    expect(checkCosignatures(note, { witnesses: [witness.vkey] })).toMatchObject({ reason: "witness_policy_unmet" });
    const absent = cosigner("witness.example/absent");
    expect(checkCosignatures(cosigned, { witnesses: [witness.vkey, absent.vkey], threshold: 2 })).toMatchObject({
      ok: false,
      reason: "witness_policy_unmet",
    });
  }, 60_000);
});
