// Xverse through its own client library, @sats-connect/core (docs.xverse.app, "Sats Connect"): `wallet_connect`
// asks for the payment address, `signMessage` with protocol BIP322 signs the challenge (without it, Xverse signs a
// payment address with legacy ECDSA, which this host does not take). Loaded by wallets.ts only when Xverse is chosen.
import { AddressPurpose, MessageSigningProtocols, request } from "@sats-connect/core";
import { asked, type BrowserWallet } from "./browser-wallet";

const PROVIDER = "XverseProviders.BitcoinProvider";

export function xverse(): BrowserWallet {
  return {
    address: () =>
      asked(async () => {
        const answer = await request(
          "wallet_connect",
          { addresses: [AddressPurpose.Payment], message: "Sign in with your Bitcoin address." },
          PROVIDER,
        );
        if (answer.status !== "success") return undefined;
        return answer.result.addresses.find((entry) => entry.purpose === AddressPurpose.Payment)?.address;
      }),
    sign: (address, message) =>
      asked(async () => {
        const params = { address, message, protocol: MessageSigningProtocols.BIP322 };
        const answer = await request("signMessage", params, PROVIDER);
        return answer.status === "success" ? answer.result.signature : undefined;
      }),
  };
}
