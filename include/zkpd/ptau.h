/*
 * ptau: INSECURE development powers-of-tau files in snarkjs's .ptau format.
 *
 * A real powers-of-tau file comes out of a multi-party ceremony in which
 * nobody learns tau, alpha and beta. The file written here is made from
 * values this process draws (OpenSSL RAND_bytes) or derives from a seed, and
 * whoever knows them can forge proofs for every circuit set up from it. It
 * exists so that `snarkjs groth16 setup` can make .zkey keys for tests and
 * benchmarks without the ceremony's `prepare phase2` step, which is slow
 * (about 17 minutes at power 15 on two cores).
 *
 * Layout (binfile "ptau", version 1, 11 sections in this order; N = 2^power;
 * points affine, each coordinate 48 bytes little-endian Montgomery, G2 as
 * x.c0 x.c1 y.c0 y.c1, infinity all zero; docs/formats.md, '.ptau'):
 *    1  header: u32 48, q (48 bytes LE), u32 power, u32 ceremony power (= power)
 *    2  [tau^j]_1,         j < 2N - 1
 *    3  [tau^j]_2,         j < N
 *    4  [alpha tau^j]_1,   j < N
 *    5  [beta tau^j]_1,    j < N
 *    6  [beta]_2
 *    7  contributions: u32 0 (none recorded)
 *   12  for p = 0 .. power + 1: [L_i(tau)]_1, i < 2^p
 *   13  for p = 0 .. power:     [L_i(tau)]_2
 *   14  for p = 0 .. power:     [alpha L_i(tau)]_1
 *   15  for p = 0 .. power:     [beta L_i(tau)]_1
 * where L_i is the Lagrange basis of the 2^p-th roots of unity in snarkjs's
 * convention (5-based, natural order). Sections 12-15 are what snarkjs's
 * `powersoftau prepare phase2` derives from sections 2-5 by an inverse group
 * FFT; in the block p = power + 1 that FFT runs on tau^0 .. tau^(2N-2) with
 * the missing top power set to zero, and the values here match it exactly:
 * L_i(tau) - tau^(2N-1) w^i / (2N).
 *
 * Cost: about 3 * 2^(power+2) G1 and 2^(power+1) G2 fixed-base
 * multiplications (32 mixed additions each), spread over pool; memory about
 * 64 bytes per point of the largest block plus 2.3 MiB of tables.
 */
#ifndef ZKPD_PTAU_H
#define ZKPD_PTAU_H

#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/pool.h"

#define ZKP_PTAU_MAX_POWER 24

/* Writes an INSECURE development .ptau of the given power (1 ..
 * ZKP_PTAU_MAX_POWER) to path, atomically (temporary file, then rename).
 * seed NULL: tau, alpha, beta from RAND_bytes; otherwise derived from *seed
 * (reproducible, and known to anyone holding the seed). pool may be NULL.
 * Errors: ZKP_ERR_INVAL (power out of range, tau on a domain), ZKP_ERR_NOMEM,
 * ZKP_ERR_IO (randomness, writing). */
int zkp_ptau_write_dev(const char *path, unsigned power, const uint64_t *seed, zkp_pool *pool,
		       zkp_error *err);

#endif
