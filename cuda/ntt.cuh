/*
 * Per-thread pieces of the NTT kernels (cuda/ntt.cu), __host__ __device__
 * so the host unit test runs them through whole transforms (an emulated
 * grid: blocks, phases between barriers, threads) and compares with the C
 * ntt layer. The butterflies are those of src/ntt/ntt.c: one table
 * tw[j] = omega^j (j < n/2) serves both directions through
 * omega^-i = -omega^(n/2 - i), the sign absorbed into the butterfly. The
 * grouped stages below apply exactly the radix-2 butterflies of the stages
 * they cover, so the results are bit-identical with src/ntt.
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

/* The table entry a butterfly with twiddle index idx reads: omega^idx
 * forward, omega^(n/2 - idx) (= -omega^-idx) inverse; idx = 0 takes none
 * (index 0 then, never multiplied by). */
ZKP_HD size_t ntt_tw_entry(size_t n, size_t idx, bool inverse)
{
	return idx == 0 ? 0 : inverse ? n / 2 - idx : idx;
}

/* Decimation in frequency: (a, b) <- (a + b, (a - b) w), w = omega^(+-idx);
 * tw_e is table entry ntt_tw_entry(n, idx, inverse), one says idx = 0. */
ZKP_HD void ntt_bfly_dif(dfr *a, dfr *b, const dfr *tw_e, bool one, bool inverse)
{
	dfr s;
	if (one) {
		fe_sub(&s, a, b);
		fe_add(a, a, b);
		*b = s;
	} else if (!inverse) {
		fe_sub(&s, a, b);
		fe_add(a, a, b);
		fe_mul(b, &s, tw_e);
	} else {
		fe_sub(&s, b, a); /* (a - b) * -omega^(n/2 - idx) */
		fe_add(a, a, b);
		fe_mul(b, &s, tw_e);
	}
}

/* Decimation in time: (a, b) <- (a + b w, a - b w). */
ZKP_HD void ntt_bfly_dit(dfr *a, dfr *b, const dfr *tw_e, bool one, bool inverse)
{
	dfr s;
	if (one) {
		s = *b;
		fe_sub(b, a, &s);
		fe_add(a, a, &s);
	} else if (!inverse) {
		fe_mul(&s, b, tw_e);
		fe_sub(b, a, &s);
		fe_add(a, a, &s);
	} else {
		fe_mul(&s, b, tw_e); /* b w = -s */
		fe_add(b, a, &s);
		fe_sub(a, a, &s);
	}
}

/* The coset factor lo[k & mask] hi[k >> split] of logical index k. */
ZKP_HD void ntt_coset_factor(dfr *ret, const dfr *lo, const dfr *hi, size_t k, unsigned split)
{
	fe_mul(ret, &lo[k & (((size_t)1 << split) - 1)], &hi[k >> split]);
}

/* The pointwise step of H on a coset: ret = (a b - c) scale, without the
 * subtraction when c is NULL and the multiplication when scale is. */
ZKP_HD void ntt_h_point(dfr *ret, const dfr *a, const dfr *b, const dfr *c, const dfr *scale)
{
	dfr t;
	fe_mul(&t, a, b);
	if (c)
		fe_sub(&t, &t, c);
	if (scale)
		fe_mul(ret, &t, scale);
	else
		*ret = t;
}

/* Thread i < 2^log_n of H's last step (backend.h, h_coeffs):
 * x[i] = (x[j] - y[j]) scale and x[j] = (x[i] - y[i]) scale, j = rev(i),
 * done by the smaller of the pair (scale NULL: 1). */
ZKP_HD void ntt_bitrev_sub(dfr *x, const dfr *y, const dfr *scale, size_t i, unsigned log_n)
{
	size_t j = log_n ? ntt_bitrev(i, log_n) : i; /* 2^0: rev(0) = 0 */
	if (i > j)
		return;
	dfr u = x[j], v = x[i], yj = y[j], yi = y[i];
	fe_sub(&u, &u, &yj);
	fe_sub(&v, &v, &yi);
	if (scale) {
		fe_mul(&u, &u, scale);
		fe_mul(&v, &v, scale);
	}
	x[i] = u;
	x[j] = v;
}

