/*
 * The field and point arithmetic of cuda/ run on a CUDA device against the
 * same source run on the host, where carry.cuh emulates PTX's carry flag
 * (test_cuda_math checks that host code against the C layers). What only a
 * device can show: that each inline-PTX carry instruction means on the
 * GPU what its emulation means, and that ptxas keeps every carry chain
 * intact.
 *  - every carry_chain operation on 16 edge operands (0, 1, 2^31 - 1,
 *    2^31, 2^32 - 2, 2^32 - 1 ... and random words) in all combinations,
 *    with the carry flag set and clear before it: the result and the
 *    flag after it (read back by a following addc(0, 0), or subc(0, 0)
 *    after a subtraction: carry.cuh's chains never mix the two kinds);
 *  - fe_add, fe_sub, fe_neg, fe_mul, fe_sqr, fe_to_mont, fe_from_mont for
 *    Fp and Fr on 2^16 pairs (uniform, 0, 1, -1, and Montgomery limbs of
 *    all zeros or all ones halves), also against the C ff layer;
 *  - G1 mixed additions XYZZ + affine (general, doubling and infinity
 *    branches) and general XYZZ additions on 2^12 cases.
 * Exit 77 when no CUDA device is present.
 */
#include <cuda_runtime.h>
#include <gmp.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

extern "C" {
#include "testutil.h"
#include "zkpd/ff.h"
}

#include "carry.cuh"
#include "ec.cuh"
#include "ff.cuh"

static unsigned long checks, failures;

static void check(bool ok, const char *what, size_t i)
{
	checks++;
	if (!ok && failures++ < 20)
		fprintf(stderr, "FAIL %s (case %zu)\n", what, i);
}

#define CUDA_OK(call)                                                                      \
	do {                                                                               \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));        \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

