/*
 * post_dev: development PoSt vanilla proofs, for tests: the
 * FallbackPoStSectorProof a Filecoin node would hand a prover for a sector
 * sealed by porep_seal.h (zkp porep seal's sealer), at the challenges
 * derived from the PoSt randomness, the sector id and the sector's
 * position in the whole proof (post_vanilla.h), with every path read off
 * tree R built over the sector's replica.
 */
#ifndef ZKPD_POST_DEV_H
#define ZKPD_POST_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/porep_seal.h"
#include "zkpd/post_vanilla.h"

/* *out (malloc'ed) is the bincode proof of sec as sector sector_id, the
 * sector_index-th of the whole proof, for proof type pt (its kind's
 * challenge count). The sector's shape must be pt's size's. ZKP_ERR_INVAL
 * naming what differs, the challenge derivation's errors, ZKP_ERR_NOMEM. */
int zkp_post_dev_vanilla(uint8_t **out, size_t *len, const zkp_porep_sector *sec,
			 uint64_t sector_id, const zkp_post_proof_type *pt,
			 const uint8_t randomness[32], uint64_t sector_index, zkp_error *err);

#endif
