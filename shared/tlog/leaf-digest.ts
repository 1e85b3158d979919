// A leaf hash (RFC 9162: SHA-256 of 0x00 and the entry) through WebCrypto, for the registration's hot path: the
// envelope's bytes are a kilobyte or more, which the platform's native digest hashes in a few microseconds where
// the pure-JavaScript one (merkle.ts's leafHash, kept for the synchronous tree code) takes about a hundred
// (bench/RESULTS.md, registration). Both give the same bytes (test/shared/tlog-merkle.test.ts).
import type { Hash } from "./merkle";

export async function leafDigest(data: Uint8Array): Promise<Hash> {
  const prefixed = new Uint8Array(data.length + 1);
  prefixed.set(data, 1);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", prefixed));
}