/* Device buffers copied from and back to host vectors. */
template <class T> static T *to_device(const std::vector<T> &v)
{
	T *d;
	CUDA_OK(cudaMalloc(&d, v.size() * sizeof(T)));
	CUDA_OK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

template <class T> static std::vector<T> from_device(const T *d, size_t n)
{
	std::vector<T> v(n);
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
	return v;
}

static unsigned blocks(size_t n)
{
	return (unsigned)((n + 127) / 128);
}

/* ---- carry chain operations ---- */

enum cc_op {
	CC_ADD_CC, CC_ADDC_CC, CC_ADDC, CC_SUB_CC, CC_SUBC_CC, CC_SUBC, CC_MAD_LO_CC,
	CC_MAD_HI_CC, CC_MADC_LO_CC, CC_MADC_HI_CC, CC_MADC_LO, CC_MADC_HI, CC_OPS
};
static const char *const cc_names[CC_OPS] = {
	"add.cc", "addc.cc", "addc", "sub.cc", "subc.cc", "subc", "mad.lo.cc", "mad.hi.cc",
	"madc.lo.cc", "madc.hi.cc", "madc.lo", "madc.hi",
};

struct cc_case {
	uint32_t a, b, c, cin;
};

/* Whether OP is a subtraction: its flag is a borrow, set and read by
 * subtractions only (carry.cuh: a chain is all additions or all
 * subtractions). */
template <int OP> ZKP_HD constexpr bool cc_is_sub()
{
	return OP == CC_SUB_CC || OP == CC_SUBC_CC || OP == CC_SUBC;
}

/* d = op(a, b[, c]) with CF = cin before it; f = the CF after it. One
 * straight chain per operation (a template argument, not a branch). The
 * flag is set and read back by operations of OP's own kind: an addition's
 * carry by add.cc and addc(0, 0), a subtraction's borrow by sub.cc(0, cin)
 * and subc(0, 0), which is all ones after a borrow. */
template <int OP> ZKP_HD void cc_run(uint32_t *d, uint32_t *f, cc_case k)
{
	carry_chain ch;
	if constexpr (cc_is_sub<OP>())
		ch.sub_cc(0u, k.cin); /* CF := borrow = cin */
	else
		ch.add_cc(k.cin ? 0xffffffffu : 0u, k.cin); /* CF := carry = cin */
	uint32_t r;
	switch (OP) {
	case CC_ADD_CC: r = ch.add_cc(k.a, k.b); break;
	case CC_ADDC_CC: r = ch.addc_cc(k.a, k.b); break;
	case CC_ADDC: r = ch.addc(k.a, k.b); break;
	case CC_SUB_CC: r = ch.sub_cc(k.a, k.b); break;
	case CC_SUBC_CC: r = ch.subc_cc(k.a, k.b); break;
	case CC_SUBC: r = ch.subc(k.a, k.b); break;
	case CC_MAD_LO_CC: r = ch.mad_lo_cc(k.a, k.b, k.c); break;
	case CC_MAD_HI_CC: r = ch.mad_hi_cc(k.a, k.b, k.c); break;
	case CC_MADC_LO_CC: r = ch.madc_lo_cc(k.a, k.b, k.c); break;
	case CC_MADC_HI_CC: r = ch.madc_hi_cc(k.a, k.b, k.c); break;
	case CC_MADC_LO: r = ch.madc_lo(k.a, k.b, k.c); break;
	default: r = ch.madc_hi(k.a, k.b, k.c); break;
	}
	*d = r;
	if constexpr (cc_is_sub<OP>())
		*f = ch.subc(0, 0) & 1u;
	else
		*f = ch.addc(0, 0);
}

template <int OP> __global__ void k_cc(uint32_t *d, uint32_t *f, const cc_case *k, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		cc_run<OP>(&d[i], &f[i], k[i]);
}

template <int OP> static void cc_test(const std::vector<cc_case> &cases, const cc_case *dk)
{
	size_t n = cases.size();
	uint32_t *dd, *df;
	CUDA_OK(cudaMalloc(&dd, n * 4));
	CUDA_OK(cudaMalloc(&df, n * 4));
	k_cc<OP><<<blocks(n), 128>>>(dd, df, dk, n);
	CUDA_OK(cudaGetLastError());
	std::vector<uint32_t> d = from_device(dd, n), f = from_device(df, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t hd, hf;
		cc_run<OP>(&hd, &hf, cases[i]);
		if (d[i] != hd || f[i] != hf) {
			check(false, cc_names[OP], i);
			if (failures <= 20)
				fprintf(stderr, "  %s a=%08x b=%08x c=%08x cf=%u: device %08x cf %u, "
					"host %08x cf %u\n", cc_names[OP], cases[i].a, cases[i].b,
					cases[i].c, cases[i].cin, d[i], f[i], hd, hf);
		} else {
			check(true, cc_names[OP], i);
		}
	}
	CUDA_OK(cudaFree(dd));
	CUDA_OK(cudaFree(df));
}

static void test_carry(void)
{
	uint32_t edge[16] = { 0, 1, 2, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu,
			      0xffffffffu, 0xffff0000u, 0x0000ffffu };
	for (int i = 10; i < 16; i++)
		edge[i] = (uint32_t)tu_rand64();
	std::vector<cc_case> cases;
	for (int a = 0; a < 16; a++)
		for (int b = 0; b < 16; b++)
			for (int c = 0; c < 16; c++)
				for (uint32_t cin = 0; cin < 2; cin++)
					cases.push_back({ edge[a], edge[b], edge[c], cin });
	cc_case *dk = to_device(cases);
	cc_test<CC_ADD_CC>(cases, dk);
	cc_test<CC_ADDC_CC>(cases, dk);
	cc_test<CC_ADDC>(cases, dk);
	cc_test<CC_SUB_CC>(cases, dk);
	cc_test<CC_SUBC_CC>(cases, dk);
	cc_test<CC_SUBC>(cases, dk);
	cc_test<CC_MAD_LO_CC>(cases, dk);
	cc_test<CC_MAD_HI_CC>(cases, dk);
	cc_test<CC_MADC_LO_CC>(cases, dk);
	cc_test<CC_MADC_HI_CC>(cases, dk);
	cc_test<CC_MADC_LO>(cases, dk);
	cc_test<CC_MADC_HI>(cases, dk);
	CUDA_OK(cudaFree(dk));
}

/* ---- field operations ---- */

enum fe_op { FE_ADD, FE_SUB, FE_NEG, FE_MUL, FE_SQR, FE_TO_MONT, FE_FROM_MONT, FE_OPS };
static const char *const fe_names[FE_OPS] = { "add", "sub", "neg", "mul", "sqr", "to_mont",
					       "from_mont" };

template <class F> ZKP_HD void fe_run(fe<F> *r, const fe<F> *a, const fe<F> *b, int op)
{
	switch (op) {
	case FE_ADD: fe_add(r, a, b); break;
	case FE_SUB: fe_sub(r, a, b); break;
	case FE_NEG: fe_neg(r, a); break;
	case FE_MUL: fe_mul(r, a, b); break;
	case FE_SQR: fe_sqr(r, a); break;
	case FE_TO_MONT: fe_to_mont(r, a->l); break; /* a < m as an integer too */
	default: fe_from_mont(r->l, a); break;
	}
}

template <class F>
__global__ void k_fe(fe<F> *r, const fe<F> *a, const fe<F> *b, size_t n, int op)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		fe_run(&r[i], &a[i], &b[i], op);
}

