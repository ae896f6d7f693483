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

/* Fp's products in three halves (fp_params::karatsuba) unless the build
 * says 0 (cuda/CMakeLists.txt, ZKPD_CUDA_FP_KARATSUBA). */
#ifndef ZKPD_FP_KARATSUBA
#define ZKPD_FP_KARATSUBA 1
#endif

#ifdef __CUDACC__
#define ZKP_HD __host__ __device__ __forceinline__
#else
#define ZKP_HD inline
#endif
/* The set bits of v (the MSM's bitmaps, the packed witness). */
ZKP_HD unsigned popcount64(uint64_t v)
{
#ifdef __CUDA_ARCH__
	return (unsigned)__popcll((unsigned long long)v);
#else
	return (unsigned)__builtin_popcountll(v);
#endif
}

/* Operations of a few field multiplications or more (the Fp2 products,
 * the curve formulas): inline functions whose inlining is left to nvcc,
 * unlike the Fp and Fr operations, which are forced inline. nvcc inlines
 * the mixed addition into the bucket accumulation, where calls would put
 * the accumulator in local memory; in the window reduction, which holds
 * three points, it keeps a general addition out of line (forced inline
 * there, it spilled 1,116 bytes). bench/ptx-figures.sh lists what stays
 * out of line (docs/benchmarks.md). */
#ifdef __CUDACC__
#define ZKP_HD_CALL __host__ __device__ inline
#else
#define ZKP_HD_CALL inline
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
	static const bool sqr_rows = true; /* 3p < 2^384: fe_sqr's rows fit */
	static const int sum_max = 8;      /* 9p < 2^384: fe_mul_sum's bound */
	/* fe_mul_sum (T <= 2) by fe_kara + fe_redc; cmake
	 * -DZKPD_CUDA_FP_KARATSUBA=OFF builds the CIOS instead, the reference
	 * bench/gpu-check.sh times it against. */
	static const bool karatsuba = ZKPD_FP_KARATSUBA != 0;
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
	static const bool sqr_rows = false; /* 3r > 2^256: fe_sqr multiplies */
	static const int sum_max = 1;       /* 3r > 2^256: no sums of products */
	static const bool karatsuba = false; /* CIOS: the NTT is not bound by multiplies */
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

/* a += b & mask and a -= b over len limbs, modulo 2^(32 len) (the carry or
 * borrow out dropped): one chain each. */
template <int len>
ZKP_HD void fe_limbs_add(uint32_t *a, const uint32_t *b, uint32_t mask = ~0u)
{
	carry_chain c;
	a[0] = c.add_cc(a[0], b[0] & mask);
	ZKP_UNROLL
	for (int j = 1; j < len - 1; j++)
		a[j] = c.addc_cc(a[j], b[j] & mask);
	a[len - 1] = c.addc(a[len - 1], b[len - 1] & mask);
}

template <int len> ZKP_HD void fe_limbs_sub(uint32_t *a, const uint32_t *b)
{
	carry_chain c;
	a[0] = c.sub_cc(a[0], b[0]);
	ZKP_UNROLL
	for (int j = 1; j < len - 1; j++)
		a[j] = c.subc_cc(a[j], b[j]);
	a[len - 1] = c.subc(a[len - 1], b[len - 1]);
}

