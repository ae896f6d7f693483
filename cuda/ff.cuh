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
 * Limb width: values are stored as 64-bit limbs (the layout of the C
 * structs) but computed on as 32-bit ones, which cost nothing to split and
 * join in registers: the GPU multiplies 32 x 32 bits natively, and PTX's
 * carry-flag instructions (carry.cuh) chain the additions. A 64 x 64
 * product would be four such multiplications and the carries of 64-bit
 * additions compares. bench/ptx-figures.sh counts what this saves
 * (docs/benchmarks.md).
 *
 * Without nvcc (a plain C++ compiler), the qualifiers are defined empty so
 * the unit tests compile this header as ordinary host code.
 */
#ifndef ZKPD_CUDA_FF_CUH
#define ZKPD_CUDA_FF_CUH

#include <stdint.h>

#include "carry.cuh"

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
	static const uint32_t qinv = 0xfffcfffdU; /* -p^-1 mod 2^32 */
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
	static const uint32_t qinv = 0xffffffffU;
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

/* ---- 32-bit limb views ---- */

/* The i-th 32-bit limb of the modulus, least significant first. */
template <class F> ZKP_HD uint32_t fe_mod32(int i)
{
	return (uint32_t)(F::mod(i / 2) >> (32 * (i & 1)));
}

template <class F> ZKP_HD void fe_split(uint32_t *w, const fe<F> *a)
{
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++) {
		w[2 * i] = (uint32_t)a->l[i];
		w[2 * i + 1] = (uint32_t)(a->l[i] >> 32);
	}
}

template <class F> ZKP_HD void fe_join(fe<F> *ret, const uint32_t *w)
{
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		ret->l[i] = (uint64_t)w[2 * i + 1] << 32 | w[2 * i];
}

/* ret = t - m if t >= m else t, for t < 2m (branch-free select). */
template <class F> ZKP_HD void fe_reduce_once(fe<F> *ret, const uint32_t *t)
{
	enum { n = 2 * F::N };
	uint32_t s[n], w[n];
	carry_chain c;
	s[0] = c.sub_cc(t[0], fe_mod32<F>(0));
	ZKP_UNROLL
	for (int i = 1; i < n; i++)
		s[i] = c.subc_cc(t[i], fe_mod32<F>(i));
	uint32_t keep = c.subc(0, 0); /* all ones when t < m */
	ZKP_UNROLL
	for (int i = 0; i < n; i++)
		w[i] = (t[i] & keep) | (s[i] & ~keep);
	fe_join<F>(ret, w);
}

/* Both moduli leave a spare top bit, so a + b < 2m fits in the limbs. */
template <class F> ZKP_HD void fe_add(fe<F> *ret, const fe<F> *a, const fe<F> *b)
{
	enum { n = 2 * F::N };
	uint32_t x[n], y[n], t[n];
	fe_split<F>(x, a);
	fe_split<F>(y, b);
	carry_chain c;
	t[0] = c.add_cc(x[0], y[0]);
	ZKP_UNROLL
	for (int i = 1; i < n - 1; i++)
		t[i] = c.addc_cc(x[i], y[i]);
	t[n - 1] = c.addc(x[n - 1], y[n - 1]);
	fe_reduce_once<F>(ret, t);
}

template <class F> ZKP_HD void fe_dbl(fe<F> *ret, const fe<F> *a)
{
	fe_add<F>(ret, a, a);
}

template <class F> ZKP_HD void fe_sub(fe<F> *ret, const fe<F> *a, const fe<F> *b)
{
	enum { n = 2 * F::N };
	uint32_t x[n], y[n], t[n];
	fe_split<F>(x, a);
	fe_split<F>(y, b);
	carry_chain c;
	t[0] = c.sub_cc(x[0], y[0]);
	ZKP_UNROLL
	for (int i = 1; i < n; i++)
		t[i] = c.subc_cc(x[i], y[i]);
	uint32_t mask = c.subc(0, 0); /* add m back when a < b */
	carry_chain d;
	t[0] = d.add_cc(t[0], fe_mod32<F>(0) & mask);
	ZKP_UNROLL
	for (int i = 1; i < n - 1; i++)
		t[i] = d.addc_cc(t[i], fe_mod32<F>(i) & mask);
	t[n - 1] = d.addc(t[n - 1], fe_mod32<F>(n - 1) & mask);
	fe_join<F>(ret, t);
}

template <class F> ZKP_HD void fe_neg(fe<F> *ret, const fe<F> *a)
{
	enum { n = 2 * F::N };
	uint32_t x[n], t[n], nz = 0;
	fe_split<F>(x, a);
	ZKP_UNROLL
	for (int i = 0; i < n; i++)
		nz |= x[i];
	uint32_t mask = (uint32_t)0 - (uint32_t)(nz != 0);
	carry_chain c;
	t[0] = c.sub_cc(fe_mod32<F>(0), x[0]);
	ZKP_UNROLL
	for (int i = 1; i < n - 1; i++)
		t[i] = c.subc_cc(fe_mod32<F>(i), x[i]);
	t[n - 1] = c.subc(fe_mod32<F>(n - 1), x[n - 1]);
	ZKP_UNROLL
	for (int i = 0; i < n; i++)
		t[i] &= mask;
	fe_join<F>(ret, t);
}

