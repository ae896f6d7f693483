/*
 * The per-thread body of the unpack kernel (cuda/bitpack.cu): value i of a
 * packed vector (include/zkpd/bitpack.h) read from its word arrays and
 * dense values in device memory. __host__ __device__ so the host unit test
 * runs it against zkp_bitpack_unpack.
 */
#ifndef ZKPD_CUDA_BITPACK_CUH
#define ZKPD_CUDA_BITPACK_CUH

#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "zkpd/bitpack.h"
}

#include "ff.cuh"

/* A packed vector of n values as the kernel reads it (bitpack.h's
 * layout, device pointers). */
struct bitpack_view {
	const uint64_t *before, *dense, *one;
	const dfr *vals;
};

/* The arrays of the packed vector of n values at buf (host code: the
 * launcher's caller and the test). */
static inline bitpack_view bitpack_at(const void *buf, size_t n)
{
	const uint64_t *p = (const uint64_t *)buf;
	size_t w = zkp_bitpack_words(n);
	bitpack_view v;
	v.before = p;
	v.dense = p + w;
	v.one = p + 2 * w;
	v.vals = (const dfr *)((const char *)buf + zkp_bitpack_dense_off(n));
	return v;
}

/* Thread i < n: out[i] = value i. A warp's 32 lanes share one word's
 * masks (two loads, broadcast) and write 32 consecutive values. */
ZKP_HD void bitpack_unpack_one(dfr *out, const bitpack_view *v, size_t i)
{
	size_t w = i / 64;
	uint64_t bit = (uint64_t)1 << (i % 64), dense = v->dense[w];
	if (dense & bit)
		out[i] = v->vals[v->before[w] + popcount64(dense & (bit - 1))];
	else if (v->one[w] & bit)
		fe_set_one(&out[i]);
	else
		fe_set_zero(&out[i]);
}

#endif
