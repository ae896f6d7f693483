/*
 * snap_dev: a SnapDeals update done in memory, for development and tests.
 * A sealed sector (porep_seal.h) whose replica and comm_c are the old
 * ones takes new data: tree D new is built over the data (binary
 * SHA-256), phi = H_gen(comm_d_new, comm_r_old), every node is encoded as
 * new = old + data * rho(high bits of its index), tree R new is built over
 * the new replica (the old tree R's shape) and comm_r_new =
 * Poseidon-2(comm_c, root_r_new), as storage-proofs-update's vanilla
 * encoder does. A partition's witness is then read off the three trees the
 * way a PartitionProof carries it, at the challenges derived from
 * comm_r_new.
 *
 * Memory: three trees of the sector, about 3 * 1.15 * 32 bytes per node
 * beyond the sealed sector; meant for test sizes up to 2^16 nodes.
 * Threads: built on the caller; read-only afterwards except
 * zkp_snap_dev_partition, which writes into d (one caller at a time).
 */
#ifndef ZKPD_SNAP_DEV_H
#define ZKPD_SNAP_DEV_H

#include "zkpd/error.h"
#include "zkpd/porep_seal.h"
#include "zkpd/snap.h"

typedef struct zkp_snap_dev zkp_snap_dev;

/* data: s->nodes canonical field elements. h: one of s->hs. The sector's
 * tree R must have the shape's arities and node count. ZKP_ERR_INVAL
 * naming what differs, ZKP_ERR_NOMEM. */
int zkp_snap_dev_new(zkp_snap_dev **ret, const zkp_snap_shape *s, const zkp_porep_sector *old,
		     const zkp_fr *data, unsigned h, zkp_error *err);
void zkp_snap_dev_free(zkp_snap_dev *d);

const zkp_fr *zkp_snap_dev_comm_r_old(const zkp_snap_dev *d);
const zkp_fr *zkp_snap_dev_comm_d_new(const zkp_snap_dev *d);
const zkp_fr *zkp_snap_dev_comm_r_new(const zkp_snap_dev *d);
/* The new replica's node i. */
const zkp_fr *zkp_snap_dev_replica_new(const zkp_snap_dev *d, uint64_t i);

/* Partition k's witness at its derived challenges (their node indices in
 * nodes, if not NULL: shape.challenges entries). The arrays *w points to
 * are d's and hold until the next call. ZKP_ERR_INVAL for k out of
 * range. */
int zkp_snap_dev_partition(zkp_snap_dev *d, unsigned k, zkp_snap_witness *w, uint64_t *nodes,
			   zkp_error *err);

#endif
