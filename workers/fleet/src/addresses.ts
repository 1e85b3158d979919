// Member and owner addresses: any valid Bitcoin address, bech32 lowercased so one address has one spelling.
import { decodeAddress } from "../../../shared/bitcoin/address";
import { AppError } from "../../../shared/errors";

export function normalizeAddress(address: string): string {
  if (!decodeAddress(address).ok)
    throw new AppError("invalid_body", { detail: "address: not a valid Bitcoin address" });
  return /^(bc|tb|bcrt)1/i.test(address) ? address.toLowerCase() : address;
}
