/*
 * The __host__ __device__ math of cuda/ compiled as host C++ and checked
 * against the C layers on random inputs: Fp and Fr add, sub, mul, sqr and
 * Montgomery conversions against ff; XYZZ madd / msub / add / dbl sequences
 * and the XYZZ-to-Jacobian conversion against ec (limb for limb, and as
 * affine points); the MSM's Booth digits against GMP; a host run of the
 * MSM's steps (digits, counting sort, bucket sums, segmented running sums)
 * against zkp_msm_g1; and the NTT butterflies run through whole transforms
 * against zkp_ntt for every option.
 */
#include <gmp.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

extern "C" {
#include "testutil.h"
#include "zkpd/ec.h"
#include "zkpd/ff.h"
#include "zkpd/msm.h"
#include "zkpd/ntt.h"
}

#include "ec.cuh"
#include "ff.cuh"
#include "msm.cuh"
#include "ntt.cuh"

#define ITERS 100000

static unsigned long checks, failures;

static void check(bool ok, const char *what, unsigned long i)
{
	checks++;
	if (!ok && failures++ < 10)
		fprintf(stderr, "FAIL %s (iteration %lu)\n", what, i);
}

static void rand_fp(zkp_fp *r)
{
	uint64_t w[12];
	for (int i = 0; i < 12; i++)
		w[i] = tu_rand64();
	zkp_fp_from_wide(r, w);
}

static void rand_fr(zkp_fr *r)
{
	uint64_t w[8];
	for (int i = 0; i < 8; i++)
		w[i] = tu_rand64();
	zkp_fr_from_wide(r, w);
}

/* Mostly uniform, sometimes 0, 1 or -1. */
static void pick_fp(zkp_fp *r)
{
	switch (tu_rand64() % 16) {
	case 0: zkp_fp_set_zero(r); break;
	case 1: zkp_fp_set_one(r); break;
	case 2: zkp_fp_set_one(r); zkp_fp_neg(r, r); break;
	default: rand_fp(r);
	}
}

static void pick_fr(zkp_fr *r)
{
	switch (tu_rand64() % 16) {
	case 0: zkp_fr_set_zero(r); break;
	case 1: zkp_fr_set_one(r); break;
	case 2: zkp_fr_set_one(r); zkp_fr_neg(r, r); break;
	default: rand_fr(r);
	}
}

template <class D, class C> static bool same(const D *d, const C *c)
{
	static_assert(sizeof(D) == sizeof(C), "layout");
	return memcmp(d, c, sizeof(D)) == 0;
}

static void test_fp(void)
{
	for (unsigned long i = 0; i < ITERS; i++) {
		zkp_fp a, b, r;
		dfp da, db, dr;
		pick_fp(&a);
		pick_fp(&b);
		memcpy(&da, &a, sizeof(a));
		memcpy(&db, &b, sizeof(b));
		zkp_fp_add(&r, &a, &b);
		fe_add(&dr, &da, &db);
		check(same(&dr, &r), "fp add", i);
		zkp_fp_sub(&r, &a, &b);
		fe_sub(&dr, &da, &db);
		check(same(&dr, &r), "fp sub", i);
		zkp_fp_mul(&r, &a, &b);
		fe_mul(&dr, &da, &db);
		check(same(&dr, &r), "fp mul", i);
		zkp_fp_sqr(&r, &a);
		fe_sqr(&dr, &da);
		check(same(&dr, &r), "fp sqr", i);
		zkp_fp_neg(&r, &a);
		fe_neg(&dr, &da);
		check(same(&dr, &r), "fp neg", i);
		uint64_t lc[6], ld[6];
		zkp_fp_to_limbs(lc, &a);
		fe_from_mont(ld, &da);
		check(memcmp(lc, ld, sizeof(lc)) == 0, "fp from_mont", i);
		fe_to_mont(&dr, lc);
		check(same(&dr, &a), "fp to_mont", i);
	}
}