/* ---- shared-memory layout of a tile and of the twiddle cache ----
 *
 * Elements are 32 bytes and move between registers and shared memory as
 * two 16-byte halves (LDS.128 / STS.128). Shared memory has 32 banks of 4
 * bytes, so a 16-byte access covers 4 of them and a quarter warp (8
 * threads, the unit the hardware serves 128-bit accesses in) is free of
 * conflicts when its 8 halves fall in 8 distinct 16-byte columns of a
 * 128-byte row: column = unit mod 8. Stored plainly (element e's half k at
 * unit 2e + k) the column is 2 (e mod 4) + k, which takes 4 values for a
 * given k: every access would conflict at least 2-way, and the stages of
 * half size 1 and 2 4-way (2.07 times the ideal count of 128-byte
 * wavefronts over the device plan's transforms).
 *
 * Over every transform of the device plan, the 8 elements of a quarter
 * warp's access (a butterfly's two operands, its twiddle, the load, store
 * and twiddle-copy phases) differ in three of the four lowest index bits
 * of e and agree in the rest: the runs of at least 2^NTT_RUN_LOG columns
 * keep the higher bits together. So the unit 2e + k has its column XORed
 * with e2 * 1 ^ e3 * 7 (e2, e3: bits 2 and 3 of e). The column is then
 * linear in (e0, e1, e2, e3) with images 2, 4, 1, 7, any three of which
 * are independent, so each quarter warp sees 8 distinct columns. The XOR
 * stays inside the 128-byte row, so the layout is a permutation of the
 * same 32 bytes per element. test_cuda_math counts the wavefronts of every
 * access of the device plan from 2^1 to 2^27 and checks them against the
 * ideal. */

/* A 16-byte half of an element in shared memory. */
struct alignas(16) ntt_half {
	uint64_t l[2];
};

/* The unit holding half k (0 low, 1 high) of element e. */
ZKP_HD unsigned ntt_sh_unit(unsigned e, unsigned k)
{
	unsigned swz = ((e >> 2) & 1) ^ (((e >> 3) & 1) * 7);
	return ((e << 1) | k) ^ swz;
}

/* Bit 0 of e << 1 is clear, so the high half's unit is the low one's with
 * bit 0 flipped: one swizzle an element, not two. */
ZKP_HD void ntt_sh_get(dfr *v, const ntt_half *sh, unsigned e)
{
	unsigned u = ntt_sh_unit(e, 0);
	ntt_half lo = sh[u], hi = sh[u ^ 1];
	v->l[0] = lo.l[0];
	v->l[1] = lo.l[1];
	v->l[2] = hi.l[0];
	v->l[3] = hi.l[1];
}

ZKP_HD void ntt_sh_put(ntt_half *sh, unsigned e, const dfr *v)
{
	ntt_half lo, hi;
	lo.l[0] = v->l[0];
	lo.l[1] = v->l[1];
	hi.l[0] = v->l[2];
	hi.l[1] = v->l[3];
	unsigned u = ntt_sh_unit(e, 0);
	sh[u] = lo;
	sh[u ^ 1] = hi;
}

/* ---- grouped stages (radix 2^g in shared memory) ----
 *
 * A group runs g consecutive radix-2 stages, half sizes m_low = 2^lo,
 * 2^(lo+1), .., m_hi = 2^(lo+g-1) (from m_hi down for DIF, from m_low up
 * for DIT). For an outer block ob (of 2 m_hi elements) and r < m_low the
 * 2^g elements ob 2 m_hi + r + t m_low (t < 2^g) close under those stages:
 * the stage of half size m = h m_low pairs t with t + h. Such a set is a
 * "column"; columns are numbered gi = ob m_low + r.
 *
 * A block of the kernel holds a tile of 2^tile elements in shared memory
 * (2^(tile+1) ntt_half units, in the layout above):
 * the G = 2^(tile - g) consecutive columns gi = block G + lg (lg < G). Its
 * slots are in memory order, so loads and stores move runs of
 * sub = min(G, m_low) consecutive elements (the whole tile is contiguous
 * when G >= m_low):
 *   slot(lg, t) = (lg / sub) 2^g sub + t sub + lg % sub.
 * Each butterfly is ntt_bfly_dif / ntt_bfly_dit with the twiddle index of
 * its global position (ntt_pair's j (n / 2m), j = r + (t mod h) m_low),
 * so a grouped transform equals the radix-2 one bit for bit.
 *
 * Work of thread th (< threads) of block b, in phases with a barrier
 * between them: ntt_group_load; ntt_group_twiddles and ntt_group_stage
 * for s = 0 .. g - 1; ntt_group_store. Each phase strides over the tile's slots (load, store)
 * or its 2^(tile-1) butterflies (stage) by `threads`. */