/* Uniform, or 0, 1, -1, or 32-bit halves of all zeros or all ones (the
 * top limb masked below the modulus). */
template <class F> static void pick(fe<F> *r, uint64_t top_mask)
{
	switch (tu_rand64() % 8) {
	case 0: fe_set_zero(r); break;
	case 1: fe_set_one(r); break;
	case 2: fe_set_one(r); fe_neg(r, r); break;
	case 3: {
		static const uint64_t pat[4] = { 0, ~0ULL, 0xffffffff00000000ULL,
						 0x00000000ffffffffULL };
		for (int i = 0; i < F::N; i++)
			r->l[i] = pat[tu_rand64() % 4];
		r->l[F::N - 1] &= top_mask;
		break;
	}
	default: {
		uint64_t v[F::N];
		for (int i = 0; i < F::N; i++)
			v[i] = tu_rand64();
		v[F::N - 1] &= top_mask;
		fe_to_mont(r, v);
	}
	}
}

/* The C layer's result for Fp or Fr, where it has the operation. */
static bool c_layer(zkp_fp *r, const zkp_fp *a, const zkp_fp *b, int op)
{
	switch (op) {
	case FE_ADD: zkp_fp_add(r, a, b); return true;
	case FE_SUB: zkp_fp_sub(r, a, b); return true;
	case FE_NEG: zkp_fp_neg(r, a); return true;
	case FE_MUL: zkp_fp_mul(r, a, b); return true;
	case FE_SQR: zkp_fp_sqr(r, a); return true;
	default: return false;
	}
}

static bool c_layer(zkp_fr *r, const zkp_fr *a, const zkp_fr *b, int op)
{
	switch (op) {
	case FE_ADD: zkp_fr_add(r, a, b); return true;
	case FE_SUB: zkp_fr_sub(r, a, b); return true;
	case FE_NEG: zkp_fr_neg(r, a); return true;
	case FE_MUL: zkp_fr_mul(r, a, b); return true;
	case FE_SQR: zkp_fr_sqr(r, a); return true;
	default: return false;
	}
}

template <class F, class C> static void fe_test(const char *field, uint64_t top_mask)
{
	const size_t n = 1 << 16;
	std::vector<fe<F>> a(n), b(n);
	for (size_t i = 0; i < n; i++) {
		pick(&a[i], top_mask);
		pick(&b[i], top_mask);
	}
	fe<F> *da = to_device(a), *db = to_device(b), *dr;
	CUDA_OK(cudaMalloc(&dr, n * sizeof(fe<F>)));
	for (int op = 0; op < FE_OPS; op++) {
		k_fe<F><<<blocks(n), 128>>>(dr, da, db, n, op);
		CUDA_OK(cudaGetLastError());
		std::vector<fe<F>> r = from_device(dr, n);
		char vs_host[64], vs_c[64];
		snprintf(vs_host, sizeof(vs_host), "%s %s device vs host", field, fe_names[op]);
		snprintf(vs_c, sizeof(vs_c), "%s %s device vs C", field, fe_names[op]);
		for (size_t i = 0; i < n; i++) {
			fe<F> h;
			fe_run(&h, &a[i], &b[i], op);
			check(memcmp(&h, &r[i], sizeof(h)) == 0, vs_host, i);
			C ca, cb, cr;
			memcpy(&ca, &a[i], sizeof(ca));
			memcpy(&cb, &b[i], sizeof(cb));
			if (c_layer(&cr, &ca, &cb, op))
				check(memcmp(&cr, &r[i], sizeof(cr)) == 0, vs_c, i);
		}
	}
	CUDA_OK(cudaFree(da));
	CUDA_OK(cudaFree(db));
	CUDA_OK(cudaFree(dr));
}