static void test_fr(void)
{
	for (unsigned long i = 0; i < ITERS; i++) {
		zkp_fr a, b, r;
		dfr da, db, dr;
		pick_fr(&a);
		pick_fr(&b);
		memcpy(&da, &a, sizeof(a));
		memcpy(&db, &b, sizeof(b));
		zkp_fr_add(&r, &a, &b);
		fe_add(&dr, &da, &db);
		check(same(&dr, &r), "fr add", i);
		zkp_fr_sub(&r, &a, &b);
		fe_sub(&dr, &da, &db);
		check(same(&dr, &r), "fr sub", i);
		zkp_fr_mul(&r, &a, &b);
		fe_mul(&dr, &da, &db);
		check(same(&dr, &r), "fr mul", i);
		zkp_fr_sqr(&r, &a);
		fe_sqr(&dr, &da);
		check(same(&dr, &r), "fr sqr", i);
		uint64_t lc[4], ld[4];
		zkp_fr_to_limbs(lc, &a);
		fe_from_mont(ld, &da);
		check(memcmp(lc, ld, sizeof(lc)) == 0, "fr from_mont", i);
		fe_to_mont(&dr, lc);
		check(same(&dr, &a), "fr to_mont", i);
	}
}

/* npts affine points: multiples of a random point, plus infinity,
 * negations and repeats. */
static std::vector<zkp_g1_affine> point_pool(size_t npts)
{
	zkp_fr k;
	rand_fr(&k);
	zkp_g1 q, acc;
	zkp_g1_from_affine(&q, &ZKP_G1_GENERATOR);
	zkp_g1_mul_fr(&q, &q, &k);
	acc = q;
	std::vector<zkp_g1> jac(npts);
	for (size_t i = 0; i < npts; i++) {
		jac[i] = acc;
		zkp_g1_add(&acc, &acc, &q);
	}
	std::vector<zkp_g1_affine> pts(npts);
	std::vector<zkp_fp> scratch(npts);
	zkp_g1s_to_affine(pts.data(), jac.data(), npts, scratch.data());
	for (size_t i = 0; i < npts; i += 7) {
		switch ((i / 7) % 3) {
		case 0: memset(&pts[i], 0, sizeof(pts[i])); break;
		case 1: zkp_g1_affine_neg(&pts[i], &pts[i - 1]); break;
		default: pts[i] = pts[i - 2];
		}
	}
	return pts;
}

static bool same_affine(const g1_xyzz *d, const zkp_g1_xyzz *c)
{
	zkp_g1 jc;
	g1_jac jd;
	zkp_g1_from_xyzz(&jc, c);
	g1_jac_from_xyzz(&jd, d);
	if (!same(&jd, &jc))
		return false;
	zkp_g1 j2;
	memcpy(&j2, &jd, sizeof(j2));
	zkp_g1_affine ac, ad;
	zkp_g1_to_affine(&ac, &jc);
	zkp_g1_to_affine(&ad, &j2);
	return zkp_g1_affine_eq(&ac, &ad);
}

static void test_ec(void)
{
	std::vector<zkp_g1_affine> pts = point_pool(1024);
	zkp_g1_xyzz ca, cb;
	g1_xyzz da, db;
	zkp_g1_xyzz_set_infinity(&ca);
	zkp_g1_xyzz_set_infinity(&cb);
	g1_xyzz_set_inf(&da);
	g1_xyzz_set_inf(&db);
	check(same(&da, &ca), "xyzz infinity", 0);
	for (unsigned long i = 0; i < ITERS; i++) {
		const zkp_g1_affine *p = &pts[tu_rand64() % pts.size()];
		const g1_affine *dp = (const g1_affine *)p;
		const char *what = "";
		switch (tu_rand64() % 10) {
		case 0: case 1: case 2:
			zkp_g1_xyzz_add_affine(&ca, &ca, p);
			g1_xyzz_add_affine(&da, &da, dp);
			what = "xyzz madd";
			break;
		case 3:
			zkp_g1_xyzz_sub_affine(&ca, &ca, p);
			g1_xyzz_sub_affine(&da, &da, dp);
			what = "xyzz msub";
			break;
		case 4: case 5:
			zkp_g1_xyzz_add_affine(&cb, &cb, p);
			g1_xyzz_add_affine(&db, &db, dp);
			what = "xyzz madd (second)";
			break;
		case 6:
			zkp_g1_xyzz_add(&ca, &ca, &cb);
			g1_xyzz_add(&da, &da, &db);
			what = "xyzz add";
			break;
		case 7:
			zkp_g1_xyzz_dbl(&ca, &ca);
			g1_xyzz_dbl(&da, &da);
			what = "xyzz dbl";
			break;
		case 8: /* P + P and P + (-P) through the general addition */
			if (tu_rand64() & 1) {
				zkp_g1_xyzz_add(&cb, &ca, &ca);
				g1_xyzz_add(&db, &da, &da);
				what = "xyzz add (doubling)";
			} else {
				zkp_g1_xyzz tc;
				g1_xyzz td;
				zkp_g1_xyzz_from_affine(&tc, p);
				g1_xyzz_from_affine(&td, dp);
				zkp_g1_xyzz_add(&cb, &cb, &tc);
				g1_xyzz_add(&db, &db, &td);
				zkp_g1_xyzz_sub_affine(&cb, &cb, p);
				g1_xyzz_sub_affine(&db, &db, dp);
				what = "xyzz add then msub";
			}
			break;
		default:
			if (tu_rand64() % 8 == 0) {
				zkp_g1_xyzz_set_infinity(&ca);
				g1_xyzz_set_inf(&da);
			}
			zkp_g1_xyzz_add_affine(&ca, &ca, p);
			zkp_g1_xyzz_sub_affine(&ca, &ca, p); /* back where it was */
			g1_xyzz_add_affine(&da, &da, dp);
			g1_xyzz_sub_affine(&da, &da, dp);
			what = "xyzz madd msub";
		}
		check(same(&da, &ca) && same(&db, &cb), what, i);
		if (i % 64 == 0)
			check(same_affine(&da, &ca) && same_affine(&db, &cb), "xyzz as affine", i);
	}
}

