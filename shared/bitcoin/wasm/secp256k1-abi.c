/*
 * The ABI that shared/bitcoin/secp256k1-wasm.ts calls: fixed input buffers in linear memory (their addresses are
 * exported as globals), plain i32 calls that answer 1 (yes) or 0 (no, or input libsecp256k1 refuses). Only public
 * data crosses it: the module verifies signatures and recovers or re-encodes public keys, never holds a secret, so it
 * uses libsecp256k1's static context (no allocation, no randomization needed). No imports.
 * Built by scripts/build-secp256k1-wasm.sh as one translation unit with the library, so that the verifier's hashing
 * can use libsecp256k1's own SHA-256 (internal to it) instead of a JavaScript one.
 */
#include <stddef.h>
#include "secp256k1.c"

#define EXPORT(name) __attribute__((export_name(name)))
#define CTX secp256k1_context_static

unsigned char HASH_INPUT[32];
unsigned char SIGNATURE_INPUT[64];
unsigned char PUBLIC_KEY_INPUT[65];
unsigned char X_ONLY_PUBLIC_KEY_INPUT[32];
#define DATA_INPUT_SIZE 4096
unsigned char DATA_INPUT[DATA_INPUT_SIZE];
unsigned char DIGEST_OUTPUT[32];

/* Called by libsecp256k1 on API misuse or a failed self-test: trap (the caller fails closed), never print. */
void secp256k1_default_illegal_callback_fn(const char *message, void *data) {
  (void)message;
  (void)data;
  __builtin_trap();
}

void secp256k1_default_error_callback_fn(const char *message, void *data) {
  (void)message;
  (void)data;
  __builtin_trap();
}

/* The self-test libsecp256k1 asks of users of the static context (its SHA-256 on this platform). */
EXPORT("initializeContext") void initialize_context(void) { secp256k1_selftest(); }

/* PUBLIC_KEY_INPUT (key_length bytes), SIGNATURE_INPUT (compact r || s), HASH_INPUT. strict = 0 accepts high S. */
EXPORT("verify") int verify(int key_length, int strict) {
  secp256k1_pubkey key;
  secp256k1_ecdsa_signature signature;
  if (key_length != 33 && key_length != 65) return 0;
  if (!secp256k1_ec_pubkey_parse(CTX, &key, PUBLIC_KEY_INPUT, (size_t)key_length)) return 0;
  if (!secp256k1_ecdsa_signature_parse_compact(CTX, &signature, SIGNATURE_INPUT)) return 0;
  if (!strict) secp256k1_ecdsa_signature_normalize(CTX, &signature, &signature);
  return secp256k1_ecdsa_verify(CTX, &signature, HASH_INPUT, &key);
}

/* X_ONLY_PUBLIC_KEY_INPUT, SIGNATURE_INPUT (BIP-340), HASH_INPUT (the 32-byte message). */
EXPORT("verifySchnorr") int verify_schnorr(void) {
  secp256k1_xonly_pubkey key;
  if (!secp256k1_xonly_pubkey_parse(CTX, &key, X_ONLY_PUBLIC_KEY_INPUT)) return 0;
  return secp256k1_schnorrsig_verify(CTX, SIGNATURE_INPUT, HASH_INPUT, 32, &key);
}

/* Writes key to PUBLIC_KEY_INPUT in output_length (33 or 65) bytes. */
static int write_key(const secp256k1_pubkey *key, int output_length) {
  size_t length = (size_t)output_length;
  if (output_length != 33 && output_length != 65) return 0;
  return secp256k1_ec_pubkey_serialize(CTX, PUBLIC_KEY_INPUT, &length, key,
                                       output_length == 33 ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED);
}

/* SIGNATURE_INPUT (compact), HASH_INPUT; the recovered key goes to PUBLIC_KEY_INPUT in output_length bytes. */
EXPORT("recover") int recover(int output_length, int recovery_id) {
  secp256k1_ecdsa_recoverable_signature signature;
  secp256k1_pubkey key;
  if (recovery_id < 0 || recovery_id > 3) return 0;
  if (!secp256k1_ecdsa_recoverable_signature_parse_compact(CTX, &signature, SIGNATURE_INPUT, recovery_id)) return 0;
  if (!secp256k1_ecdsa_recover(CTX, &key, &signature, HASH_INPUT)) return 0;
  return write_key(&key, output_length);
}

/* Re-encodes the key in PUBLIC_KEY_INPUT (input_length bytes) in place, in output_length bytes; 0 if off the curve. */
EXPORT("pointCompress") int point_compress(int input_length, int output_length) {
  secp256k1_pubkey key;
  if (input_length != 33 && input_length != 65) return 0;
  if (!secp256k1_ec_pubkey_parse(CTX, &key, PUBLIC_KEY_INPUT, (size_t)input_length)) return 0;
  return write_key(&key, output_length);
}

/* SHA-256, streamed: sha256Start, then sha256Write for each piece (at most DATA_INPUT_SIZE bytes) placed in
 * DATA_INPUT, then sha256Finish(twice) writes the digest (of the digest, when twice is 1) to DIGEST_OUTPUT. */
static secp256k1_sha256 sha256_state;

EXPORT("sha256Start") void sha256_start(void) { secp256k1_sha256_initialize(&sha256_state); }

EXPORT("sha256Write") int sha256_write(int length) {
  if (length < 0 || length > DATA_INPUT_SIZE) return 0;
  secp256k1_sha256_write(&sha256_state, DATA_INPUT, (size_t)length);
  return 1;
}

EXPORT("sha256Finish") void sha256_finish(int twice) {
  secp256k1_sha256_finalize(&sha256_state, DIGEST_OUTPUT);
  if (!twice) return;
  secp256k1_sha256_initialize(&sha256_state);
  secp256k1_sha256_write(&sha256_state, DIGEST_OUTPUT, 32);
  secp256k1_sha256_finalize(&sha256_state, DIGEST_OUTPUT);
}
