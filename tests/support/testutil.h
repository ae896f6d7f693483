/*
 * Shared helpers for the unit tests: a seeded random generator whose seed is
 * printed so a failing run can be replayed (ZKPD_TEST_SEED=<seed>), hex
 * parsing, GMP conversions, and the JSON vector file.
 */
#ifndef ZKPD_TESTUTIL_H
#define ZKPD_TESTUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gmp.h>
#include <jansson.h>

/* Seeds the generator from ZKPD_TEST_SEED or /dev/urandom and prints
 * "seed: N (replay with ZKPD_TEST_SEED=N)" on stderr. Returns the seed. */
uint64_t tu_seed(void);
uint64_t tu_rand64(void); /* xoshiro256** */
void tu_rand_bytes(void *buf, size_t n);

/* Big-endian hex ("0x..." or bare) into bytes; returns the byte count or -1.
 * The value is right-aligned (left-padded with zeros) in out[0..outlen). */
int tu_hex_to_bytes(uint8_t *out, size_t outlen, const char *hex);
/* Hex of any length into a freshly allocated buffer; *len gets its size. */
uint8_t *tu_hex_alloc(const char *hex, size_t *len);

/* Little-endian limbs <-> mpz. */
void tu_mpz_from_limbs(mpz_t z, const uint64_t *l, size_t n);
void tu_limbs_from_mpz(uint64_t *l, size_t n, const mpz_t z);

/* tests/vectors/bls12_381_vectors.json (origin in tests/vectors/README.md);
 * loaded once, never freed. */
json_t *tu_vectors(void);
/* Reads a whole file from tests/vectors; aborts the test on failure. */
uint8_t *tu_read_vector_file(const char *name, size_t *len);
/* Reads a whole file (malloc'd, one spare byte); exits on failure. */
uint8_t *tu_read_file(const char *path, size_t *len);
/* Whether files a and b hold the same bytes; when not, *at (may be NULL)
 * is the first byte that differs, or the shorter one's length. */
bool tu_files_equal(const char *a, const char *b, size_t *at);

#endif
