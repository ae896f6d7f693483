/*
 * check_rng: the seeded generator of the result checkers (check_msm,
 * check_ntt, zkpd-bench check). xoshiro256** seeded through splitmix64, so
 * a run is replayed from its printed seed, and a stream per chunk of work
 * (check_rng_seed(seed, chunk)) makes parallel generation independent of
 * the thread count. Not for secrets.
 */
#ifndef ZKPD_CHECK_RNG_H
#define ZKPD_CHECK_RNG_H

#include <stdint.h>

typedef struct {
	uint64_t s[4];
} check_rng;

static inline uint64_t check_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void check_rng_seed(check_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
	for (int i = 0; i < 4; i++)
		r->s[i] = check_splitmix(&x);
}

static inline uint64_t check_rng_next(check_rng *r)
{
	uint64_t *s = r->s, t = s[1] << 17;
	uint64_t x = s[1] * 5;
	uint64_t ret = ((x << 7) | (x >> 57)) * 9;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return ret;
}

#endif
