/*
 * fixed_base: batches of multiples of the group generators, [k_i] G, the
 * work of a development key setup (every key point is [k]G for a scalar k
 * the setup knows). The CPU implementation behind the backends'
 * fixed_base_g1 / fixed_base_g2 ops, and the tables a device uploads.
 *
 * Method: an 8-bit window table of the generator, T[w][d - 1] = d 2^(8w) G
 * for w < ZKP_FB_WINDOWS and d = 1..ZKP_FB_DIGITS, so [k]G is the sum of
 * T[w][byte w of k - 1] over the non-zero bytes of the canonical k: at
 * most 32 mixed additions, no doublings, then one batch conversion to
 * affine per chunk (Montgomery's simultaneous inversion).
 *
 * Results are affine points in the key's layout, infinity stored as
 * (0, 0) (k = 0); they depend only on the scalars, never on the thread
 * count or the backend: affine coordinates are canonical.
 */
#ifndef ZKPD_FIXED_BASE_H
#define ZKPD_FIXED_BASE_H

#include <stddef.h>

#include "zkpd/ec.h"
#include "zkpd/ff.h"
#include "zkpd/pool.h"

#define ZKP_FB_BITS 8
#define ZKP_FB_WINDOWS 32 /* 256 / ZKP_FB_BITS */
#define ZKP_FB_DIGITS 255 /* 2^ZKP_FB_BITS - 1 */
#define ZKP_FB_TABLE_POINTS ((size_t)ZKP_FB_WINDOWS * ZKP_FB_DIGITS)

/* The generator's table, ZKP_FB_TABLE_POINTS affine points laid out
 * T[w * ZKP_FB_DIGITS + d - 1] (780 KiB for G1, 1.5 MiB for G2; free()
 * them). NULL when out of memory. Cost: 8,160 additions and one batch
 * inversion, a few milliseconds. */
zkp_g1_affine *zkp_fixed_base_g1_table(void);
zkp_g2_affine *zkp_fixed_base_g2_table(void);

/* out[i] = [scalars[i]] G for i < n, with table from the function above,
 * in chunks of 1,024 points over pool (NULL: the calling thread).
 * Errors: ZKP_ERR_NOMEM (a chunk's workspace). */
int zkp_fixed_base_g1s(zkp_g1_affine *out, const zkp_g1_affine *table, const zkp_fr *scalars,
		       size_t n, zkp_pool *pool);
int zkp_fixed_base_g2s(zkp_g2_affine *out, const zkp_g2_affine *table, const zkp_fr *scalars,
		       size_t n, zkp_pool *pool);

#endif