/* Both moduli leave a spare top bit, so a + b < 2m fits in the limbs. */
template <class F> ZKP_HD void fe_add(fe<F> *ret, const fe<F> *a, const fe<F> *b)
{
	enum { n = 2 * F::N };
	uint32_t y[n], t[n];
	fe_split<F>(t, a);
	fe_split<F>(y, b);
	fe_limbs_add<n>(t, y);
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
	uint32_t mask = c.subc(0, 0), m[n]; /* add m back when a < b */
	ZKP_UNROLL
	for (int i = 0; i < n; i++)
		m[i] = fe_mod32<F>(i);
	fe_limbs_add<n>(t, m, mask);
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

/* ret = -a when neg, else a, without a branch: a warp whose lanes differ
 * in neg runs one path (the MSM's signed digits negate half the points). */
template <class F> ZKP_HD void fe_cneg(fe<F> *ret, const fe<F> *a, bool neg)
{
	fe<F> t;
	fe_neg<F>(&t, a);
	uint64_t keep = (uint64_t)neg - 1; /* all ones when !neg */
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++)
		ret->l[i] = (a->l[i] & keep) | (t.l[i] & ~keep);
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

/* e += x_p y for the even p >= S (all of them by default): one chain
 * from the first such p; the carry out of e's top limb has o's top limb's
 * weight. x is read only at those p. */
template <int n, int S = 0>
ZKP_HD void fe_mad_even(uint32_t *e, uint32_t *o, const uint32_t *x, uint32_t y)
{
	constexpr int p0 = S + (S & 1);
	if constexpr (p0 < n) {
		carry_chain c;
		e[p0] = c.mad_lo_cc(x[p0], y, e[p0]);
		e[p0 + 1] = c.madc_hi_cc(x[p0], y, e[p0 + 1]);
		ZKP_UNROLL
		for (int j = p0 + 2; j < n; j += 2) {
			e[j] = c.madc_lo_cc(x[j], y, e[j]);
			e[j + 1] = c.madc_hi_cc(x[j], y, e[j + 1]);
		}
		o[n - 1] = c.addc(o[n - 1], 0);
	}
}

/* o += x_p y for the odd p >= S, on chain c: its first operation takes
 * the carry c holds when carry_in, none otherwise (a template argument, so
 * that no branch sits inside a chain even unoptimised). The sum is known
 * to fit (see fe_mul, fe_sqr), so the top limb drops no carry. */
template <int n, bool carry_in, int S = 0>
ZKP_HD void fe_mad_odd(carry_chain &c, uint32_t *o, const uint32_t *x, uint32_t y)
{
	constexpr int p1 = S | 1;
	static_assert(p1 < n, "at least one odd product");
	if constexpr (p1 < n - 1) {
		if constexpr (carry_in)
			o[p1 - 1] = c.madc_lo_cc(x[p1], y, o[p1 - 1]);
		else
			o[p1 - 1] = c.mad_lo_cc(x[p1], y, o[p1 - 1]);
		o[p1] = c.madc_hi_cc(x[p1], y, o[p1]);
		ZKP_UNROLL
		for (int j = p1 + 2; j < n - 1; j += 2) {
			o[j - 1] = c.madc_lo_cc(x[j], y, o[j - 1]);
			o[j] = c.madc_hi_cc(x[j], y, o[j]);
		}
		o[n - 2] = c.madc_lo_cc(x[n - 1], y, o[n - 2]);
	} else if constexpr (carry_in) {
		o[n - 2] = c.madc_lo_cc(x[n - 1], y, o[n - 2]);
	} else {
		o[n - 2] = c.mad_lo_cc(x[n - 1], y, o[n - 2]);
	}
	o[n - 1] = c.madc_hi(x[n - 1], y, o[n - 1]);
}

/* ---- steps shared by fe_mul and fe_sqr (CIOS with e, o as above) ---- */

/* The first row, into an empty accumulator: products only, no additions. */
template <int n>
ZKP_HD void fe_row_first(uint32_t *e, uint32_t *o, const uint32_t *x, uint32_t y)
{
	ZKP_UNROLL
	for (int j = 0; j < n; j += 2) {
		e[j] = mul_lo32(x[j], y);
		e[j + 1] = mul_hi32(x[j], y);
		o[j] = mul_lo32(x[j + 1], y);
		o[j + 1] = mul_hi32(x[j + 1], y);
	}
}

/* The division by 2^32 once e_0 = 0, in place: o + e_1 becomes e, e
 * shifted down by two limbs becomes o. The carry of that one addition has
 * o's limb 0's weight and stays in c for the next odd chain. */
template <int n> ZKP_HD void fe_shift(carry_chain &c, uint32_t *e, uint32_t *o)
{
	uint32_t old[n];
	ZKP_UNROLL
	for (int j = 0; j < n; j++)
		old[j] = e[j];
	e[0] = c.add_cc(o[0], old[1]);
	ZKP_UNROLL
	for (int j = 1; j < n; j++)
		e[j] = o[j];
	ZKP_UNROLL
	for (int j = 0; j < n - 2; j++)
		o[j] = old[j + 2];
	o[n - 2] = 0;
	o[n - 1] = 0;
}

/* The reduction step: q m added with q = e_0 (-m^-1) mod 2^32, after
 * which e_0 = 0; the odd chain runs on c (taking its carry when
 * carry_in). */
template <class F, bool carry_in>
ZKP_HD void fe_reduce_row(carry_chain &c, uint32_t *e, uint32_t *o, const uint32_t *m)
{
	enum { n = 2 * F::N };
	uint32_t q = e[0] * F::qinv;
	fe_mad_odd<n, carry_in>(c, o, m, q);
	fe_mad_even<n>(e, o, m, q);
}

/* The last division by 2^32 and the one subtraction of m. */
template <class F> ZKP_HD void fe_cios_finish(fe<F> *ret, const uint32_t *e, const uint32_t *o)
{
	enum { n = 2 * F::N };
	uint32_t t[n];
	carry_chain c;
	t[0] = c.add_cc(o[0], e[1]);
	ZKP_UNROLL
	for (int j = 1; j < n - 1; j++)
		t[j] = c.addc_cc(o[j], e[j + 1]);
	t[n - 1] = c.addc(o[n - 1], 0);
	fe_reduce_once<F>(ret, t);
}

/* ---- products in three halves (Karatsuba), then one reduction ----
 *
 * Where multiplications are what a kernel waits on (the MSM's point
 * additions over Fp: two thirds of their instructions are wide 32 x 32-bit
 * multiply-adds, docs/benchmarks.md), a product of two n-limb values
 * costs 3 (n/2)^2 multiplications instead of n^2:
 *   a b = a1 b1 2^(32n) + mid 2^(16n) + a0 b0,
 *   mid = a0 b1 + a1 b0 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1,
 * a = a1 2^(16n) + a0 and likewise b. Each sum a0 + a1 has n/2 limbs and a
 * carry bit ca; with s' its low limbs, (a0 + a1)(b0 + b1) = s'a s'b +
 * (ca s'b + cb s'a) 2^(16n) + ca cb 2^(32n). mid < 2^(32n - 1) for a, b
 * below 2^(32n - 2) (p < 2^381 = 2^(32n - 3)), so mid is computed modulo
 * 2^(32n), where the ca cb term vanishes and the others are masked
 * additions to the top half: the carry bits cost no multiplication. The
 * 2n-limb product (or a sum of T of them, below T m^2) is then reduced by
 * the rows of fe_reduce_row alone (fe_redc). For p: 108 + 144 wide
 * multiply-adds and 12 for q against CIOS's 288 + 12. */

/* A[b + 2k .. b + 2k + 1] += x_(j0 + 2k) y for k < K, one chain, its carry
 * into A[b + 2K] when that limb exists (len limbs; beyond them the sum is
 * known to fit). That limb holds at most one earlier carry (fe_prod). */
template <int K, int j0, int b, int len>
ZKP_HD void fe_prod_chain(uint32_t *A, const uint32_t *x, uint32_t y)
{
	carry_chain c;
	A[b] = c.mad_lo_cc(x[j0], y, A[b]);
	if constexpr (K == 1 && b + 2 >= len) {
		A[b + 1] = c.madc_hi(x[j0], y, A[b + 1]);
	} else {
		A[b + 1] = c.madc_hi_cc(x[j0], y, A[b + 1]);
		ZKP_UNROLL
		for (int k = 1; k < K - 1; k++) {
			A[b + 2 * k] = c.madc_lo_cc(x[j0 + 2 * k], y, A[b + 2 * k]);
			A[b + 2 * k + 1] = c.madc_hi_cc(x[j0 + 2 * k], y, A[b + 2 * k + 1]);
		}
		if constexpr (K > 1) {
			A[b + 2 * K - 2] = c.madc_lo_cc(x[j0 + 2 * K - 2], y, A[b + 2 * K - 2]);
			if constexpr (b + 2 * K >= len)
				A[b + 2 * K - 1] = c.madc_hi(x[j0 + 2 * K - 2], y, A[b + 2 * K - 1]);
			else
				A[b + 2 * K - 1] = c.madc_hi_cc(x[j0 + 2 * K - 2], y, A[b + 2 * K - 1]);
		}
		if constexpr (b + 2 * K < len)
			A[b + 2 * K] = c.addc(A[b + 2 * K], 0);
	}
}

/* Row i >= 1 of fe_prod: x y_i at limb offset i, split between e
 * (positions p at index p) and o (position p at index p - 1) so that every
 * chain's products sit in aligned pairs: for even i the even limbs of x go
 * to e and the odd ones to o, for odd i the other way round. The limb
 * above a chain's top was written only by the previous row's carry. */
template <int h, int i>
ZKP_HD void fe_prod_rows(uint32_t *e, uint32_t *o, const uint32_t *x, const uint32_t *y)
{
	constexpr int K = h / 2;
	if constexpr (i % 2 == 0) {
		fe_prod_chain<K, 0, i, 2 * h>(e, x, y[i]);
		fe_prod_chain<K, 1, i, 2 * h>(o, x, y[i]);
	} else {
		fe_prod_chain<K, 0, i - 1, 2 * h>(o, x, y[i]);
		fe_prod_chain<K, 1, i + 1, 2 * h>(e, x, y[i]);
	}
	if constexpr (i + 1 < h)
		fe_prod_rows<h, i + 1>(e, o, x, y);
}

/* r[0 .. 2h-1] = x y for h-limb x, y (h even): h rows of h products. */
template <int h> ZKP_HD void fe_prod(uint32_t *r, const uint32_t *x, const uint32_t *y)
{
	static_assert(h % 2 == 0 && h >= 2, "aligned pairs");
	uint32_t e[2 * h], o[2 * h];
	fe_row_first<h>(e, o, x, y[0]);
	ZKP_UNROLL
	for (int j = h; j < 2 * h; j++)
		e[j] = o[j] = 0;
	fe_prod_rows<h, 1>(e, o, x, y);
	carry_chain c; /* x y < 2^(64h): o's last index and the top carry are 0 */
	r[0] = e[0];
	r[1] = c.add_cc(e[1], o[0]);
	ZKP_UNROLL
	for (int p = 2; p < 2 * h - 1; p++)
		r[p] = c.addc_cc(e[p], o[p - 1]);
	r[2 * h - 1] = c.addc(e[2 * h - 1], o[2 * h - 2]);
}

/* s = x's low h limbs + its next h (the carry out dropped); returns the
 * carry as a mask, all ones when it is set. */
template <int h> ZKP_HD uint32_t fe_halves_sum(uint32_t *s, const uint32_t *x)
{
	carry_chain c;
	s[0] = c.add_cc(x[0], x[h]);
	ZKP_UNROLL
	for (int j = 1; j < h; j++)
		s[j] = c.addc_cc(x[j], x[h + j]);
	return 0u - c.addc(0, 0);
}

/* t[0 .. 2n-1] = x y for n-limb x, y < 2^(32n - 2), in three products of
 * n/2 limbs (the comment above). */
template <int n> ZKP_HD void fe_kara(uint32_t *t, const uint32_t *x, const uint32_t *y)
{
	enum { h = n / 2 };
	static_assert(n % 4 == 0, "halves of an even limb count");
	uint32_t p0[n], p2[n], mid[n], sa[h], sb[h];
	fe_prod<h>(p0, x, y);
	fe_prod<h>(p2, x + h, y + h);
	uint32_t mask_a = fe_halves_sum<h>(sa, x), mask_b = fe_halves_sum<h>(sb, y);
	fe_prod<h>(mid, sa, sb);
	/* mid += (ca s'b + cb s'a) 2^(16n), - a0 b0 - a1 b1, all mod 2^(32n) */
	fe_limbs_add<h>(mid + h, sb, mask_a);
	fe_limbs_add<h>(mid + h, sa, mask_b);
	fe_limbs_sub<n>(mid, p0);
	fe_limbs_sub<n>(mid, p2);
	/* t = p0 + mid 2^(16n) + p2 2^(32n) < 2^(64n) */
	ZKP_UNROLL
	for (int j = 0; j < h; j++)
		t[j] = p0[j];
	carry_chain d;
	t[h] = d.add_cc(p0[h], mid[0]);
	ZKP_UNROLL
	for (int j = 1; j < h; j++)
		t[h + j] = d.addc_cc(p0[h + j], mid[j]);
	ZKP_UNROLL
	for (int j = 0; j < h; j++)
		t[n + j] = d.addc_cc(p2[j], mid[h + j]);
	ZKP_UNROLL
	for (int j = 0; j < h - 1; j++)
		t[n + h + j] = d.addc_cc(p2[h + j], 0);
	t[2 * n - 1] = d.addc(p2[n - 1], 0);
}

/*
 * ret = t R^-1 mod m for a 2n-limb t < (sum_max + 1) m^2 (Montgomery's
 * REDC): with t = t_hi R + t_lo, REDC(t) = t_hi + (t_lo + Q m) / R, where
 * Q makes t_lo + Q m divisible by R. The second term is n rows of
 * fe_reduce_row and fe_shift on an accumulator that starts as t_lo (the
 * CIOS of fe_mul_sum without its product rows); it is at most m, and
 * t_hi < T m (m / R) < m - 1 for T = sum_max, so the sum is below 2m: one
 * subtraction. The accumulator stays below 2^384 + 2^32 m + m, inside its
 * n + 1 limbs of weight, as in fe_mul_sum.
 */
template <class F> ZKP_HD void fe_redc(fe<F> *ret, const uint32_t *t)
{
	enum { n = 2 * F::N };
	uint32_t m[n], e[n], o[n], u[n];
	ZKP_UNROLL
	for (int j = 0; j < n; j++) {
		m[j] = fe_mod32<F>(j);
		e[j] = t[j];
		o[j] = 0;
	}
	carry_chain c0;
	fe_reduce_row<F, false>(c0, e, o, m);
	ZKP_UNROLL
	for (int i = 1; i < n; i++) {
		carry_chain c;
		fe_shift<n>(c, e, o);
		fe_reduce_row<F, true>(c, e, o, m);
	}
	carry_chain c;
	u[0] = c.add_cc(o[0], e[1]);
	ZKP_UNROLL
	for (int j = 1; j < n - 1; j++)
		u[j] = c.addc_cc(o[j], e[j + 1]);
	u[n - 1] = c.addc(o[n - 1], 0);
	fe_limbs_add<n>(u, t + n); /* below 2m: no carry out */
	fe_reduce_once<F>(ret, u);
}

/* fe_mul_sum for F::karatsuba: the T products by fe_kara, summed in 2n
 * limbs (below T m^2 < 2^(64N)), one fe_redc. */
template <class F, int T>
ZKP_HD void fe_mul_sum_kara(fe<F> *ret, const fe<F> *const *a, const fe<F> *const *b)
{
	enum { n = 2 * F::N };
	uint32_t x[n], y[n], t[2 * n];
	fe_split<F>(x, a[0]);
	fe_split<F>(y, b[0]);
	fe_kara<n>(t, x, y);
	ZKP_UNROLL
	for (int k = 1; k < T; k++) {
		uint32_t u[2 * n];
		fe_split<F>(x, a[k]);
		fe_split<F>(y, b[k]);
		fe_kara<n>(u, x, y);
		fe_limbs_add<2 * n>(t, u);
	}
	fe_redc<F>(ret, t);
}

/*
 * ret = (a_0 b_0 + .. + a_(T-1) b_(T-1)) R^-1 mod m: the CIOS of fe_mul
 * (below, T = 1) with T product rows an iteration and one reduction row,
 * so a sum of T products costs one reduction where T multiplications cost
 * T (6n^2 + n 32-bit multiplications for T = 2 against 8n^2 + 2n; for
 * n = 12, 876 against 1,176).
 *
 * Bounds: with every a_k < m, b_k's limbs, q < 2^32 and t < (T + 1) m at
 * the start of an iteration, t + sum a_k b_k,i + q m < (T + 1) m 2^32 and
 * the new t is below (T + 1) m again. (T + 1) m < 2^(32n) (F::sum_max:
 * 9p < 2^384; 3r > 2^256 leaves Fr only T = 1, a product) keeps that
 * within e + 2^32 o's n + 1 limbs of weight, each partial sum of the
 * iteration too, so o never carries out of its top limb. At the end
 * t = (sum a_k b_k + Q m) / R with Q < R = 2^(32n), so
 * t < m (T m / R + 1) < 2m (T m < R by the same bound): one subtraction
 * of m.
 */
template <class F, int T>
ZKP_HD void fe_mul_sum_cios(fe<F> *ret, const fe<F> *const *a, const fe<F> *const *b)
{
	enum { n = 2 * F::N };
	uint32_t x[T][n], y[T][n], m[n], e[n], o[n];
	ZKP_UNROLL
	for (int k = 0; k < T; k++) {
		fe_split<F>(x[k], a[k]);
		fe_split<F>(y[k], b[k]);
	}
	ZKP_UNROLL
	for (int j = 0; j < n; j++)
		m[j] = fe_mod32<F>(j);
	fe_row_first<n>(e, o, x[0], y[0][0]);
	ZKP_UNROLL
	for (int k = 1; k < T; k++) {
		carry_chain c;
		fe_mad_odd<n, false>(c, o, x[k], y[k][0]);
		fe_mad_even<n>(e, o, x[k], y[k][0]);
	}
	carry_chain c0;
	fe_reduce_row<F, false>(c0, e, o, m);
	ZKP_UNROLL
	for (int i = 1; i < n; i++) {
		carry_chain c;
		fe_shift<n>(c, e, o);
		fe_mad_odd<n, true>(c, o, x[0], y[0][i]);
		fe_mad_even<n>(e, o, x[0], y[0][i]);
		ZKP_UNROLL
		for (int k = 1; k < T; k++) {
			carry_chain ck;
			fe_mad_odd<n, false>(ck, o, x[k], y[k][i]);
			fe_mad_even<n>(e, o, x[k], y[k][i]);
		}
		carry_chain d;
		fe_reduce_row<F, false>(d, e, o, m);
	}
	fe_cios_finish<F>(ret, e, o);
}

/* The sum of T products: Karatsuba for a product and a b - c d over Fp
 * (every G1 formula, Fp2's three products); Fp2's sums of four keep the
 * CIOS, whose inputs it holds anyway: in three halves they grew the G2
 * point kernels' stack frames (k_acc_chunk's from 624 to 1,496 bytes). */
template <class F, int T>
ZKP_HD void fe_mul_sum(fe<F> *ret, const fe<F> *const *a, const fe<F> *const *b)
{
	static_assert(T >= 1 && T <= F::sum_max, "(T + 1) m must fit the limbs");
	if constexpr (F::karatsuba && T <= 2)
		fe_mul_sum_kara<F, T>(ret, a, b);
	else
		fe_mul_sum_cios<F, T>(ret, a, b);
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
 * 4n^2 + n multiplications: fe_mul_sum above with one product (for p,
 * whose fp_params::karatsuba is set, 3n^2 + n in fe_kara and fe_redc).
 */
template <class F> ZKP_HD void fe_mul(fe<F> *ret, const fe<F> *a, const fe<F> *b)
{
	const fe<F> *x[1] = { a }, *y[1] = { b };
	fe_mul_sum<F, 1>(ret, x, y);
}

/* ret = a b - c d (times R^-1, as fe_mul): one reduction for both
 * products, c negated (-c < m, 0 for c = 0). Fields with sums of products
 * only (F::sum_max >= 2). */
template <class F>
ZKP_HD void fe_mul_sub(fe<F> *ret, const fe<F> *a, const fe<F> *b, const fe<F> *c, const fe<F> *d)
{
	fe<F> nc;
	fe_neg<F>(&nc, c);
	const fe<F> *x[2] = { a, &nc }, *y[2] = { b, d };
	fe_mul_sum<F, 2>(ret, x, y);
}

/* The limb (hi:lo << 1) >> 32: bits 31..0 of hi shifted up by one with
 * lo's top bit below them. */
ZKP_HD uint32_t fe_shl1_join(uint32_t hi, uint32_t lo)
{
#ifdef __CUDA_ARCH__
	return __funnelshift_l(lo, hi, 1);
#else
	return (hi << 1) | (lo >> 31);
#endif
}

/*
 * Iteration i of fe_sqr's CIOS, then the later ones (a template per
 * iteration, so that each row's first position is a constant).
 *
 * x^2 = sum_i x_i y_i 2^(64 i) with y_i = x_i + 2 sum_{k>0} x_(i+k) 2^(32k):
 * the diagonal product once and the others doubled, so row i has n - i
 * products where a multiplication's has n. In the iteration's frame
 * (shifted down by i limbs) the products of row i sit at positions
 * p = i .. n - 1 with factors z_p: z_i = x_i, z_(i+1) = x_(i+1) << 1 and
 * z_p = tx_p (the limbs of 2x) beyond. 2x fits n limbs, both moduli
 * leaving the top bit free. Rows of i >= 1 start at position 1 or later,
 * so q is known right after the shift, and the reduction's odd chain takes
 * the shift's carry as fe_mul's product does.
 *
 * Bounds: after iteration i the accumulator holds
 * A = (S_i + Q m) / 2^(32(i+1)) with S_i the rows so far (x^2 less the
 * square of x's limbs above i, so S_i < 2^(32(i+1)) 2x) and Q < 2^(32(i+1)),
 * so A < 2x + m < 3m. Every partial sum of an iteration is at most
 * 2^32 A < 2^32 3m, within the accumulator's 2^(32(n+1)) when
 * 3m < 2^(32n): true for p (3p < 2^383), false for r (3r > 2^256), which
 * is why fr_params says sqr_rows = false. The result is
 * (x^2 + Q m) / 2^(32n) < 2m as in fe_mul.
 */
template <class F, int i>
ZKP_HD void fe_sqr_iter(uint32_t *e, uint32_t *o, const uint32_t *x, const uint32_t *tx,
			const uint32_t *m)
{
	enum { n = 2 * F::N };
	uint32_t z[n];
	ZKP_UNROLL
	for (int p = 0; p < n; p++)
		z[p] = tx[p];
	z[i] = x[i];
	if constexpr (i + 1 < n)
		z[i + 1] = x[i + 1] << 1;
	if constexpr (i == 0) {
		fe_row_first<n>(e, o, z, x[0]);
		carry_chain c;
		fe_reduce_row<F, false>(c, e, o, m);
	} else {
		carry_chain c;
		fe_shift<n>(c, e, o);
		fe_reduce_row<F, true>(c, e, o, m); /* the row leaves position 0 alone */
		carry_chain d;
		fe_mad_odd<n, false, i>(d, o, z, x[i]);
		fe_mad_even<n, i>(e, o, z, x[i]);
	}
	if constexpr (i + 1 < n)
		fe_sqr_iter<F, i + 1>(e, o, x, tx, m);
}

/* ret = a^2 R^-1 mod m. Where the field allows (F::sqr_rows), a CIOS
 * whose rows hold each cross product once, doubled (fe_sqr_iter):
 * 3n^2 + 2n multiplications against fe_mul's 4n^2 + n, 456 against 588
 * for p. Otherwise the multiplication. */
template <class F> ZKP_HD void fe_sqr(fe<F> *ret, const fe<F> *a)
{
	if constexpr (!F::sqr_rows) {
		fe_mul<F>(ret, a, a);
	} else {
		enum { n = 2 * F::N };
		uint32_t x[n], tx[n], m[n], e[n], o[n];
		fe_split<F>(x, a);
		tx[0] = x[0] << 1;
		ZKP_UNROLL
		for (int j = 1; j < n; j++)
			tx[j] = fe_shl1_join(x[j], x[j - 1]);
		ZKP_UNROLL
		for (int j = 0; j < n; j++)
			m[j] = fe_mod32<F>(j);
		fe_sqr_iter<F, 0>(e, o, x, tx, m);
		fe_cios_finish<F>(ret, e, o);
	}
}

/* ret = a^(m - 2): the inverse of a non-zero a (Fermat), 0 for a = 0.
 * Square and multiply over the bits of m - 2 from the top: about log2 m
 * squarings and half as many multiplications (570 for Fp), so callers
 * share one inversion among many elements (Montgomery's trick). The loop
 * is not unrolled: one copy of the squaring and the multiplication. */
template <class F> ZKP_HD_CALL void fe_inv(fe<F> *ret, const fe<F> *a)
{
	uint64_t e[F::N], borrow = 2;
	ZKP_UNROLL
	for (int i = 0; i < F::N; i++) {
		uint64_t m = F::mod(i);
		e[i] = m - borrow;
		borrow = m < borrow;
	}
	fe<F> r = *a;
	int top = 64 * F::N - 1;
	while (!((e[top / 64] >> (top % 64)) & 1))
		top--;
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
	for (int b = top - 1; b >= 0; b--) {
		fe_sqr<F>(&r, &r);
		if ((e[b / 64] >> (b % 64)) & 1)
			fe_mul<F>(&r, &r, a);
	}
	*ret = r;
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
