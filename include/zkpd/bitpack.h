/*
 * bitpack: a vector of Fr values, most of them 0 or 1, packed for the bus.
 * A 32 GiB PoRep partition's witness is 130.2 M values of 32 bytes (4.17
 * GB), 98.7 % of them 0 or 1 (docs/benchmarks.md); packed, it is a bit for
 * each value that is 1, a bit for each that is neither ("dense"), and the
 * dense values alone: about 103 MB. The prover packs a witness on the host, uploads the
 * packed bytes and a device unpacks them into the full vector
 * (zkp_backend_unpack), so the witness crosses the bus in a fortieth of
 * the bytes.
 *
 * Layout of n values, n_dense of them dense, in one buffer (W =
 * zkp_bitpack_words(n), words of 64 values, value i in bit i % 64 of word
 * i / 64):
 *   bytes [0, 8W)              before[w]: the dense values in words < w;
 *   bytes [8W, 16W)            dense[w]: bit set when the value is dense;
 *   bytes [16W, 24W)           one[w]: bit set when the value is 1 (never
 *                              with its dense bit; the bits past n are 0);
 *   from zkp_bitpack_dense_off(n) (a multiple of 64 bytes): the n_dense
 *                              dense values in index order, 32 bytes each.
 * Values compare in their Montgomery form: 0 is all zero limbs, 1 is
 * ZKP_FR_ONE; any other value is dense, so unpacking gives back the input
 * bit for bit.
 *
 * Packing is two passes over the input, each spread over a pool (NULL: the
 * caller): zkp_bitpack_scan writes the three word arrays and returns
 * n_dense, which sizes the buffer; zkp_bitpack_gather then copies the
 * dense values. The scan reads every value once; the gather reads only the
 * words with a dense value. Neither fails; buffers are the caller's.
 * Threads: no shared state; any number at once on distinct buffers.
 */
#ifndef ZKPD_BITPACK_H
#define ZKPD_BITPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/ff.h"
#include "zkpd/pool.h"

static inline size_t zkp_bitpack_words(size_t n)
{
	return (n + 63) / 64;
}

/* Where the dense values start: after the three word arrays, rounded up
 * to 64 bytes. */
static inline size_t zkp_bitpack_dense_off(size_t n)
{
	return (3 * 8 * zkp_bitpack_words(n) + 63) & ~(size_t)63;
}

static inline size_t zkp_bitpack_bytes(size_t n, size_t n_dense)
{
	return zkp_bitpack_dense_off(n) + n_dense * sizeof(zkp_fr);
}

/* Whether a buffer of `bytes` can hold a packed vector of n values, n_dense
 * of them dense (n_dense <= n, nothing overflows). */
static inline bool zkp_bitpack_fits(size_t bytes, size_t n, size_t n_dense)
{
	return n_dense <= n && n <= SIZE_MAX / 64 && bytes >= zkp_bitpack_bytes(n, n_dense);
}

/* Fills the word arrays at the start of buf (at least
 * zkp_bitpack_dense_off(n) bytes, 8-byte aligned) from v[0, n); returns
 * the number of dense values. */
size_t zkp_bitpack_scan(void *buf, const zkp_fr *v, size_t n, zkp_pool *pool);

/* Copies v's dense values into buf after its word arrays, as
 * zkp_bitpack_scan of the same v wrote them into buf (which holds at least
 * zkp_bitpack_bytes(n, n_dense) bytes). */
void zkp_bitpack_gather(void *buf, const zkp_fr *v, size_t n, zkp_pool *pool);

/* out[i - begin] = value i, for begin <= i < end <= n, of the packed
 * vector in buf (as scan and gather wrote it). */
void zkp_bitpack_unpack(zkp_fr *out, const void *buf, size_t n, size_t begin, size_t end);

#endif
