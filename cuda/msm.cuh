/*
 * Per-element pieces of the G1 MSM kernels (cuda/msm.cu), __host__
 * __device__ so the host unit test checks them: the window choice, the
 * signed (Booth) digits of a canonical scalar, and the packing of a sorted
 * entry.
 *
 * Digits: with scalar bits b_j (b_-1 = 0), window w of width c has digit
 *   d_w = (b_{wc} .. b_{wc+c-1} as an integer) + b_{wc-1} - 2^c b_{wc+c-1},
 * so d_w is in [-2^(c-1), 2^(c-1)] and sum_w d_w 2^(wc) = s whenever bit
 * Kc - 1 of s is 0; K = ceil(256 / c) windows make that hold for every
 * s < r < 2^255. Each digit reads c + 1 bits and needs no carry from the
 * window below, so every window is computed independently.
 */
#ifndef ZKPD_CUDA_MSM_CUH
#define ZKPD_CUDA_MSM_CUH

#include <stddef.h>
#include <stdint.h>

#include "ff.cuh"

#define MSM_MIN_WINDOW 8
#define MSM_MAX_WINDOW 20
/* A sorted entry is a point index with the digit's sign in the top bit. */
#define MSM_SIGN_BIT 0x80000000u

/* Window width for n points: about log2(n) - 6, so that a bucket receives
 * around 64 points per window on random scalars while the bucket sums
 * (2 K 2^(c-1) additions) stay a small share of the n K mixed additions. */
ZKP_HD unsigned msm_window(size_t n)
{
	unsigned lg = 0;
	while (lg < 63 && ((size_t)1 << (lg + 1)) <= n)
		lg++;
	unsigned c = lg > 6 ? lg - 6 : 0;
	if (c < MSM_MIN_WINDOW)
		c = MSM_MIN_WINDOW;
	if (c > MSM_MAX_WINDOW)
		c = MSM_MAX_WINDOW;
	return c;
}

ZKP_HD unsigned msm_windows(unsigned c)
{
	return (256 + c - 1) / c;
}

/* len <= 32 bits of the 256-bit s starting at bit pos (bits past 255 are 0). */
ZKP_HD uint32_t scalar_bits(const uint64_t s[4], unsigned pos, unsigned len)
{
	unsigned limb = pos / 64, off = pos % 64;
	if (limb >= 4)
		return 0;
	uint64_t v = s[limb] >> off;
	if (off && limb + 1 < 4)
		v |= s[limb + 1] << (64 - off);
	return (uint32_t)(v & (((uint64_t)1 << len) - 1));
}

/* The digit d_w of window w (width c, 1 <= c <= 30). */
ZKP_HD int32_t booth_digit(const uint64_t s[4], unsigned w, unsigned c)
{
	uint32_t x = w ? scalar_bits(s, w * c - 1, c + 1) : scalar_bits(s, 0, c) << 1;
	int32_t d = (int32_t)(x >> 1) + (int32_t)(x & 1);
	return d - (int32_t)(((x >> c) & 1) << c);
}

#endif