/* A scaling fused into a group's load (before its stages) or store
 * (after them), so coset shifts and 1/n cost no pass of their own: each
 * element is multiplied by `uniform`, or, with lo set, by the coset factor
 * lo[k & mask] hi[k >> split] of its logical index k (its position, or the
 * position bit-reversed with bitrev). */
struct ntt_scale {
	bool on;
	const dfr *lo, *hi; /* NULL: uniform */
	unsigned split;
	bool bitrev;
	dfr uniform;
};

struct ntt_group {
	size_t n;          /* transform size 2^log_n */
	unsigned log_n;
	unsigned lo;       /* log2 m_low */
	unsigned g;        /* stages, 1 <= g <= tile */
	unsigned tile;     /* log2 elements per block, tile <= log_n */
	unsigned threads;  /* per block, <= 2^(tile - 1) */
	bool dif;
	ntt_scale pre, post; /* off unless set (ntt_plan leaves them off) */
};

/* The device's plan (ntt_plan's arguments in cuda/ntt.cu): tiles of up to
 * 1024 Fr elements (32 KiB of shared memory), groups of up to 10 stages,
 * runs of at least 4 elements (128 bytes) when m_low > 1, 256 threads per
 * block. */
#define NTT_TILE_LOG 10
#define NTT_MAX_GROUP 10
#define NTT_RUN_LOG 2
#define NTT_GROUP_THREADS 256

ZKP_HD unsigned ntt_min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/* Global position of column lg's element t in block b. */
ZKP_HD size_t ntt_group_pos(const ntt_group *gr, size_t b, unsigned lg, unsigned t)
{
	size_t gi = (b << (gr->tile - gr->g)) + lg;
	size_t r = gi & (((size_t)1 << gr->lo) - 1), ob = gi >> gr->lo;
	return (ob << (gr->lo + gr->g)) + r + ((size_t)t << gr->lo);
}

ZKP_HD unsigned ntt_group_slot(const ntt_group *gr, unsigned lg, unsigned t)
{
	unsigned sl = ntt_min_u(gr->tile - gr->g, gr->lo);
	unsigned sub = 1u << sl;
	return ((lg >> sl) << (gr->g + sl)) + (t << sl) + (lg & (sub - 1));
}

/* The column lg and element t of slot e. */
ZKP_HD void ntt_group_unslot(const ntt_group *gr, unsigned e, unsigned *lg, unsigned *t)
{
	unsigned sl = ntt_min_u(gr->tile - gr->g, gr->lo);
	unsigned sub = 1u << sl, rem = e & ((1u << (gr->g + sl)) - 1);
	*t = rem >> sl;
	*lg = ((e >> (gr->g + sl)) << sl) + (rem & (sub - 1));
}

/* v *= the scaling's factor for the element at position pos. */
ZKP_HD void ntt_scale_apply(dfr *v, const ntt_scale *sc, size_t pos, unsigned log_n)
{
	if (!sc->lo) {
		fe_mul(v, v, &sc->uniform);
		return;
	}
	dfr f;
	ntt_coset_factor(&f, sc->lo, sc->hi, sc->bitrev ? ntt_bitrev(pos, log_n) : pos, sc->split);
	fe_mul(v, v, &f);
}

ZKP_HD void ntt_group_load(ntt_half *sh, const dfr *x, const ntt_group *gr, size_t b, unsigned th)
{
	unsigned tile = 1u << gr->tile;
	for (unsigned e = th; e < tile; e += gr->threads) {
		unsigned lg, t;
		ntt_group_unslot(gr, e, &lg, &t);
		size_t pos = ntt_group_pos(gr, b, lg, t);
		dfr v = x[pos];
		if (gr->pre.on)
			ntt_scale_apply(&v, &gr->pre, pos, gr->log_n);
		ntt_sh_put(sh, e, &v);
	}
}

