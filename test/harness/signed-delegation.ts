// A delegation from a signed-in owner to a fresh agent key, signed with bip322-js as an agent's tool would: the
// browser tests register it with an API token so the dashboard has an envelope to list.
import { Signer } from "bip322-js";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { randomHex } from "../../shared/crypto/digest";
import { buildDelegation } from "../../shared/envelopes/agent";
import { isoSeconds } from "../../shared/time";

const HOUR_MS = 3_600_000;

export async function signedDelegation(principal: { wif: string; address: string }) {
  const agent = generateSigningWif(undefined, "p2wpkh");
  const now = Date.now();
  return buildDelegation(
    {
      principal: principal.address,
      agent: agent.address,
      scopes: ["stamp:sign(mime=text/markdown)"],
      bond: null,
      issued_at: isoSeconds(now - HOUR_MS),
      expires_at: isoSeconds(now + 24 * HOUR_MS),
      nonce: randomHex(16),
    },
    (id) => Signer.sign(principal.wif, principal.address, id) as string,
  );
}
