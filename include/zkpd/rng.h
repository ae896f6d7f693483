/*
 * rng: a small seeded generator (xoshiro256**, seeded through splitmix64)
 * for reproducible test data, synthetic circuits and development sectors.
 * NOT for secrets: the prover's randomness comes from OpenSSL's CSPRNG.
 *
 * The same seed gives the same sequence on every platform. A zkp_rng is
 * used by one thread; no allocation, no failure.
 */
#ifndef ZKPD_RNG_H
#define ZKPD_RNG_H

#include <stdint.h>

typedef struct {
	uint64_t s[4];
} zkp_rng;

void zkp_rng_seed(zkp_rng *r, uint64_t seed);
uint64_t zkp_rng_next(zkp_rng *r);

#endif