static void test_digits(void)
{
	mpz_t s, sum, t;
	mpz_inits(s, sum, t, NULL);
	for (unsigned long i = 0; i < ITERS; i++) {
		zkp_fr a;
		pick_fr(&a);
		uint64_t l[4];
		zkp_fr_to_limbs(l, &a);
		unsigned c = 4 + (unsigned)(tu_rand64() % (MSM_MAX_WINDOW - 3));
		unsigned k = msm_windows(c);
		tu_mpz_from_limbs(s, l, 4);
		mpz_set_ui(sum, 0);
		bool ok = true;
		for (unsigned w = k; w-- > 0;) {
			int32_t d = booth_digit(l, w, c);
			ok &= (d <= 0 ? -d : d) <= (1 << (c - 1));
			mpz_mul_2exp(sum, sum, c);
			if (d >= 0)
				mpz_add_ui(sum, sum, (unsigned long)d);
			else
				mpz_sub_ui(sum, sum, (unsigned long)-d);
		}
		check(ok && mpz_cmp(sum, s) == 0, "booth digits", i);
	}
	mpz_clears(s, sum, t, NULL);
	check(msm_window(1) == MSM_MIN_WINDOW && msm_window((size_t)1 << 26) == MSM_MAX_WINDOW &&
		      msm_window((size_t)1 << 20) == 14,
	      "window table", 0);
}

/* The kernels' steps on the host, sequentially: digits, counting sort by
 * bucket, bucket sums, running sums over segments of seg buckets. */
