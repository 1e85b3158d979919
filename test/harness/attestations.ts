// Attestations signed in Node by bip322-js (the independent reference signer) for every address type, handed to
// the verify project's tests as the TEST_ATTESTATIONS binding (bip322-js does not load in workerd).
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { NETWORK, p2pkh, p2sh, p2tr, p2wpkh, TEST_NETWORK, WIF } from "@scure/btc-signer";
import { Signer } from "bip322-js";
import { buildAttestationMessage, type ExtensionValue } from "../../shared/attest/canonical";
import type { Identity } from "../../shared/attest/identities";

export type AddressKind = "p2pkh" | "p2sh-p2wpkh" | "p2wpkh" | "p2tr";

export interface SignedAttestation {
  name: string;
  kind: AddressKind;
  address: string;
  message: string;
  signature: string;
  identities: Identity[];
  issuedAt: string;
}

function keyFor(kind: AddressKind, testnet: boolean) {
  const net = testnet ? TEST_NETWORK : NETWORK;
  const privateKey = secp256k1.utils.randomSecretKey();
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const address = {
    p2pkh: () => p2pkh(publicKey, net).address,
    "p2sh-p2wpkh": () => p2sh(p2wpkh(publicKey, net), net).address,
    p2wpkh: () => p2wpkh(publicKey, net).address,
    p2tr: () => p2tr(publicKey.subarray(1), undefined, net).address,
  }[kind]() as string;
  return { wif: WIF(net).encode(privateKey), address };
}

function sign(
  name: string,
  kind: AddressKind,
  options: {
    identities?: Identity[];
    extensions?: Record<string, ExtensionValue>;
    ageSeconds?: number;
    testnet?: boolean;
  } = {},
): SignedAttestation {
  const { wif, address } = keyFor(kind, options.testnet ?? false);
  const issuedAt = new Date(Date.now() - (options.ageSeconds ?? 3600) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const identities = options.identities ?? [{ protocol: "github", identifier: `fixture-${name}` }];
  const message = buildAttestationMessage({
    address,
    identities,
    nonce: randomBytes(16).toString("hex"),
    issuedAt,
    extensions: options.extensions,
  });
  return { name, kind, address, message, signature: Signer.sign(wif, address, message), identities, issuedAt };
}

export function signedAttestations(): SignedAttestation[] {
  const kinds: AddressKind[] = ["p2pkh", "p2sh-p2wpkh", "p2wpkh", "p2tr"];
  const shared = [{ protocol: "github", identifier: "several" }];
  return [
    ...kinds.map((kind) => sign(kind, kind)),
    sign("bond", "p2wpkh", { extensions: { bond: 100_000 } }),
    sign("aud", "p2tr", { extensions: { aud: "https://app.example" } }),
    sign("expired", "p2wpkh", { extensions: { expires: "2020-01-01T00:00:00Z" } }),
    sign("testnet", "p2wpkh", { extensions: { network: "testnet" }, testnet: true }),
    sign("several-older", "p2wpkh", { identities: shared, ageSeconds: 7200 }),
    sign("several-newer", "p2tr", { identities: shared, ageSeconds: 60 }),
    sign("x-handle", "p2wpkh", { identities: [{ protocol: "twitter", identifier: "@legacy" }] }),
    // One address per stake-gate case (test/verify/stake-gate.test.ts): each is funded differently.
    ...["enough", "little", "young", "chain-down", "hono", "node", "cache"].map((c) => sign(`stake-${c}`, "p2wpkh")),
  ];
}