/*
 * Products of one row, x[0..n-1] * y (n even), kept as two accumulators
 * so that no carry chain has to follow two overlapping sums: lo32(x_j y)
 * lands at limb j and hi32(x_j y) at j + 1, so the products of the even
 * limbs of x tile an accumulator e (weights 2^0 .. 2^(32(n-1))) and those
 * of the odd limbs one o that starts a limb higher (weights 2^32 ..
 * 2^(32n)). The value held is e + 2^32 o. Both keep their limbs in
 * aligned pairs (2k, 2k + 1), which the GPU's 64-bit multiply-adds want.
 */

/* e += x_even y; the carry out of e's top limb has o's top limb's weight. */
template <int n>
ZKP_HD void fe_mad_even(uint32_t *e, uint32_t *o, const uint32_t *x, uint32_t y)
{
	carry_chain c;
	e[0] = c.mad_lo_cc(x[0], y, e[0]);
	e[1] = c.madc_hi_cc(x[0], y, e[1]);
	ZKP_UNROLL
	for (int j = 2; j < n; j += 2) {
		e[j] = c.madc_lo_cc(x[j], y, e[j]);
		e[j + 1] = c.madc_hi_cc(x[j], y, e[j + 1]);
	}
	o[n - 1] = c.addc(o[n - 1], 0);
}

/* o += x_odd y, on chain c: its first operation takes the carry c holds
 * when carry_in, none otherwise (a template argument, so that no branch
 * sits inside a chain even unoptimised). The sum is known to fit (see
 * fe_mul), so the top limb drops no carry. */
template <int n, bool carry_in>
ZKP_HD void fe_mad_odd(carry_chain &c, uint32_t *o, const uint32_t *x, uint32_t y)
{
	if constexpr (carry_in)
		o[0] = c.madc_lo_cc(x[1], y, o[0]);
	else
		o[0] = c.mad_lo_cc(x[1], y, o[0]);
	o[1] = c.madc_hi_cc(x[1], y, o[1]);
	ZKP_UNROLL
	for (int j = 3; j < n - 1; j += 2) {
		o[j - 1] = c.madc_lo_cc(x[j], y, o[j - 1]);
		o[j] = c.madc_hi_cc(x[j], y, o[j]);
	}
	o[n - 2] = c.madc_lo_cc(x[n - 1], y, o[n - 2]);
	o[n - 1] = c.madc_hi(x[n - 1], y, o[n - 1]);
}

/*
 * ret = a b R^-1 mod m: CIOS over 32-bit limbs (Koc, Acar, Kaliski 1996),
 * n = 2N iterations of t = (t + a b_i + q m) / 2^32 with
 * q = t_0 (-m^-1) mod 2^32, t held as e + 2^32 o (fe_mad_even).
 *
 * Bounds: with a < m, b_i, q < 2^32 and t < 2m at the start of an
 * iteration, t + a b_i + q m < 2m 2^32 < 2^(32(n+1)) and the new t is
 * below 2m again, both moduli leaving a spare top bit (2m < 2^(32n)). So
 * e + 2^32 o fits its n + 1 limbs of weight and o never carries out of
 * its top limb. One subtraction of m at the end.
 *
 * The division by 2^32: after the reduction e_0 = 0, and
 * (e + 2^32 o) / 2^32 = (o + e_1) + 2^32 (e >> 64). So the old o becomes
 * the new e, with e_1 added to its limb 0, and the old e shifted down by
 * two limbs (pairs stay aligned) the new o. The carry of that one
 * addition has o's limb 0's weight and runs straight into the next odd
 * row's chain. The first iteration starts from t = 0, where the products
 * need no additions at all.
 * 4n^2 + n multiplications.
 */
template <class F> ZKP_HD void fe_mul(fe<F> *ret, const fe<F> *a, const fe<F> *b)
{
	enum { n = 2 * F::N };
	uint32_t x[n], y[n], m[n], e[n], o[n];
	fe_split<F>(x, a);
	fe_split<F>(y, b);
	ZKP_UNROLL
	for (int j = 0; j < n; j++)
		m[j] = fe_mod32<F>(j);
	ZKP_UNROLL
	for (int i = 0; i < n; i++) {
		if (i == 0) {
			ZKP_UNROLL
			for (int j = 0; j < n; j += 2) {
				e[j] = mul_lo32(x[j], y[0]);
				e[j + 1] = mul_hi32(x[j], y[0]);
				o[j] = mul_lo32(x[j + 1], y[0]);
				o[j + 1] = mul_hi32(x[j + 1], y[0]);
			}
		} else {
			uint32_t ne[n], no[n];
			carry_chain c;
			ne[0] = c.add_cc(o[0], e[1]);
			ZKP_UNROLL
			for (int j = 1; j < n; j++)
				ne[j] = o[j];
			ZKP_UNROLL
			for (int j = 0; j < n - 2; j++)
				no[j] = e[j + 2];
			no[n - 2] = 0;
			no[n - 1] = 0;
			fe_mad_odd<n, true>(c, no, x, y[i]);
			fe_mad_even<n>(ne, no, x, y[i]);
			ZKP_UNROLL
			for (int j = 0; j < n; j++) {
				e[j] = ne[j];
				o[j] = no[j];
			}
		}
		uint32_t q = e[0] * F::qinv;
		carry_chain c;
		fe_mad_odd<n, false>(c, o, m, q);
		fe_mad_even<n>(e, o, m, q); /* e_0 becomes 0 */
	}
	uint32_t t[n];
	carry_chain c;
	t[0] = c.add_cc(o[0], e[1]);
	ZKP_UNROLL
	for (int j = 1; j < n - 1; j++)
		t[j] = c.addc_cc(o[j], e[j + 1]);
	t[n - 1] = c.addc(o[n - 1], 0);
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