static void host_msm(zkp_g1 *ret, const zkp_g1_affine *bases, const zkp_fr *scalars, size_t n,
		     unsigned c, unsigned seg)
{
	unsigned k = msm_windows(c), nb = 1u << (c - 1);
	if (seg > nb)
		seg = nb;
	std::vector<uint64_t> canon(4 * n);
	for (size_t i = 0; i < n; i++)
		fe_from_mont(&canon[4 * i], (const dfr *)&scalars[i]);
	zkp_g1_set_infinity(ret);
	for (unsigned w = k; w-- > 0;) {
		std::vector<uint32_t> cnt(nb, 0), off(nb + 1, 0), sorted(n);
		for (size_t i = 0; i < n; i++) {
			int32_t d = booth_digit(&canon[4 * i], w, c);
			if (d)
				cnt[(uint32_t)(d < 0 ? -d : d) - 1]++;
		}
		for (unsigned b = 0; b < nb; b++)
			off[b + 1] = off[b] + cnt[b];
		std::vector<uint32_t> cur(off.begin(), off.end() - 1);
		for (size_t i = 0; i < n; i++) {
			int32_t d = booth_digit(&canon[4 * i], w, c);
			if (d)
				sorted[cur[(uint32_t)(d < 0 ? -d : d) - 1]++] =
					(uint32_t)i | (d < 0 ? MSM_SIGN_BIT : 0u);
		}
		std::vector<g1_xyzz> bk(nb);
		for (unsigned b = 0; b < nb; b++) {
			g1_xyzz_set_inf(&bk[b]);
			for (uint32_t e = off[b]; e < off[b + 1]; e++) {
				const g1_affine *p =
					(const g1_affine *)&bases[sorted[e] & ~MSM_SIGN_BIT];
				if (sorted[e] & MSM_SIGN_BIT)
					g1_xyzz_sub_affine(&bk[b], &bk[b], p);
				else
					g1_xyzz_add_affine(&bk[b], &bk[b], p);
			}
		}
		g1_xyzz win;
		g1_xyzz_set_inf(&win);
		for (unsigned lo = 0; lo < nb; lo += seg) {
			g1_xyzz run, tot, sh;
			g1_xyzz_set_inf(&run);
			g1_xyzz_set_inf(&tot);
			for (unsigned b = lo + seg; b-- > lo;) {
				g1_xyzz_add(&run, &run, &bk[b]);
				g1_xyzz_add(&tot, &tot, &run);
			}
			g1_xyzz_set_inf(&sh);
			for (int bit = 31; bit >= 0; bit--) {
				g1_xyzz_dbl(&sh, &sh);
				if ((lo >> bit) & 1)
					g1_xyzz_add(&sh, &sh, &run);
			}
			g1_xyzz_add(&tot, &tot, &sh);
			g1_xyzz_add(&win, &win, &tot);
		}
		for (unsigned i = 0; i < c; i++)
			zkp_g1_dbl(ret, ret);
		zkp_g1 t;
		zkp_g1_from_xyzz(&t, (const zkp_g1_xyzz *)&win);
		zkp_g1_add(ret, ret, &t);
	}
}

static void test_msm(void)
{
	std::vector<zkp_g1_affine> pts = point_pool(512);
	const size_t sizes[] = { 0, 1, 2, 3, 17, 64, 200, 512 };
	for (unsigned r = 0; r < sizeof(sizes) / sizeof(sizes[0]); r++) {
		size_t n = sizes[r];
		std::vector<zkp_fr> sc(n + 1);
		for (size_t i = 0; i < n; i++) {
			if (r % 2 && tu_rand64() % 4 == 0)
				zkp_fr_set_one(&sc[i]); /* 0/1-heavy in odd rounds */
			else
				pick_fr(&sc[i]);
		}
		zkp_g1 ref;
		size_t size = zkp_msm_g1_scratch_size(n, 1, NULL);
		void *scratch = aligned_alloc(64, (size + 63) & ~(size_t)63);
		zkp_msm_g1(&ref, pts.data(), sc.data(), n, NULL, scratch, size, NULL);
		free(scratch);
		const unsigned windows[] = { msm_window(n), 4, 5, 11 };
		for (unsigned c : windows) {
			zkp_g1 got;
			host_msm(&got, pts.data(), sc.data(), n, c, 1u << (r % 4));
			check(zkp_g1_eq(&got, &ref), "host msm", n);
		}
	}
}

static void host_transform(dfr *x, const zkp_ntt_domain *d, bool dif, bool inverse)
{
	const dfr *tw = (const dfr *)d->tw;
	for (size_t step = 0; step < d->log_n; step++) {
		size_t m = dif ? d->n >> (step + 1) : (size_t)1 << step;
		for (size_t q = 0; q < d->n / 2; q++) {
			size_t i, idx;
			ntt_pair(&i, &idx, q, d->n, m);
			if (dif)
				ntt_bfly_dif(&x[i], &x[i + m], tw, d->n, idx, inverse);
			else
				ntt_bfly_dit(&x[i], &x[i + m], tw, d->n, idx, inverse);
		}
	}
}

static void host_permute(dfr *x, const zkp_ntt_domain *d)
{
	for (size_t i = 0; i < d->n; i++) {
		size_t j = ntt_bitrev(i, d->log_n);
		if (i < j) {
			dfr t = x[i];
			x[i] = x[j];
			x[j] = t;
		}
	}
}

