/*
 * Group-independent parts of the MSM: scalar folding, Booth window
 * selectors, the measured window tables, the plan and the workspace layout.
 */
#include <string.h>

#include "zkpd/ec.h"
#include "msm_int.h"

/* ---- measured tables ----
 *
 * Index: floor(log2 m) for m Pippenger points, 0..32. Measured single-
 * threaded (zkpd-bench msm and an in-process sweep over c, best of 3 runs)
 * on a 2-vCPU shared Zen 5 VM, with the
 * MULX/ADX field multiplication; the machine is noisy (+-15 % between
 * runs), so neighbours within a few per cent count as ties and the table
 * is smoothed to be non-decreasing. Above the largest measured size the
 * table extrapolates; c = 18 and 21 are never used since they have as many
 * windows as 17 and 20 (K = ceil(255 / c)).
 *
 * G1, ms at the best window (affine / XYZZ):
 *   2^4  2.2 (c 9) / 0.9 (c 4)     2^12  46 (c 12) / 65 (c 9)
 *   2^6  4.2 (c 9) / 2.6 (c 5)     2^14  144 (c 12-13) / 210 (c 11-12)
 *   2^7  4.7 (c 10) / 3.6 (c 6)    2^16  457-470 (c 13-15) / 712-830 (c 12-15)
 *   2^8  6.5 (c 11) / 8.0 (c 6)    2^17  1001 (c 13-15) / 1517 (c 13)
 *   2^10 16 (c 10) / 19 (c 8)      2^18  1590-2000 (c 15-16) / 3240 (c 14-15)
 *   2^11 26 (c 11) / 37 (c 10)     2^20  7084 (c 16-17) / 13186 (c 16-18)
 * XYZZ wins up to 2^7 (the batch-affine inversions are not amortised on
 * so few points), batch-affine from 2^8 on. */
