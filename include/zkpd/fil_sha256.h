/*
 * fil_sha256: the SHA-256 hashes Filecoin uses outside circuits
 * (rust-fil-proofs filecoin-hashers/src/sha256.rs, Sha256Function).
 *
 * Filecoin keeps every SHA-256 digest inside the 255-bit field by clearing the
 * two most significant bits of its last byte (trim_to_fr32: out[31] &= 0x3f),
 * so the 32 bytes read as a little-endian integer are below 2^254 < r and are
 * always a canonical Fr encoding (zkp_fr_from_le accepts them).
 *
 * Thread-safe, no state. Each call is one OpenSSL EVP digest (a context
 * allocation plus the compression rounds).
 */
#ifndef ZKPD_FIL_SHA256_H
#define ZKPD_FIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* out = SHA-256(data[0..len)) with out[31] &= 0x3f (Sha256Function::hash).
 * 0, or ZKP_ERR_UNSUPPORTED if OpenSSL cannot compute SHA-256. */
int zkp_fil_sha256_trim(uint8_t out[32], const void *data, size_t len);

/* out = trimmed SHA-256(left || right): a binary Merkle node of Filecoin's
 * SHA-256 trees (Sha256Function::node and hash2). Same errors. */
int zkp_fil_sha256_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);

#endif
