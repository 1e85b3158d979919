// A stored envelope read back by its registry kind (the audit bundle's `kind` column, the envelopes table's): parsed
// by the project's own parser for that kind, a federation delegation or revocation by the federation parser, with
// its signature check beside it. What the offline bundle verifier and `oc restore` read a bundle's envelopes with.
import * as agent from "./agent";
import * as pledge from "./pledge";
import type { StoredParse } from "./stored-fields";

export type StoredEnvelopeParse =
  | { ok: true; parsed: StoredParse; verifySignature: () => { ok: boolean; detail?: string } }
  | { ok: false; detail: string };

export async function parseStored(kind: string, json: unknown): Promise<StoredEnvelopeParse> {
  const e = json as Record<string, unknown> | null;
  const signerAddress = String((e?.signer as { address?: unknown } | undefined)?.address);
  switch (kind) {
    case "delegation":
    case "subdelegation":
    case "action":
    case "revocation": {
      const result =
        kind === "delegation" && agent.isFederationPrincipal(e)
          ? await agent.parseFederationDelegation(e)
          : kind === "revocation" && signerAddress.startsWith(agent.FEDERATION_PREFIX)
            ? await agent.parseFederationRevocation(e)
            : await agent.parseAgentEnvelope(kind, e);
      if (!result.ok) return { ok: false, detail: result.detail ?? "does not parse" };
      return { ok: true, parsed: result, verifySignature: () => agent.verifyEnvelopeSignatures(result) };
    }
    case "pledge":
    case "outcome":
    case "abandonment": {
      const result =
        kind === "pledge"
          ? await pledge.parsePledgeEnvelope(e)
          : kind === "outcome"
            ? await pledge.parseOutcomeEnvelope(e)
            : await pledge.parseAbandonmentEnvelope(e);
      if (!result.ok) return { ok: false, detail: result.detail ?? "does not parse" };
      return { ok: true, parsed: result, verifySignature: () => pledge.verifyPledgeSignature(result) };
    }
    default:
      return { ok: false, detail: `unknown kind ${kind}` };
  }
}
