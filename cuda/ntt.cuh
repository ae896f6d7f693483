/*
 * Per-element pieces of the NTT kernels (cuda/ntt.cu), __host__ __device__
 * so the host unit test runs them through whole transforms and compares
 * with the C ntt layer. The butterflies are those of src/ntt/ntt.c: one
 * table tw[j] = omega^j (j < n/2) serves both directions through
 * omega^-i = -omega^(n/2 - i), the sign absorbed into the butterfly.
 */
#ifndef ZKPD_CUDA_NTT_CUH
#define ZKPD_CUDA_NTT_CUH

#include <stddef.h>
#include <stdint.h>

#include "ff.cuh"

ZKP_HD size_t ntt_bitrev(size_t i, unsigned log_n)
{
#ifdef __CUDA_ARCH__
	return (size_t)(__brevll((unsigned long long)i) >> (64 - log_n));
#else
	uint64_t v = i;
	v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
	v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
	v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
	v = __builtin_bswap64(v);
	return (size_t)(v >> (64 - log_n));
#endif
}

/* Decimation in frequency: (a, b) <- (a + b, (a - b) w), w = omega^(+-idx). */
ZKP_HD void ntt_bfly_dif(dfr *a, dfr *b, const dfr *tw, size_t n, size_t idx, bool inverse)
{
	dfr s;
	if (idx == 0) {
		fe_sub(&s, a, b);
		fe_add(a, a, b);
		*b = s;
	} else if (!inverse) {
		fe_sub(&s, a, b);
		fe_add(a, a, b);
		fe_mul(b, &s, &tw[idx]);
	} else {
		fe_sub(&s, b, a); /* (a - b) * -omega^(n/2 - idx) */
		fe_add(a, a, b);
		fe_mul(b, &s, &tw[n / 2 - idx]);
	}
}

/* Decimation in time: (a, b) <- (a + b w, a - b w). */
ZKP_HD void ntt_bfly_dit(dfr *a, dfr *b, const dfr *tw, size_t n, size_t idx, bool inverse)
{
	dfr s;
	if (idx == 0) {
		s = *b;
		fe_sub(b, a, &s);
		fe_add(a, a, &s);
	} else if (!inverse) {
		fe_mul(&s, b, &tw[idx]);
		fe_sub(b, a, &s);
		fe_add(a, a, &s);
	} else {
		fe_mul(&s, b, &tw[n / 2 - idx]); /* b w = -s */
		fe_add(b, a, &s);
		fe_sub(a, a, &s);
	}
}

/* Butterfly q (< n/2) of the stage with half block size m: the pair
 * (i, i + m) and the twiddle index. */
ZKP_HD void ntt_pair(size_t *i, size_t *idx, size_t q, size_t n, size_t m)
{
	size_t j = q & (m - 1);
	*i = (q - j) * 2 + j;
	*idx = j * (n / (2 * m));
}

/* The coset factor lo[k & mask] hi[k >> split] of logical index k. */
ZKP_HD void ntt_coset_factor(dfr *ret, const dfr *lo, const dfr *hi, size_t k, unsigned split)
{
	fe_mul(ret, &lo[k & (((size_t)1 << split) - 1)], &hi[k >> split]);
}

/* The pointwise step of H on a coset: ret = (a b - c) zinv. */
ZKP_HD void ntt_h_point(dfr *ret, const dfr *a, const dfr *b, const dfr *c, const dfr *zinv)
{
	dfr t;
	fe_mul(&t, a, b);
	fe_sub(&t, &t, c);
	fe_mul(ret, &t, zinv);
}

#endif