ZKP_HD void ntt_group_store(dfr *x, const ntt_half *sh, const ntt_group *gr, size_t b,
			    unsigned th)
{
	unsigned tile = 1u << gr->tile;
	for (unsigned e = th; e < tile; e += gr->threads) {
		unsigned lg, t;
		ntt_group_unslot(gr, e, &lg, &t);
		size_t pos = ntt_group_pos(gr, b, lg, t);
		dfr v;
		ntt_sh_get(&v, sh, e);
		if (gr->post.on)
			ntt_scale_apply(&v, &gr->post, pos, gr->log_n);
		x[pos] = v;
	}
}

/*
 * The twiddles of stage s in a block. Butterfly (column lg, j < h) has
 * twiddle index (r + j m_low) n / 2m, where the block's columns have
 * r = r0 + rr, rr < 2^rlog: consecutive r (G <= m_low, so rlog = tile - g)
 * or all of them (rlog = lo). So a stage needs only 2^(rlog + hlog) <=
 * 2^(tile-1) distinct entries, entry (j << rlog) + rr, while it has
 * 2^(tile-1) butterflies: from 1 entry per 512 butterflies (the first
 * stage of the first group) to one each. ntt_group_twiddles copies them
 * from the table into shared memory (a phase of its own, a barrier before
 * the stage), and each butterfly reads its entry there.
 */
ZKP_HD unsigned ntt_group_rlog(const ntt_group *gr)
{
	return ntt_min_u(gr->tile - gr->g, gr->lo);
}

/* r of block b's first column: below m_low <= n / 2, so 32 bits hold it
 * (as they hold every index inside a tile) for n up to 2^32. */
ZKP_HD unsigned ntt_group_r0(const ntt_group *gr, size_t b)
{
	return (unsigned)((b << (gr->tile - gr->g)) & (((size_t)1 << gr->lo) - 1));
}

ZKP_HD unsigned ntt_group_hlog(const ntt_group *gr, unsigned s)
{
	return gr->dif ? gr->g - 1 - s : s;
}

/* Entries of stage s's twiddle cache (at most 2^(tile-1)). */
ZKP_HD unsigned ntt_group_twiddle_count(const ntt_group *gr, unsigned s)
{
	return 1u << (ntt_group_rlog(gr) + ntt_group_hlog(gr, s));
}

ZKP_HD void ntt_group_twiddles(ntt_half *shtw, const dfr *tw, const ntt_group *gr, size_t b,
			       unsigned th, unsigned s, bool inverse)
{
	unsigned rlog = ntt_group_rlog(gr), hlog = ntt_group_hlog(gr, s);
	unsigned shift = gr->log_n - (gr->lo + hlog + 1); /* n / 2m = 2^shift */
	unsigned r0 = ntt_group_r0(gr, b), count = ntt_group_twiddle_count(gr, s);
	for (unsigned e = th; e < count; e += gr->threads) {
		unsigned rr = e & ((1u << rlog) - 1), j = e >> rlog;
		size_t idx = (size_t)(r0 + rr + (j << gr->lo)) << shift;
		ntt_sh_put(shtw, e, &tw[ntt_tw_entry(gr->n, idx, inverse)]);
	}
}

/* Where butterfly u (< 2^(tile-1)) of stage s in block b finds its
 * operands (tile elements a, c), its twiddle (cache entry w) and whether
 * its twiddle index is 0 (one). */
struct ntt_bfly_at {
	unsigned a, c, w;
	bool one;
};

ZKP_HD ntt_bfly_at ntt_group_bfly_at(const ntt_group *gr, size_t b, unsigned s, unsigned u)
{
	unsigned glog = gr->tile - gr->g, rlog = ntt_group_rlog(gr);
	unsigned h = 1u << ntt_group_hlog(gr, s), r0 = ntt_group_r0(gr, b);
	unsigned lg = u & ((1u << glog) - 1), q = u >> glog;
	unsigned j = q & (h - 1), t = ((q - j) << 1) + j;
	unsigned rr = lg & ((1u << rlog) - 1);
	ntt_bfly_at at;
	at.a = ntt_group_slot(gr, lg, t);
	at.c = ntt_group_slot(gr, lg, t + h);
	at.w = (j << rlog) + rr;
	at.one = r0 + rr == 0 && j == 0;
	return at;
}

