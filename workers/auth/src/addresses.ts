// Which Bitcoin addresses may sign in here: well-formed, of a type the verifier supports, on this host's network.
import { type BitcoinNetwork, decodeAddress, isAddressOnNetwork } from "../../../shared/bitcoin/address";
import { AppError, type Reason } from "../../../shared/errors";
import type { AuthBindings } from "./env";

const NETWORKS: readonly BitcoinNetwork[] = ["mainnet", "testnet", "regtest"];
const SIGN_IN_TYPES = new Set(["p2pkh", "p2sh", "p2wpkh", "p2tr"]);

export function signinNetwork(env: AuthBindings): BitcoinNetwork {
  const configured = env.BITCOIN_NETWORK ?? "mainnet";
  return NETWORKS.includes(configured as BitcoinNetwork) ? (configured as BitcoinNetwork) : "mainnet";
}

/** The address in canonical form (bech32 lowercased), or the given reason when it cannot sign in here. */
export function requireAddress(
  address: string,
  network: BitcoinNetwork,
  reason: Reason,
  networkReason: Reason = reason,
): string {
  const decoded = decodeAddress(address);
  if (!decoded.ok) throw new AppError(reason, { detail: "addr: not a valid Bitcoin address" });
  if (!isAddressOnNetwork(decoded, network))
    throw new AppError(networkReason, { detail: `addr: not a ${network} address` });
  if (!SIGN_IN_TYPES.has(decoded.type)) throw new AppError(reason, { detail: "addr: address type cannot sign in" });
  return /^(bc|tb|bcrt)1/i.test(address) ? address.toLowerCase() : address;
}
