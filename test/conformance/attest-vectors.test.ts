// Every OC Attest v1 vector of ../vectors/oc-attest (index.json), checked by category through the
// project's own library: canonical bytes, identities line, id, score_v0, builder rejections and BIP-322 signatures.
import { describe, expect, it } from "vitest";
import { buildAttestationMessage } from "../../shared/attest/canonical";
import { attestationId } from "../../shared/attest/id";
import { formatIdentities, type Identity } from "../../shared/attest/identities";
import { parseAttestationMessage } from "../../shared/attest/parse";
import { scoreV0 } from "../../shared/attest/score";
import { preVerifyAttestation } from "../../shared/attest/verify";
import index from "../vectors/oc-attest/index.json";
import tv01 from "../vectors/oc-attest/tv01.json";
import tv02 from "../vectors/oc-attest/tv02.json";
import tv03 from "../vectors/oc-attest/tv03.json";
import tv04 from "../vectors/oc-attest/tv04.json";
import tv05 from "../vectors/oc-attest/tv05.json";
import tv06 from "../vectors/oc-attest/tv06.json";
import tv07 from "../vectors/oc-attest/tv07.json";
import tv08 from "../vectors/oc-attest/tv08.json";
import tv09 from "../vectors/oc-attest/tv09.json";
import tv10 from "../vectors/oc-attest/tv10.json";
import tv11 from "../vectors/oc-attest/tv11.json";
import tv12 from "../vectors/oc-attest/tv12.json";
import tv13 from "../vectors/oc-attest/tv13.json";
import tv14 from "../vectors/oc-attest/tv14.json";
import tv15 from "../vectors/oc-attest/tv15.json";
import tv16 from "../vectors/oc-attest/tv16.json";
import tv17 from "../vectors/oc-attest/tv17.json";
import tv18 from "../vectors/oc-attest/tv18.json";
import tv19 from "../vectors/oc-attest/tv19.json";
import tv20 from "../vectors/oc-attest/tv20.json";
import tv21 from "../vectors/oc-attest/tv21.json";
import tv22 from "../vectors/oc-attest/tv22.json";
import tv23 from "../vectors/oc-attest/tv23.json";

interface Vector {
  id: string;
  category: string;
  description: string;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
}

const VECTORS: Vector[] = [
  tv01,
  tv02,
  tv03,
  tv04,
  tv05,
  tv06,
  tv07,
  tv08,
  tv09,
  tv10,
  tv11,
  tv12,
  tv13,
  tv14,
  tv15,
  tv16,
  tv17,
  tv18,
  tv19,
  tv20,
  tv21,
  tv22,
  tv23,
];
const NOW = Date.parse("2026-05-01T00:00:00Z");

function build(input: Record<string, unknown>): string {
  return buildAttestationMessage({
    address: input.address as string,
    identities: input.identities as Identity[],
    nonce: input.nonce as string,
    issuedAt: input.issued_at as string,
    extensions: input.extensions as Record<string, string> | undefined,
  });
}

const CHECKS: Record<string, (vector: Vector) => Promise<void> | void> = {
  canonical_message({ input, expected }) {
    expect(build(input)).toBe(expected.message);
    // What the builder emits, the strict parser accepts.
    const parsed = parseAttestationMessage(expected.message as string);
    expect(parsed.ok && parsed.message.address).toBe(input.address);
  },
  identities_format({ input, expected }) {
    expect(formatIdentities(input.identities as Identity[])).toBe(expected.formatted);
  },
  async attestation_id({ input, expected }) {
    expect(await attestationId(input.message as string)).toBe(expected.attestation_id);
  },
  score_v0({ input, expected }) {
    expect(scoreV0(input.sats_bonded as number, input.days_unspent as number)).toBe(expected.score_v0);
  },
  reject({ input, expected }) {
    expect(expected.rejects).toBe(true);
    expect(() => formatIdentities(input.identities as Identity[])).toThrow(expected.reason_contains as string);
    // The full builder refuses the same identities.
    expect(() =>
      buildAttestationMessage({
        address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        identities: input.identities as Identity[],
        nonce: "0011223344556677889900aabbccddee",
        issuedAt: "2026-04-22T12:00:00Z",
      }),
    ).toThrow(expected.reason_contains as string);
  },
  async bip322_signature({ input, expected }) {
    const result = await preVerifyAttestation({
      addr: input.address as string,
      msg: input.message as string,
      sig: input.signature as string,
      scheme: input.scheme as string,
      allowTestNetworks: false,
      now: NOW,
    });
    expect(result.attestationId).toBe(await attestationId(input.message as string));
    if (expected.valid) {
      expect(result.codes).toEqual(["sig_ok_bip322"]);
      expect(result).toMatchObject({ signatureOk: true, continueToChain: true, scheme: "bip322", network: "mainnet" });
    } else {
      expect(result.codes).toEqual(["sig_invalid"]);
      expect(result).toMatchObject({ signatureOk: false, continueToChain: false });
    }
  },
};

describe("OC Attest v1 conformance vectors", () => {
  it("covers exactly the vectors listed in index.json, in order", () => {
    expect(VECTORS.map(({ id, category, description }) => ({ id, category, description }))).toEqual(index);
  });

  it.each(VECTORS.map((vector) => [`${vector.id} (${vector.category}): ${vector.description}`, vector] as const))(
    "%s",
    async (_name, vector) => {
      const check = CHECKS[vector.category];
      expect(check, `no check for category ${vector.category}`).toBeDefined();
      await check?.(vector);
    },
  );
});