/* Stage s (0-based, in execution order) of the group, its twiddles in
 * shtw (ntt_group_twiddles). */
ZKP_HD void ntt_group_stage(ntt_half *sh, const ntt_half *shtw, const ntt_group *gr, size_t b,
			    unsigned th, unsigned s, bool inverse)
{
	unsigned half = 1u << (gr->tile - 1);
	for (unsigned u = th; u < half; u += gr->threads) {
		ntt_bfly_at at = ntt_group_bfly_at(gr, b, s, u);
		dfr a, c, w;
		ntt_sh_get(&a, sh, at.a);
		ntt_sh_get(&c, sh, at.c);
		if (!at.one)
			ntt_sh_get(&w, shtw, at.w);
		if (gr->dif)
			ntt_bfly_dif(&a, &c, &w, at.one, inverse);
		else
			ntt_bfly_dit(&a, &c, &w, at.one, inverse);
		ntt_sh_put(sh, at.a, &a);
		ntt_sh_put(sh, at.c, &c);
	}
}

/* Blocks of one group's launch. */
ZKP_HD size_t ntt_group_blocks(const ntt_group *gr)
{
	return gr->n >> gr->tile;
}

/*
 * The groups of a whole DIF (dif) or DIT transform of 2^log_n elements in
 * execution order; returns their count (at most log_n). max_g (1..10)
 * bounds a group's stages, tile_log (>= max_g) the tile, max_threads the
 * threads per block. The group holding the stage m = 1 takes min(log_n,
 * max_g) stages; the others, where m_low > 1, keep G >= 2^run_log columns
 * per tile so global accesses move runs of at least 2^run_log elements,
 * and share their stages evenly.
 */
ZKP_HD unsigned ntt_plan(ntt_group *ret, unsigned log_n, bool dif, unsigned max_g,
			 unsigned tile_log, unsigned run_log, unsigned max_threads)
{
	unsigned tile = ntt_min_u(log_n, tile_log);
	unsigned g0 = ntt_min_u(log_n, ntt_min_u(max_g, tile));
	unsigned cap = ntt_min_u(max_g, tile > run_log ? tile - run_log : 1);
	if (cap < 1)
		cap = 1;
	unsigned rest = log_n - g0, count = 1 + (rest + cap - 1) / cap;
	unsigned lo = 0;
	for (unsigned i = 0; i < count; i++) {
		unsigned g = i == 0 ? g0 : rest / (count - 1) + (i - 1 < rest % (count - 1));
		ntt_group *gr = &ret[dif ? count - 1 - i : i];
		gr->n = (size_t)1 << log_n;
		gr->log_n = log_n;
		gr->lo = lo;
		gr->g = g;
		gr->tile = tile;
		size_t half = (size_t)1 << (tile - 1);
		gr->threads = half < max_threads ? (unsigned)half : max_threads;
		gr->dif = dif;
		gr->pre.on = gr->post.on = false;
		lo += g;
	}
	return count;
}

/*
 * Where ntt_run's scalings go. Transform order by (in_bitrev, out_bitrev):
 * natural->bitrev DIF; bitrev->natural DIT; natural->natural DIF then a
 * permutation; bitrev->bitrev a permutation then DIF. The forward coset
 * shift multiplies element k (logical input index) before the first
 * stage: fused into the first group's load, where position p holds input
 * k = bitrev(p) only for bitrev->natural (after a leading permutation p
 * is already k). The inverse's 1/n (times the inverse coset shift of
 * output index k) is fused into the last group's store, where position p
 * ends as output k = bitrev(p) unless the output is natural with no
 * permutation after (bitrev->natural).
 */
ZKP_HD bool ntt_pre_bitrev(bool in_bitrev, bool out_bitrev)
{
	return in_bitrev && !out_bitrev;
}

ZKP_HD bool ntt_post_bitrev(bool in_bitrev, bool out_bitrev)
{
	return !(in_bitrev && !out_bitrev);
}

#endif
