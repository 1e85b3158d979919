// What every browser wallet answers (wallets.ts finds them; xverse.ts is loaded only when chosen), kept apart so the
// lazily loaded wallet modules depend on it rather than on the list that loads them.

export interface BrowserWallet {
  /** The address the wallet will sign with; undefined when it refuses or has none. */
  address(): Promise<string | undefined>;
  /** A BIP-322 signature (base64) of `message` by `address`; undefined when the wallet refuses. */
  sign(address: string, message: string): Promise<string | undefined>;
}

/** Runs one wallet step; a refusal, whatever its shape, becomes undefined. */
export async function asked<T>(step: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await step();
  } catch {
    return undefined;
  }
}
