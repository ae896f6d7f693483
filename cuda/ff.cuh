/*
 * Fp (6 x 64) and Fr (4 x 64) Montgomery arithmetic for the CUDA kernels,
 * written once as __host__ __device__ code so the host build tests it
 * against the C ff layer.
 *
 * Invariants (the same as include/zkpd/ff.h, so buffers of zkp_fp, zkp_fr
 * and zkp_g1_affine cross to the device without conversion):
 *  - values are in Montgomery form (R = 2^384 for Fp, 2^256 for Fr), fully
 *    reduced, 64-bit limbs least significant first;
 *  - outputs come first and may alias inputs;
 *  - the constants are those of src/ff/fp.c and src/ff/fr.c.
 *
 * Limb width: 64-bit limbs keep the layout of the C structs and the code
 * short. On the device a 64 x 64 product is __umul64hi plus a low multiply,
 * which the compiler lowers to 32-bit IMADs with carry chains of its
 * choosing, and the carries of the additions are compares; on the host it
 * is one unsigned __int128 product. Hand-written
 * 32-bit PTX (mad.lo.cc / madc.hi.cc chains over 12 or 8 limbs, as sppark's
 * mont_t does) usually saves 20-30 % of the instructions of a Montgomery
 * multiplication. Measure on a GPU before switching: IMAD count and issue
 * rate per SM from Nsight Compute on the MSM accumulation kernel and on a
 * 2^26 NTT stage, and the wall time of both, 64-bit vs 32-bit limbs.
 *
 * Without nvcc (a plain C++ compiler), the qualifiers are defined empty so
 * the unit tests compile this header as ordinary host code.
 */
#ifndef ZKPD_CUDA_FF_CUH
#define ZKPD_CUDA_FF_CUH

#include <stdint.h>

#ifdef __CUDACC__
#define ZKP_HD __host__ __device__ __forceinline__
#else
#define ZKP_HD inline
#endif
/* Loops over limbs are unrolled so constant tables fold into immediates
 * (nvcc's host pass, whose code only runs the launchers, leaves them). */
#if defined(__CUDA_ARCH__)
#define ZKP_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define ZKP_UNROLL
#else
#define ZKP_UNROLL _Pragma("GCC unroll 16")
#endif

/* ---- 64-bit limb primitives ---- */

/* hi:lo = a * b */
ZKP_HD uint64_t mul_wide(uint64_t a, uint64_t b, uint64_t *hi)
{
#ifdef __CUDA_ARCH__
	*hi = __umul64hi(a, b);
	return a * b;
#else
	unsigned __int128 p = (unsigned __int128)a * b;
	*hi = (uint64_t)(p >> 64);
	return (uint64_t)p;
#endif
}

/* a + b + *carry, carry in and out 0 or 1. */
ZKP_HD uint64_t add_carry(uint64_t a, uint64_t b, uint64_t *carry)
{
	uint64_t s = a + b;
	uint64_t c = s < a;
	uint64_t r = s + *carry;
	*carry = c | (r < s);
	return r;
}

/* a - b - *borrow, borrow in and out 0 or 1. */
ZKP_HD uint64_t sub_borrow(uint64_t a, uint64_t b, uint64_t *borrow)
{
	uint64_t d = a - b;
	uint64_t c = a < b;
	uint64_t r = d - *borrow;
	*borrow = c | (d < *borrow);
	return r;
}

/* (hi:lo) = a * b + c + d: never overflows 128 bits. */
ZKP_HD uint64_t mul_add2(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *hi)
{
	uint64_t h, cy = 0;
	uint64_t lo = mul_wide(a, b, &h);
	lo = add_carry(lo, c, &cy);
	h += cy;
	cy = 0;
	lo = add_carry(lo, d, &cy);
	*hi = h + cy;
	return lo;
}

/* ---- field parameters ---- */

/* Constants are returned by index from local tables: every call site has a
 * constant index after unrolling, so they become immediates on both sides
 * and no __constant__ memory is needed. */
struct fp_params {
	enum { N = 6 };
	ZKP_HD static uint64_t mod(int i)
	{
		const uint64_t m[6] = {
			0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
			0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
		};
		return m[i];
	}
	ZKP_HD static uint64_t one(int i) /* R mod p */
	{
		const uint64_t m[6] = {
			0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
			0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
		};
		return m[i];
	}
	ZKP_HD static uint64_t r2(int i) /* R^2 mod p */
	{
		const uint64_t m[6] = {
			0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
			0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL,
		};
		return m[i];
	}
	static const uint64_t qinv = 0x89f3fffcfffcfffdULL; /* -p^-1 mod 2^64 */
};

struct fr_params {
	enum { N = 4 };
	ZKP_HD static uint64_t mod(int i)
	{
		const uint64_t m[4] = {
			0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
			0x73eda753299d7d48ULL,
		};
		return m[i];
	}
	ZKP_HD static uint64_t one(int i)
	{
		const uint64_t m[4] = {
			0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
			0x1824b159acc5056fULL,
		};
		return m[i];
	}
	ZKP_HD static uint64_t r2(int i)
	{
		const uint64_t m[4] = {
			0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL,
			0x0748d9d99f59ff11ULL,
		};
		return m[i];
	}
	static const uint64_t qinv = 0xfffffffeffffffffULL;
};

