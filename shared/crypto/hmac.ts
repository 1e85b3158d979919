// HMAC-SHA256 through WebCrypto (workerd and Node): signing, and verifying in constant time.

export async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, data));
}

/** WebCrypto's HMAC verify compares in constant time (CRYPTO_memcmp in both workerd and Node). */
export async function hmacSha256Verify(key: Uint8Array, mac: Uint8Array, data: Uint8Array): Promise<boolean> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  return crypto.subtle.verify("HMAC", cryptoKey, mac, data);
}