static const uint8_t G1_WIN_AFFINE[33] = {
	2, 4, 6, 7, 8, 9, 9, 10, 11, 11, 11, 11, 12, 12, 13, 13,
	14, 14, 15, 16, 17, 17, 17, 17, 19, 19, 19, 19, 19, 19, 19, 19, 19,
};
static const uint8_t G1_WIN_XYZZ[33] = {
	2, 2, 3, 3, 4, 4, 5, 6, 6, 7, 8, 9, 10, 11, 12, 12,
	13, 13, 15, 16, 17, 17, 17, 17, 19, 19, 19, 19, 19, 19, 19, 19, 19,
};
static const uint8_t G1_AUTO_AFFINE[33] = {
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* G2, ms at the best window (affine / XYZZ); the rows from 2^15 up were
 * taken with the norm-based batch inversion (msm_g2.c), which made
 * batch-affine about a quarter faster than in the rows below it:
 *   2^4  4.0 (c 5) / 2.8 (c 3-4)   2^10 44 (c 8-10)
 *   2^6  8.8 (c 5) / 7.4 (c 4)     2^12 174 (c 9-12)
 *   2^7  12.4 (c 10) / 12.3 (c 5)  2^14 456 (c 12-13)
 *   2^8  21 (c 9-10)               2^16 1900 (c 13-14) / 3490 (c 12-15)
 * XYZZ wins up to 2^6, batch-affine from 2^7 on. */
static const uint8_t G2_WIN_AFFINE[33] = {
	2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 10, 10, 11, 12, 13, 13,
	14, 14, 15, 16, 16, 17, 17, 17, 19, 19, 19, 19, 19, 19, 19, 19, 19,
};
static const uint8_t G2_WIN_XYZZ[33] = {
	2, 2, 2, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 11, 11, 12,
	13, 13, 15, 16, 16, 17, 17, 17, 19, 19, 19, 19, 19, 19, 19, 19, 19,
};
static const uint8_t G2_AUTO_AFFINE[33] = {
	0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

const struct msm_group msm_group_g1 = {
	sizeof(zkp_g1_affine), sizeof(zkp_g1_xyzz), sizeof(zkp_fp),
	G1_WIN_AFFINE, G1_WIN_XYZZ, G1_AUTO_AFFINE,
};

const struct msm_group msm_group_g2 = {
	sizeof(zkp_g2_affine), sizeof(zkp_g2_xyzz), sizeof(zkp_fp2),
	G2_WIN_AFFINE, G2_WIN_XYZZ, G2_AUTO_AFFINE,
};

/* ---- scalars ---- */

void msm_scalar_fold(uint64_t out[4], const zkp_fr *s)
{
	uint64_t v[4], d[4];
	zkp_fr_to_limbs(v, s);
	/* s > (r-1)/2 <=> 2s >= r (r odd); 2s < 2^256 since r < 2^255. */
	unsigned __int128 t;
	uint64_t carry = 0, borrow = 0;
	for (int i = 0; i < 4; i++) {
		t = (unsigned __int128)v[i] + v[i] + carry;
		d[i] = (uint64_t)t;
		carry = (uint64_t)(t >> 64);
	}
	for (int i = 0; i < 4; i++) {
		t = (unsigned __int128)d[i] - ZKP_FR_MODULUS[i] - borrow;
		borrow = (uint64_t)(t >> 64) & 1;
	}
	if (!borrow) { /* 2s >= r: use r - s and -P */
		borrow = 0;
		for (int i = 0; i < 4; i++) {
			t = (unsigned __int128)ZKP_FR_MODULUS[i] - v[i] - borrow;
			out[i] = (uint64_t)t;
			borrow = (uint64_t)(t >> 64) & 1;
		}
		out[3] |= MSM_NEG_BIT;
	} else {
		memcpy(out, v, sizeof(v));
	}
}

void msm_win_init(struct msm_win *w, unsigned k, unsigned c)
{
	w->c = c;
	w->mask = (uint32_t)((2ULL << c) - 1);
	if (k == 0) {
		/* bits [-1, c-1]: s[0] << 1, expressed as an empty low limb and
		 * s[0] as the high one shifted by 64 - 63. */
		w->lo = 0;
		w->hi = 0;
		w->sh = 63;
		w->mlo = 0;
		w->mhi = ~0ULL;
		return;
	}
	unsigned o = k * c - 1;
	w->lo = o / 64;
	w->sh = o % 64;
	w->mlo = w->lo == 3 ? ~MSM_NEG_BIT : ~0ULL;
	if (w->lo < 3) {
		w->hi = w->lo + 1;
		w->mhi = w->hi == 3 ? ~MSM_NEG_BIT : ~0ULL;
	} else {
		w->hi = 3;
		w->mhi = 0;
	}
}

/* ---- plan ---- */

static unsigned floor_log2(size_t m)
{
	unsigned l = 0;
	while (m >> (l + 1))
		l++;
	return l;
}

static unsigned nwin_of(unsigned c) { return (MSM_SCALAR_BITS + c) / c; } /* ceil(255 / c) */

/* Batch size: large enough that the inversion (about 25 us for Fp, 550
 * multiplications by Fermat) stays a small share, small enough that the
 * birthday collisions inside a batch, about batch^2 / (2 buckets), stay a
 * small share of it. */
static unsigned batch_of(size_t nb)
{
	size_t b = nb / 4;
	if (b < 64)
		b = 64;
	if (b > 4096)
		b = 4096;
	return (unsigned)b;
}

size_t msm_slot_bytes(const struct msm_group *g, size_t nbk, bool affine, unsigned batch,
		      unsigned qcap)
{
	size_t s = msm_align(nbk) + msm_align(nbk * g->xyzz_size); /* state, XYZZ */
	if (affine) {
		s += msm_align(nbk * g->aff_size);
		s += 2 * msm_align(batch * sizeof(zkp_fp)) + msm_align(batch * g->fe_size) +
		     msm_align(batch * sizeof(uint32_t)) +
		     msm_align(batch * sizeof(void *)) + msm_align(batch);
		s += msm_align(qcap * sizeof(uint32_t)) + msm_align(qcap * sizeof(void *)) +
		     msm_align(qcap);
	}
	return s;
}

static bool resolve_affine(const struct msm_group *g, unsigned lg, const zkp_msm_opts *opts)
{
	enum zkp_msm_accum a = opts ? opts->accum : ZKP_MSM_AUTO;
	if (a == ZKP_MSM_AFFINE)
		return true;
	if (a == ZKP_MSM_XYZZ)
		return false;
	return g->auto_affine[lg];
}

static unsigned table_window(const struct msm_group *g, unsigned lg, bool affine,
			     const zkp_msm_opts *opts)
{
	if (opts && opts->window)
		return opts->window > ZKP_MSM_MAX_WINDOW ? ZKP_MSM_MAX_WINDOW : opts->window;
	return affine ? g->win_affine[lg] : g->win_xyzz[lg];
}

/* Candidate windows at a table level: the measured one, and one either side
 * when several threads share the work (a neighbour may cut the windows into
 * a count that divides evenly among them). */
static void candidates(unsigned *lo, unsigned *hi, unsigned c0, unsigned threads,
		       const zkp_msm_opts *opts)
{
	*lo = *hi = c0;
	if (threads > 1 && !(opts && opts->window)) {
		if (c0 > 1)
			*lo = c0 - 1;
		if (c0 < ZKP_MSM_MAX_WINDOW)
			*hi = c0 + 1;
	}
}

static unsigned max_ranges(unsigned threads)
{
	unsigned r = 4 * threads;
	return r > 64 ? 64 : r;
}

/* Estimated finishing time of K windows over m points on T threads, B of
 * them whole and K - B cut into R ranges, scheduled longest first. */
static double makespan(size_t m, unsigned K, unsigned B, unsigned R, unsigned T, double nbk,
		       double red)
{
	double pw = (double)m, ps = (double)m / R;
	double cw = pw + red * (nbk < pw ? nbk : pw), cs = ps + red * (nbk < ps ? nbk : ps);
	size_t small = (size_t)(K - B) * R;
	if (B == K)
		return (double)((K + T - 1) / T) * cw;
	if (B == 0)
		return (double)((small + T - 1) / T) * cs;
	double big = (double)((B + T - 1) / T) * cw;
	double fill = ((double)B * cw + (double)small * cs) / T + (small % T ? cs / 2 : 0);
	return big > fill ? big : fill;
}

void msm_plan_make(struct msm_plan *p, const struct msm_group *g, size_t m, size_t ones,
		   unsigned threads, const zkp_msm_opts *opts)
{
	unsigned T = threads ? threads : 1;
	memset(p, 0, sizeof(*p));
	if (m > 0) {
		unsigned lg = floor_log2(m);
		p->affine = resolve_affine(g, lg, opts);
		unsigned c0 = table_window(g, lg, p->affine, opts), clo, chi;
		candidates(&clo, &chi, c0, T, opts);
		/* Tasks: the first B windows whole, the other K - B each cut
		 * into R point ranges. A task of P points costs P additions plus
		 * its bucket sum, two additions per non-empty bucket (affine
		 * tree: each about an accumulation addition; XYZZ running sum:
		 * 12M + 2S against 8M + 2S, about 1.2 each). Candidates: all
		 * windows whole, only the K mod T that do not divide evenly among
		 * the threads cut, or all cut; the makespan is estimated for
		 * longest-first scheduling. Leaving the measured window costs a
		 * 3 % penalty, so only a real gain in balance moves it. */
		double red = p->affine ? 2.0 : 2.4, best = 0;
		unsigned bc = c0, bb = nwin_of(c0), br = 1;
		for (unsigned c = clo; c <= chi; c++) {
			unsigned K = nwin_of(c);
			double nbk = (double)((size_t)1 << (c - 1));
			unsigned wholes[3] = { K, K >= T ? K - K % T : K, 0 };
			for (int v = 0; v < 3; v++) {
				unsigned B = wholes[v];
				if (v > 0 && (T == 1 || B == wholes[v - 1]))
					continue;
				for (unsigned R = B == K ? 1 : 2; R <= (B == K ? 1 : max_ranges(T)); R++) {
					if (B < K && (size_t)R * 64 > m)
						break;
					double cost = makespan(m, K, B, R, T, nbk, red);
					if (c != c0)
						cost *= 1.03;
					if (best == 0 || cost < best) {
						best = cost;
						bc = c;
						bb = B;
						br = R;
					}
				}
			}
		}
		p->c = bc;
		p->nwin = nwin_of(bc);
		p->nwhole = bb;
		p->ranges = br;
		p->nb = (size_t)1 << (bc - 1);
		p->npip = bb + (size_t)(p->nwin - bb) * br;
		if (p->affine) {
			p->batch = batch_of(p->nb);
			p->qcap = p->batch / 2;
		}
		p->slot_bytes = msm_slot_bytes(g, p->nb, p->affine, p->batch, p->qcap);
	}
	if (ones > 0) {
		size_t per = (ones + 4 * (size_t)T - 1) / (4 * (size_t)T);
		if (per < MSM_ONES_MIN_TASK)
			per = MSM_ONES_MIN_TASK;
		p->ones_per = per;
		p->nones = (ones + per - 1) / per;
		size_t s = msm_slot_bytes(g, MSM_ONES_LANES, true, MSM_ONES_LANES / 2,
					  MSM_ONES_LANES / 4);
		if (s > p->slot_bytes)
			p->slot_bytes = s;
	}
	size_t tasks = p->npip + p->nones;
	p->nslots = tasks < T ? tasks : T;
}

/* ---- layout ---- */

size_t msm_prep_chunks(size_t n, unsigned threads)
{
	size_t ch = (n + MSM_PREP_CHUNK - 1) / MSM_PREP_CHUNK;
	size_t cap = 8 * (size_t)(threads ? threads : 1);
	if (ch > cap)
		ch = cap;
	return ch ? ch : 1;
}

/* Upper bounds, over every plan a call on n scalars can make, of the task
 * count and the slot size: the plan depends on m only through its table
 * level and R, so bounding each level's candidates by the largest R covers
 * every m <= n. */
static void caps(const struct msm_group *g, size_t n, unsigned threads,
		 const zkp_msm_opts *opts, size_t *tasks_cap, size_t *slot_cap)
{
	unsigned T = threads ? threads : 1;
	size_t tc = 0, sc = 0;
	unsigned top = floor_log2(n);
	for (unsigned lg = 0; lg <= top; lg++) {
		bool affine = resolve_affine(g, lg, opts);
		unsigned c0 = table_window(g, lg, affine, opts), clo, chi;
		candidates(&clo, &chi, c0, T, opts);
		for (unsigned c = clo; c <= chi; c++) {
			size_t nb = (size_t)1 << (c - 1);
			size_t t = (size_t)nwin_of(c) * (T == 1 ? 1 : max_ranges(T));
			unsigned batch = affine ? batch_of(nb) : 0;
			size_t s = msm_slot_bytes(g, nb, affine, batch, batch / 2);
			if (t > tc)
				tc = t;
			if (s > sc)
				sc = s;
		}
	}
	if (opts && opts->split) {
		size_t per_min = MSM_ONES_MIN_TASK;
		size_t nones = (n + per_min - 1) / per_min;
		if (nones > 4 * (size_t)T)
			nones = 4 * (size_t)T;
		tc += nones;
		size_t s = msm_slot_bytes(g, MSM_ONES_LANES, true, MSM_ONES_LANES / 2,
					  MSM_ONES_LANES / 4);
		if (s > sc)
			sc = s;
	}
	*tasks_cap = tc;
	*slot_cap = sc;
}

void msm_layout_make(struct msm_layout *l, const struct msm_group *g, size_t n,
		     unsigned threads, const zkp_msm_opts *opts)
{
	unsigned T = threads ? threads : 1;
	size_t tc, sc, off = 0;
	caps(g, n, T, opts, &tc, &sc);
	l->canon = off;
	off += msm_align(n * 4 * sizeof(uint64_t));
	l->idx = off;
	off += msm_align(n * sizeof(uint32_t));
	l->counts = off;
	off += msm_align(msm_prep_chunks(n, T) * 3 * sizeof(size_t));
	l->results = off;
	l->results_cap = tc;
	off += msm_align(tc * g->xyzz_size);
	l->slots = off;
	l->slot_stride = sc;
	l->nslots_cap = T;
	off += T * sc;
	l->end = off;
}

size_t msm_scratch_size(const struct msm_group *g, size_t n, unsigned threads,
			const zkp_msm_opts *opts)
{
	if (n == 0)
		return 0;
	struct msm_layout l;
	msm_layout_make(&l, g, n, threads, opts);
	return l.end;
}