/* A field element: the same layout as zkp_fp / zkp_fr. */
template <class F> struct fe {
	uint64_t l[F::N];
};

typedef fe<fp_params> dfp;
typedef fe<fr_params> dfr;

/* ---- arithmetic ---- */

template <class F> ZKP_HD void fe_set_zero(fe<F> *ret)
{
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		ret->l[i] = 0;
}

template <class F> ZKP_HD void fe_set_one(fe<F> *ret)
{
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		ret->l[i] = F::one(i);
}

template <class F> ZKP_HD bool fe_is_zero(const fe<F> *a)
{
	uint64_t t = 0;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		t |= a->l[i];
	return t == 0;
}

template <class F> ZKP_HD bool fe_eq(const fe<F> *a, const fe<F> *b)
{
	uint64_t t = 0;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		t |= a->l[i] ^ b->l[i];
	return t == 0;
}

/* ret = t - m if t >= m else t, for t < 2m (branch-free select). */
template <class F> ZKP_HD void fe_reduce_once(fe<F> *ret, const uint64_t *t)
{
	uint64_t s[F::N], borrow = 0;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		s[i] = sub_borrow(t[i], F::mod(i), &borrow);
	uint64_t keep = (uint64_t)0 - borrow; /* all ones when t < m */
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		ret->l[i] = (t[i] & keep) | (s[i] & ~keep);
}

/* Both moduli leave a spare top bit, so a + b < 2m fits in N limbs. */
template <class F> ZKP_HD void fe_add(fe<F> *ret, const fe<F> *a, const fe<F> *b)
{
	uint64_t t[F::N], carry = 0;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		t[i] = add_carry(a->l[i], b->l[i], &carry);
	fe_reduce_once<F>(ret, t);
}

template <class F> ZKP_HD void fe_dbl(fe<F> *ret, const fe<F> *a)
{
	fe_add<F>(ret, a, a);
}

template <class F> ZKP_HD void fe_sub(fe<F> *ret, const fe<F> *a, const fe<F> *b)
{
	uint64_t t[F::N], borrow = 0, carry = 0;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		t[i] = sub_borrow(a->l[i], b->l[i], &borrow);
	uint64_t mask = (uint64_t)0 - borrow; /* add m back when a < b */
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		ret->l[i] = add_carry(t[i], F::mod(i) & mask, &carry);
}

template <class F> ZKP_HD void fe_neg(fe<F> *ret, const fe<F> *a)
{
	uint64_t nz = 0;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		nz |= a->l[i];
	uint64_t mask = (uint64_t)0 - (uint64_t)(nz != 0), borrow = 0;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		ret->l[i] = sub_borrow(F::mod(i), a->l[i], &borrow) & mask;
}

/*
 * ret = a b R^-1 mod m: CIOS without the extra carry word (both moduli
 * have a spare top bit; Koc, Acar, Kaliski 1996, with the carry elimination
 * of the gnark-crypto write-up), the same algorithm as src/ff/mont_int.h.
 * 2N^2 + N 64 x 64 products.
 */
template <class F> ZKP_HD void fe_mul(fe<F> *ret, const fe<F> *a, const fe<F> *b)
{
	const int n = F::N;
	uint64_t t[F::N];
	ZKP_UNROLL
	for (int i = 0; i < n; i++)
		t[i] = 0;
	ZKP_UNROLL
	for (int i = 0; i < n; i++) {
		uint64_t A, C;
		t[0] = mul_add2(a->l[0], b->l[i], t[0], 0, &A);
		uint64_t m = t[0] * F::qinv;
		mul_add2(m, F::mod(0), t[0], 0, &C);
		ZKP_UNROLL
		for (int j = 1; j < n; j++) {
			uint64_t p = mul_add2(a->l[j], b->l[i], t[j], A, &A);
			t[j - 1] = mul_add2(m, F::mod(j), p, C, &C);
		}
		t[n - 1] = C + A;
	}
	fe_reduce_once<F>(ret, t);
}

/* A dedicated squaring saves about a quarter of the products; on the GPU
 * its longer carry chains have to be measured against the plain product
 * first, so this is the multiplication for now. */
template <class F> ZKP_HD void fe_sqr(fe<F> *ret, const fe<F> *a)
{
	fe_mul<F>(ret, a, a);
}

/* Canonical integer limbs from Montgomery form: a R^-1 = mont(a, 1). */
template <class F> ZKP_HD void fe_from_mont(uint64_t *ret, const fe<F> *a)
{
	fe<F> one, r;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		one.l[i] = i == 0;
	fe_mul<F>(&r, a, &one);
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		ret[i] = r.l[i];
}

/* Montgomery form from a canonical integer v < m: mont(v, R^2) = v R. */
template <class F> ZKP_HD void fe_to_mont(fe<F> *ret, const uint64_t *v)
{
	fe<F> a, r2;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++) {
		a.l[i] = v[i];
		r2.l[i] = F::r2(i);
	}
	fe_mul<F>(ret, &a, &r2);
}

#endif