static void host_scale(dfr *x, const zkp_ntt_domain *d, const zkp_fr *lo, const zkp_fr *hi,
		       bool bitrev)
{
	for (size_t i = 0; i < d->n; i++) {
		dfr f;
		ntt_coset_factor(&f, (const dfr *)lo, (const dfr *)hi,
				 bitrev ? ntt_bitrev(i, d->log_n) : i, d->split);
		fe_mul(&x[i], &x[i], &f);
	}
}

/* The sequence of cuda/ntt.cu's ntt_run, one kernel per loop here. */
static void host_ntt(dfr *x, const zkp_ntt_domain *d, const zkp_ntt_opts *o)
{
	bool in_rev = o->in_order == ZKP_NTT_BITREV, out_rev = o->out_order == ZKP_NTT_BITREV;
	if (!o->inverse && o->coset)
		host_scale(x, d, d->cs_lo, d->cs_hi, in_rev);
	if (!in_rev && out_rev) {
		host_transform(x, d, true, o->inverse);
	} else if (in_rev && !out_rev) {
		host_transform(x, d, false, o->inverse);
	} else if (!in_rev) {
		host_transform(x, d, true, o->inverse);
		host_permute(x, d);
	} else {
		host_permute(x, d);
		host_transform(x, d, true, o->inverse);
	}
	if (o->inverse) {
		if (o->coset) {
			host_scale(x, d, d->ci_lo, d->ci_hi, out_rev);
		} else {
			for (size_t i = 0; i < d->n; i++)
				fe_mul(&x[i], &x[i], (const dfr *)&d->n_inv);
		}
	}
}

static void test_ntt(void)
{
	for (unsigned log_n = 1; log_n <= 10; log_n++) {
		zkp_ntt_domain d;
		std::vector<zkp_fr> mem(zkp_ntt_domain_mem_size(log_n) / sizeof(zkp_fr));
		enum zkp_ntt_roots roots = log_n % 2 ? ZKP_NTT_ROOTS_BELLMAN : ZKP_NTT_ROOTS_SNARKJS;
		zkp_fr shift;
		rand_fr(&shift);
		check(zkp_ntt_domain_init(&d, log_n, roots, log_n % 3 ? NULL : &shift, mem.data(),
					  NULL) == 0,
		      "ntt domain", log_n);
		for (unsigned o = 0; o < 16; o++) {
			zkp_ntt_opts opts = { (o & 1) != 0, (o & 2) != 0,
					      o & 4 ? ZKP_NTT_BITREV : ZKP_NTT_NATURAL,
					      o & 8 ? ZKP_NTT_BITREV : ZKP_NTT_NATURAL };
			std::vector<zkp_fr> ref(d.n);
			std::vector<dfr> got(d.n);
			for (size_t i = 0; i < d.n; i++)
				pick_fr(&ref[i]);
			memcpy(got.data(), ref.data(), d.n * sizeof(zkp_fr));
			zkp_ntt(ref.data(), &d, &opts, NULL);
			host_ntt(got.data(), &d, &opts);
			check(memcmp(got.data(), ref.data(), d.n * sizeof(zkp_fr)) == 0, "ntt",
			      log_n * 16 + o);
		}
	}
	/* The pointwise H step. */
	for (unsigned long i = 0; i < 1000; i++) {
		zkp_fr a, b, c, z, r;
		pick_fr(&a);
		pick_fr(&b);
		pick_fr(&c);
		pick_fr(&z);
		zkp_fr_mul(&r, &a, &b);
		zkp_fr_sub(&r, &r, &c);
		zkp_fr_mul(&r, &r, &z);
		dfr dr;
		ntt_h_point(&dr, (const dfr *)&a, (const dfr *)&b, (const dfr *)&c, (const dfr *)&z);
		check(same(&dr, &r), "h pointwise", i);
	}
}

int main(void)
{
	tu_seed();
	struct {
		const char *name;
		void (*fn)(void);
	} parts[] = {
		{ "fp", test_fp }, { "fr", test_fr }, { "ec", test_ec },
		{ "digits", test_digits }, { "msm", test_msm }, { "ntt", test_ntt },
	};
	for (auto &p : parts) {
		unsigned long c0 = checks, f0 = failures;
		p.fn();
		printf("%-7s %lu checks, %lu failures\n", p.name, checks - c0, failures - f0);
	}
	printf("total   %lu checks, %lu failures\n", checks, failures);
	return failures ? 1 : 0;
}