/* ---- point operations ---- */

__global__ void k_madd(g1_xyzz *r, const g1_xyzz *a, const g1_affine *b, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		xyzz_add_affine(&r[i], &a[i], &b[i]);
}

__global__ void k_add(g1_xyzz *r, const g1_xyzz *a, const g1_xyzz *b, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		xyzz_add(&r[i], &a[i], &b[i]);
}

/* The formulas are the same arithmetic whether or not the coordinates lie
 * on the curve: random ones reach the general branch; an accumulator made
 * from the affine point itself reaches the doubling one; infinities the
 * others. */
static void test_points(void)
{
	const size_t n = 1 << 12;
	const uint64_t top = 0x0fffffffffffffffULL;
	std::vector<g1_xyzz> a(n), c(n);
	std::vector<g1_affine> b(n);
	for (size_t i = 0; i < n; i++) {
		pick(&b[i].x, top);
		pick(&b[i].y, top);
		switch (i % 8) {
		case 0: xyzz_from_affine(&a[i], &b[i]); break;
		case 1: xyzz_set_inf(&a[i]); break;
		case 2: fe_set_zero(&b[i].x); fe_set_zero(&b[i].y); /* b at infinity */
			/* fall through */
		default:
			pick(&a[i].x, top);
			pick(&a[i].y, top);
			pick(&a[i].zz, top);
			pick(&a[i].zzz, top);
		}
		c[i] = a[(i * 7 + 3) % n];
		if (i % 16 == 5)
			c[i] = a[i];
	}
	g1_xyzz *da = to_device(a), *dc = to_device(c), *dr;
	g1_affine *db = to_device(b);
	CUDA_OK(cudaMalloc(&dr, n * sizeof(g1_xyzz)));
	k_madd<<<blocks(n), 128>>>(dr, da, db, n);
	CUDA_OK(cudaGetLastError());
	std::vector<g1_xyzz> r = from_device(dr, n);
	for (size_t i = 0; i < n; i++) {
		g1_xyzz h;
		xyzz_add_affine(&h, &a[i], &b[i]);
		check(memcmp(&h, &r[i], sizeof(h)) == 0, "g1 madd device vs host", i);
	}
	k_add<<<blocks(n), 128>>>(dr, da, dc, n);
	CUDA_OK(cudaGetLastError());
	r = from_device(dr, n);
	for (size_t i = 0; i < n; i++) {
		g1_xyzz h;
		xyzz_add(&h, &a[i], &c[i]);
		check(memcmp(&h, &r[i], sizeof(h)) == 0, "g1 add device vs host", i);
	}
	CUDA_OK(cudaFree(da));
	CUDA_OK(cudaFree(db));
	CUDA_OK(cudaFree(dc));
	CUDA_OK(cudaFree(dr));
}

int main(void)
{
	int devices = 0;
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
		printf("no CUDA device: skipped\n");
		return 77;
	}
	tu_seed();
	test_carry();
	printf("carry   %lu checks, %lu failures\n", checks, failures);
	fe_test<fp_params, zkp_fp>("fp", 0x0fffffffffffffffULL);
	fe_test<fr_params, zkp_fr>("fr", 0x3fffffffffffffffULL);
	printf("field   %lu checks, %lu failures\n", checks, failures);
	test_points();
	printf("total   %lu checks, %lu failures\n", checks, failures);
	return failures ? 1 : 0;
}
