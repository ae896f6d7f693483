/*
 * Random field elements for the unit tests, from testutil's seeded
 * generator (so ZKPD_TEST_SEED replays them): 512 random bits reduced mod
 * r, so every value of Fr is (all but) equally likely, 0 and 1 included.
 */
#ifndef ZKPD_TEST_FR_H
#define ZKPD_TEST_FR_H

#include "testutil.h"
#include "zkpd/ff.h"

static inline void tu_rand_fr(zkp_fr *r)
{
	uint64_t wide[2 * ZKP_FR_LIMBS];
	for (int i = 0; i < 2 * ZKP_FR_LIMBS; i++)
		wide[i] = tu_rand64();
	zkp_fr_from_wide(r, wide);
}

#endif
