/*
 * porep_dev: development partitions for tests and benches. A random sector
 * of a given shape, labelled by the SDR labelling formula over a RANDOM
 * parent graph (not Filecoin's DRG and expander graphs), with its trees D,
 * C and R built natively, and one partition's witness taken from it the
 * way a C1 output carries it. Every row of the partition circuit holds for
 * it, so it exercises the witness pass end to end; it is not a seal, and no
 * Filecoin verifier would accept a proof of it.
 *
 * It is a sector sealed by porep_seal.h over a random graph. Cost: labels *
 * 20 SHA-256 compressions plus the trees; nodes up to 2^16.
 */
#ifndef ZKPD_POREP_DEV_H
#define ZKPD_POREP_DEV_H

#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/porep.h"
#include "zkpd/porep_seal.h"

typedef struct zkp_porep_dev zkp_porep_dev;

/* ZKP_ERR_INVAL for a shape that fails zkp_porep_shape_check or has more
 * than 2^16 nodes; ZKP_ERR_NOMEM. The same seed gives the same sector. */
int zkp_porep_dev_new(zkp_porep_dev **ret, const zkp_porep_shape *s, uint64_t seed,
		      zkp_error *err);
void zkp_porep_dev_free(zkp_porep_dev *d);
/* The partition's witness (owned by d). */
const zkp_porep_witness *zkp_porep_dev_witness(const zkp_porep_dev *d);
/* The native label of challenge i's node in layer (1-based). */
const zkp_fr *zkp_porep_dev_label(const zkp_porep_dev *d, unsigned i, unsigned layer);
/* The sealed sector behind it, and challenge i as a C1 output carries it. */
const zkp_porep_sector *zkp_porep_dev_sector(const zkp_porep_dev *d);
const zkp_porep_c1_challenge *zkp_porep_dev_c1_challenge(const zkp_porep_dev *d, unsigned i);

#endif
