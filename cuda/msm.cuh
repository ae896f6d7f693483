/*
 * Per-thread pieces of the MSM kernels (cuda/msm_pippenger.cuh), written
 * once over the coordinate field E of G1 (dfp) and G2 (dfp2), __host__
 * __device__ so the host unit test runs every kernel body: the window
 * choice and the windows a pass (msm_pass_windows: the per-window arrays
 * of kb windows at a time, within MSM_PASS_BYTES), the signed (Booth)
 * digits of a canonical scalar, the 0/1
 * classification, the density compaction, the counting sort (histogram,
 * exclusive scan, scatter), bucket sums over fixed-size chunks of the
 * sorted lists with their segmented scan, running sums, pairwise folds and
 * the batch addition of the bases whose scalar is 1. Each function is the
 * work of one thread of one kernel, named after the kernel; the kernels are
 * thin wrappers that compute the thread's index and call it.
 *
 * Digits: with scalar bits b_j (b_-1 = 0), window w of width c has digit
 *   d_w = (b_{wc} .. b_{wc+c-1} as an integer) + b_{wc-1} - 2^c b_{wc+c-1},
 * so d_w is in [-2^(c-1), 2^(c-1)] and sum_w d_w 2^(wc) = s whenever bit
 * Kc - 1 of s is 0; K = ceil(256 / c) windows make that hold for every
 * s < r < 2^255. Each digit reads c + 1 bits and needs no carry from the
 * window below, so every window is computed independently.
 *
 * Bitmaps: bit i of a 32-bit-word bitmap is bit i % 32 of word i / 32 (the
 * layout __ballot_sync produces for a warp of consecutive threads); the
 * density bitmap of the backend is 64-bit words, bit i % 64 of word i / 64.
 */
#ifndef ZKPD_CUDA_MSM_CUH
#define ZKPD_CUDA_MSM_CUH

#include <stddef.h>
#include <stdint.h>

#include "ec.cuh"
#include "ff.cuh"

/* msm_window's range; a caller may force any width from 4 up to
 * MSM_WIDEST_WINDOW (ZKP_MSM_MAX_WINDOW): at 2^27 points, 22 bits make 12
 * windows where 20 and 21 make 13, which a device's window sweep weighs
 * against the 2^21 buckets a window. */
#define MSM_MIN_WINDOW 8
#define MSM_MAX_WINDOW 20
#define MSM_WIDEST_WINDOW 22
/* A sorted entry is a point index with the digit's sign in the top bit. */
#define MSM_SIGN_BIT 0x80000000u
/* Threads of the scan kernel (one block per segment). */
#define MSM_SCAN_THREADS 1024
/* Batch addition of the ones: at most this many partial sums (a power of
 * two), each over at least MSM_ONES_MIN_WORDS bitmap words. */
#define MSM_ONES_MAX_THREADS 65536
#define MSM_ONES_MIN_WORDS 4

/* Bucket accumulation: entries of the sorted lists per thread, between
 * these bounds (msm_chunk). */
#define MSM_CHUNK_MIN 32
#define MSM_CHUNK_MAX 256
#define MSM_CHUNK_THREADS ((size_t)1 << 21)
/* The key of a chunk past the end of its window's list. */
#define MSM_NO_BUCKET 0xffffffffu

/* Scalar classes of the 0/1 split. */
enum { MSM_ZERO, MSM_ONE, MSM_OTHER };

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

/* ---- small helpers ---- */

/* *p += 1, returning the old value: an atomic on the device; the host
 * emulation runs threads one at a time. msm_fetch_max: *p = max(*p, v). */
ZKP_HD uint32_t msm_fetch_inc(uint32_t *p)
{
#ifdef __CUDA_ARCH__
	return atomicAdd(p, 1u);
#else
	return (*p)++;
#endif
}

ZKP_HD void msm_fetch_max(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
	atomicMax(p, v);
#else
	*p = *p > v ? *p : v;
#endif
}

ZKP_HD bool bit32(const uint32_t *bits, size_t i)
{
	return (bits[i / 32] >> (i % 32)) & 1;
}

/* ret = m a for a small non-negative m, by double-and-add from the top. */
template <class E> ZKP_HD void xyzz_mul_small(ec_xyzz<E> *ret, const ec_xyzz<E> *a, uint32_t m)
{
	ec_xyzz<E> acc;
	xyzz_set_inf(&acc);
	for (int bit = 31; bit >= 0; bit--) {
		xyzz_dbl(&acc, &acc);
		if ((m >> bit) & 1)
			xyzz_add(&acc, &acc, a);
	}
	*ret = acc;
}

/* ---- exclusive scan: one block of `threads` threads per segment ----
 *
 * Segment s holds len counts at cnt + s len; afterwards off[b] (off + s
 * (len + 1)) is the sum of the counts below b, off[len] the segment's
 * total, and cnt a copy of off[0 .. len) (the scatter's cursor). Three
 * phases with a barrier after each: every thread sums its chunk of
 * ceil(len / threads) counts into part[t]; log2(threads) Hillis-Steele
 * steps over part, ping-ponging between two shared arrays
 * (out[t] = in[t] + in[t - d]); every thread writes its chunk's offsets
 * starting from the inclusive sum of the thread before it. */

ZKP_HD void scan_load(uint32_t *part, const uint32_t *cnt, size_t len, unsigned t,
		      unsigned threads)
{
	size_t chunk = (len + threads - 1) / threads;
	size_t lo = (size_t)t * chunk < len ? (size_t)t * chunk : len;
	size_t hi = lo + chunk < len ? lo + chunk : len;
	uint32_t sum = 0;
	for (size_t b = lo; b < hi; b++)
		sum += cnt[b];
	part[t] = sum;
}

ZKP_HD void scan_step(uint32_t *out, const uint32_t *in, unsigned t, unsigned d)
{
	out[t] = in[t] + (t >= d ? in[t - d] : 0);
}

/* incl: the inclusive sums of the chunk totals after the last step. */
ZKP_HD void scan_store(uint32_t *cnt, uint32_t *off, const uint32_t *incl, size_t len,
		       unsigned t, unsigned threads)
{
	size_t chunk = (len + threads - 1) / threads;
	size_t lo = (size_t)t * chunk < len ? (size_t)t * chunk : len;
	size_t hi = lo + chunk < len ? lo + chunk : len;
	uint32_t run = t ? incl[t - 1] : 0;
	for (size_t b = lo; b < hi; b++) {
		uint32_t v = cnt[b];
		off[b] = run;
		cnt[b] = run;
		run += v;
	}
	if (t == threads - 1)
		off[len] = incl[t];
}

/* ---- density compaction (64-bit density words, n scalars) ---- */

/* Set bits of density word w that stand for scalars below n. */
ZKP_HD uint32_t density_count(const uint64_t *words, size_t w, size_t n)
{
	uint64_t v = words[w];
	if ((w + 1) * 64 > n)
		v &= (n % 64) ? (((uint64_t)1 << (n % 64)) - 1) : 0;
	return popcount64(v);
}

/* Thread i < n: a selected scalar goes to its rank among the selected
 * ones, offs[i / 64] plus the set bits below it in its word. */
ZKP_HD void density_scatter(dfr *out, const dfr *in, const uint64_t *words, const uint32_t *offs,
			    size_t i)
{
	uint64_t v = words[i / 64];
	unsigned b = (unsigned)(i % 64);
	if (!((v >> b) & 1))
		return;
	uint64_t below = b ? v & (((uint64_t)1 << b) - 1) : 0;
	out[offs[i / 64] + popcount64(below)] = in[i];
}

/* ---- Pippenger passes ---- */

ZKP_HD unsigned msm_scalar_class(const uint64_t s[4])
{
	if ((s[1] | s[2] | s[3]) != 0 || s[0] > 1)
		return MSM_OTHER;
	return s[0] ? MSM_ONE : MSM_ZERO;
}

/* Thread i < n: canonical limbs of scalar i and its class (the kernel
 * gathers the classes of a warp into bitmap words with __ballot_sync).
 * canon may be the scalars themselves: the thread reads its scalar whole
 * before it writes, and touches no other. */
ZKP_HD unsigned msm_prepare(uint64_t *canon, const dfr *scalars, size_t i)
{
	dfr s = scalars[i];
	fe_from_mont(canon + 4 * i, &s);
	return msm_scalar_class(canon + 4 * i);
}

/* Thread i < n: whether scalar i is neither 0 nor 1 (the count of those
 * chooses the window: msm_count_other). */
ZKP_HD bool msm_is_other(const dfr *scalars, size_t i)
{
	dfr s = scalars[i];
	uint64_t c[4];
	fe_from_mont(c, &s);
	return msm_scalar_class(c) == MSM_OTHER;
}

/* Zero and one scalars stay out of the buckets. */
ZKP_HD bool msm_skip(const uint32_t *zero_bits, const uint32_t *one_bits, size_t i)
{
	return bit32(zero_bits, i) || bit32(one_bits, i);
}

/* A pass covers windows [w0, w0 + kb): its arrays hold kb rows, row
 * w - w0 for window w. */

/* Thread i < n: counts[w - w0][|d_w| - 1] += 1 for every window w of the
 * pass with d_w != 0. */
ZKP_HD void msm_histogram(uint32_t *counts, const uint64_t *canon, const uint32_t *zero_bits,
			  const uint32_t *one_bits, size_t i, unsigned c, unsigned w0, unsigned kb,
			  unsigned nb)
{
	if (msm_skip(zero_bits, one_bits, i))
		return;
	const uint64_t *s = canon + 4 * i;
	for (unsigned r = 0; r < kb; r++) {
		int32_t d = booth_digit(s, w0 + r, c);
		if (d)
			msm_fetch_inc(&counts[(size_t)r * nb + (uint32_t)(d < 0 ? -d : d) - 1]);
	}
}

/* Thread i < n: entry i | sign at the cursor of its bucket in each window
 * of the pass. sorted holds kb lists of cap entries each, cap at least the
 * count of scalars other than 0 and 1 (only those have entries: a list is
 * never longer), so a witness's MSM keeps lists of its few others, not of
 * n. */
ZKP_HD void msm_scatter(uint32_t *sorted, uint32_t *cursor, const uint64_t *canon,
			const uint32_t *zero_bits, const uint32_t *one_bits, size_t i, size_t cap,
			unsigned c, unsigned w0, unsigned kb, unsigned nb)
{
	if (msm_skip(zero_bits, one_bits, i))
		return;
	const uint64_t *s = canon + 4 * i;
	for (unsigned r = 0; r < kb; r++) {
		int32_t d = booth_digit(s, w0 + r, c);
		if (!d)
			continue;
		uint32_t b = (uint32_t)(d < 0 ? -d : d) - 1;
		uint32_t pos = msm_fetch_inc(&cursor[(size_t)r * nb + b]);
		sorted[(size_t)r * cap + pos] = (uint32_t)i | (d < 0 ? MSM_SIGN_BIT : 0u);
	}
}

/* ---- bucket accumulation, balanced ----
 *
 * A window's sorted list (len entries, grouped by bucket) is cut into
 * chunks of ch entries, one thread each, whatever the buckets' sizes: a
 * scalar repeated a million times costs a million / ch threads, not one
 * thread a million additions. A chunk sums each run of one bucket in it:
 *  - a run whose bucket starts and ends inside the chunk is that bucket's
 *    sum, written to buckets directly;
 *  - the chunk's first run, when its bucket started in an earlier chunk,
 *    goes to first[chunk], and the chunk's key is that bucket;
 *  - the chunk's last run, when its bucket started in this chunk and goes
 *    on past it, goes to last[chunk].
 * A bucket spanning chunks t0 < t1 is then last[t0] + first[t0 + 1] + ...
 * + first[t1]: the chunks t0 + 1 .. t1 are consecutive and share its key.
 * A segmented inclusive scan (Hillis-Steele: log2(chunks) steps, each
 * out[t] = in[t] + in[t - d] when t - d has the same key, ping-ponging
 * between two arrays) leaves that sum of firsts at t1, and msm_bucket_finish
 * adds last[t0]. The key of chunk t0 may equal the bucket's when the
 * bucket starts at the chunk's start; its first is then infinity, which
 * the scan adds harmlessly. Serial work per thread: ch additions in the
 * chunk, one per scan step.
 *
 * Only the steps the longest bucket needs run: a bucket over chunks
 * t0 < t1 needs t1 - t0 firsts summed at t1, which the steps d = 1, 2, 4,
 * .. below t1 - t0 give; msm_acc_chunk raises the pass's span to the
 * largest t1 - t0, and a step with d >= span does nothing. Random scalars
 * spread a list's entries over all buckets (about 128 a bucket at 2^26)
 * and never span more than two chunks of 256, so their passes run no step
 * of the log2(chunks) (18 at 2^26) where each step reads and writes every
 * chunk's sums. Executed steps are always a prefix of the launched ones,
 * so the scan's result lies in the first array after an even count of
 * them and in the second after an odd one (msm_scan_steps). */

/* Entries per chunk for lists of up to n entries in each of k windows (n:
 * the scalars other than 0 and 1): the power of two in [MSM_CHUNK_MIN,
 * MSM_CHUNK_MAX] nearest above k n / MSM_CHUNK_THREADS, so that large MSMs
 * run about 2^21 threads and small ones stay fine-grained. */
ZKP_HD unsigned msm_chunk(size_t n, unsigned k)
{
	size_t want = ((size_t)k * n + MSM_CHUNK_THREADS - 1) / MSM_CHUNK_THREADS;
	unsigned ch = MSM_CHUNK_MIN;
	while (ch < MSM_CHUNK_MAX && ch < want)
		ch *= 2;
	return ch;
}

/* Chunks per window for lists of up to n entries. */
ZKP_HD size_t msm_chunks(size_t n, unsigned ch)
{
	return n ? (n + ch - 1) / ch : 1;
}

/* Buckets per thread in the running-sum pass, and segments per window. */
#define MSM_SEG 32

ZKP_HD unsigned msm_segs(unsigned nb)
{
	return nb > MSM_SEG ? nb / MSM_SEG : 1;
}

/* ---- window passes ----
 *
 * The windows' lists, counts, buckets and chunk sums need not exist for all
 * K windows at once: the MSM runs the windows in passes of kb, each pass
 * sorting, accumulating and reducing its windows in arrays of kb rows. A
 * pass holds at most MSM_PASS_BYTES (unless one window alone needs more);
 * each pass past the first reads the canonical scalars twice more (its
 * histogram and scatter), about 8 GiB at 2^27, some milliseconds of the
 * MSM's several hundred. At 2^27 random scalars, window 20: 4 passes of 4
 * windows, 3.5 GiB where all 13 at once took 11.5 GiB. */
#define MSM_PASS_BYTES ((size_t)4 << 30)

/* The bytes of a pass of kb windows (width c) over lists of cap entries,
 * XYZZ points of xyzz bytes, without alignment: what msm_pass_windows
 * weighs. */
ZKP_HD size_t msm_pass_bytes(size_t cap, unsigned c, unsigned kb, size_t xyzz)
{
	size_t nb = (size_t)1 << (c - 1);
	size_t nc = msm_chunks(cap, msm_chunk(cap, kb));
	size_t row = 4 * nb + 4 * (nb + 1) + 4 * cap + xyzz * (nb + msm_segs((unsigned)nb)) +
		     (3 * xyzz + 4) * nc;
	return kb * row;
}

/* Windows per pass: kb = ceil(K / p) for the fewest passes p whose pass
 * fits MSM_PASS_BYTES; 1 when none does. */
ZKP_HD unsigned msm_pass_windows(size_t cap, unsigned c, size_t xyzz)
{
	unsigned k = msm_windows(c);
	for (unsigned p = 1; p < k; p++) {
		unsigned kb = (k + p - 1) / p;
		if (msm_pass_bytes(cap, c, kb, xyzz) <= MSM_PASS_BYTES)
			return kb;
	}
	return 1;
}

/* The bucket b in [lo, nb) with off[b] <= e < off[b + 1], for an entry e
 * with off[lo] <= e < off[nb] (binary search over the offsets). */
ZKP_HD unsigned msm_bucket_of(const uint32_t *off, unsigned lo, unsigned nb, uint32_t e)
{
	unsigned hi = nb; /* off[lo] <= e < off[hi] */
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;
		if (off[mid] <= e)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The bucket holding entry e of a list, for e past bucket b (off[b + 1]
 * <= e < off[nb]): b + 1 when that one holds e (one load, the usual case:
 * random scalars leave few buckets empty), else a galloping search from
 * b + 1 (steps 1, 2, 4, ...) and a binary one inside the last step, so a
 * jump over g empty buckets costs about 2 log2 g loads, not g. */
ZKP_HD unsigned msm_bucket_after(const uint32_t *off, unsigned b, unsigned nb, uint32_t e)
{
	unsigned lo = b + 1, step = 1, hi = lo + 1; /* off[lo] <= e */
	while (hi < nb && off[hi] <= e) {
		lo = hi;
		step *= 2;
		hi = nb - lo > step ? lo + step : nb;
	}
	return msm_bucket_of(off, lo, hi, e);
}

/* Thread id < k nc: chunk t = id % nc of window w = id / nc, entries
 * [t ch, min((t + 1) ch, len)) of the window's list (lists cap entries
 * apart, as msm_scatter wrote them), as described above.
 * first, last and key hold k nc entries; a chunk past the list's end
 * gets infinity in both and the key MSM_NO_BUCKET. A first run raises
 * *span to the chunks its bucket spans before this one (t - t0).
 *
 * One loop over the chunk's entries, one mixed addition an iteration,
 * and a run's sum written out in the iteration that ends it: every lane
 * of a warp runs the same ch iterations whatever its buckets, and only
 * the short write-out diverges. (A loop over runs with an inner loop per
 * run keeps a warp in each run for as long as its longest lane's: with
 * bucket sizes around 128 and chunks of 32 to 256 entries, a model of
 * Poisson bucket sizes has the warp's lanes busy 50-61 % of its
 * iterations; bench/msm-warp-model.py, docs/benchmarks.md.) The next run's end, off[b + 2], is
 * loaded ahead, so the write-out waits on no load when the next bucket
 * is not empty. The sign of a digit negates the point without a branch. */
template <class E>
ZKP_HD void msm_acc_chunk(ec_xyzz<E> *buckets, ec_xyzz<E> *first, ec_xyzz<E> *last,
			  uint32_t *key, uint32_t *span, const uint32_t *sorted,
			  const uint32_t *offs, const ec_affine<E> *bases, size_t cap, unsigned nb,
			  size_t nc, unsigned ch, size_t id)
{
	size_t w = id / nc, t = id % nc;
	const uint32_t *list = sorted + w * cap;
	const uint32_t *off = offs + w * (nb + 1);
	uint32_t len = off[nb];
	uint32_t lo = (uint32_t)(t * ch), hi = lo + ch < len ? lo + ch : len;
	xyzz_set_inf(&first[id]);
	xyzz_set_inf(&last[id]);
	key[id] = MSM_NO_BUCKET;
	if (lo >= len)
		return;
	unsigned b = msm_bucket_of(off, 0, nb, lo);
	key[id] = b;
	/* bucket b's entries are [start, end); the next bucket ends at after */
	uint32_t start = off[b], end = off[b + 1], after = off[b + 2 < nb ? b + 2 : nb];
	ec_xyzz<E> acc;
	xyzz_set_inf(&acc);
	for (uint32_t e = lo; e < hi; e++) {
		uint32_t v = list[e];
		ec_affine<E> p = bases[v & ~MSM_SIGN_BIT];
		fe_cneg(&p.y, &p.y, (v & MSM_SIGN_BIT) != 0);
		xyzz_add_affine(&acc, &acc, &p);
		if (e + 1 != end && e + 1 != hi)
			continue;
		/* the run of bucket b in this chunk ends at entry e */
		if (start < lo) {
			first[id] = acc;
			msm_fetch_max(span, (uint32_t)(t - start / ch));
		} else if (end > hi)
			last[id] = acc;
		else
			buckets[w * nb + b] = acc;
		xyzz_set_inf(&acc);
		if (e + 1 == hi)
			break;
		if (after > e + 1) {
			b++;
			end = after;
		} else {
			b = msm_bucket_after(off, b + 1, nb, e + 1);
			end = off[b + 1];
		}
		start = e + 1;
		after = off[b + 2 < nb ? b + 2 : nb];
	}
}

/* Steps of the segmented scan that run for a pass of the given span: the
 * d = 1, 2, 4, .. below it. */
ZKP_HD unsigned msm_scan_steps(uint32_t span)
{
	unsigned k = 0;
	for (uint64_t d = 1; d < span; d *= 2)
		k++;
	return k;
}

/* Thread id < k nc, step d of the segmented scan: out = in, plus in[id - d]
 * when chunk t - d (t = id % nc) has the same key; nothing when the pass's
 * span needs no step d. */
template <class E>
ZKP_HD void msm_seg_step(ec_xyzz<E> *out, const ec_xyzz<E> *in, const uint32_t *key, size_t nc,
			 size_t d, uint32_t span, size_t id)
{
	if (d >= span)
		return;
	ec_xyzz<E> v = in[id];
	if (id % nc >= d && key[id] != MSM_NO_BUCKET && key[id - d] == key[id]) {
		ec_xyzz<E> u = in[id - d];
		xyzz_add(&v, &v, &u);
	}
	out[id] = v;
}

/* Thread id < k nb: bucket b = id % nb of window w = id / nb. Empty: the
 * infinity; inside one chunk: already written by msm_acc_chunk; spanning
 * chunks t0 < t1: last[t0] + scanned[t1], scanned the firsts after the
 * segmented scan: first after an even count of steps (msm_scan_steps of
 * the pass's span), first2 after an odd one. */
template <class E>
ZKP_HD void msm_bucket_finish(ec_xyzz<E> *buckets, const ec_xyzz<E> *last,
			      const ec_xyzz<E> *first, const ec_xyzz<E> *first2,
			      const uint32_t *offs, uint32_t span, unsigned nb, size_t nc,
			      unsigned ch, size_t id)
{
	const ec_xyzz<E> *scanned = msm_scan_steps(span) % 2 ? first2 : first;
	size_t w = id / nb, b = id % nb;
	const uint32_t *off = offs + w * (nb + 1);
	uint32_t s = off[b], e = off[b + 1];
	if (s == e) {
		xyzz_set_inf(&buckets[id]);
		return;
	}
	size_t t0 = s / ch, t1 = (e - 1) / ch;
	if (t0 == t1)
		return;
	ec_xyzz<E> a = last[w * nc + t0], c = scanned[w * nc + t1];
	xyzz_add(&buckets[id], &a, &c);
}

/* Thread id < k nseg: segment id % nseg of window id / nseg, buckets
 * [lo, lo + per). Walking down, run += B_b and tot += run give
 * tot = sum (b - lo + 1) B_b; bucket b holds digit b + 1, so the segment's
 * share of sum (b + 1) B_b is tot + lo run. */
template <class E>
ZKP_HD void msm_reduce(ec_xyzz<E> *segs, const ec_xyzz<E> *buckets, unsigned nb, unsigned nseg,
		       size_t id)
{
	size_t w = id / nseg, t = id % nseg;
	unsigned per = nb / nseg, lo = (unsigned)t * per;
	const ec_xyzz<E> *bk = buckets + w * nb;
	ec_xyzz<E> run, tot, sh;
	xyzz_set_inf(&run);
	xyzz_set_inf(&tot);
	for (unsigned b = lo + per; b-- > lo;) {
		ec_xyzz<E> v = bk[b];
		xyzz_add(&run, &run, &v);
		xyzz_add(&tot, &tot, &run);
	}
	xyzz_mul_small(&sh, &run, lo);
	xyzz_add(&segs[id], &tot, &sh);
}

/* Thread id < k half: segs[w][j] += segs[w][j + half] (rows of nseg). */
template <class E> ZKP_HD void msm_fold(ec_xyzz<E> *segs, unsigned nseg, unsigned half, size_t id)
{
	size_t w = id / half, j = id % half;
	ec_xyzz<E> *s = segs + w * nseg;
	ec_xyzz<E> a = s[j], b = s[j + half];
	xyzz_add(&s[j], &a, &b);
}

/* Partial sums of the batch addition for n scalars: a power of two, each
 * over at least MSM_ONES_MIN_WORDS words of the ones bitmap. */
ZKP_HD unsigned msm_ones_threads(size_t n)
{
	size_t words = (n + 31) / 32;
	unsigned p = 1;
	while (p < MSM_ONES_MAX_THREADS && (size_t)p * 2 * MSM_ONES_MIN_WORDS <= words)
		p *= 2;
	return p;
}

/* Thread t < msm_ones_threads(n): the sum of the bases whose bit is set in
 * words [t per, (t + 1) per) of the ones bitmap, per = ceil(words / p),
 * by mixed additions in index order. One loop iteration per set bit, the
 * words without one skipped inside it: a warp's lanes then add in step
 * until the one with the fewest bits is done (a loop over words with an
 * inner loop over each word's bits would keep every lane for the warp's
 * most populous word, word after word: 69 % of lanes busy at 40 % ones,
 * against 82 % for ranges of 4 words, the range at 2^20 scalars, and 95 %
 * for 64, the range at 2^27; bench/msm-warp-model.py). */
template <class E>
ZKP_HD void msm_ones_partial(ec_xyzz<E> *partial, const uint32_t *one_bits,
			     const ec_affine<E> *bases, size_t n, unsigned p, size_t t)
{
	size_t words = (n + 31) / 32, per = (words + p - 1) / p;
	size_t lo = t * per < words ? t * per : words;
	size_t hi = lo + per < words ? lo + per : words;
	ec_xyzz<E> acc;
	xyzz_set_inf(&acc);
	size_t w = lo;
	uint32_t v = w < hi ? one_bits[w] : 0;
	for (;;) {
		while (!v && ++w < hi)
			v = one_bits[w];
		if (!v)
			break;
		unsigned b = popcount64((uint64_t)((v & (0u - v)) - 1));
		v &= v - 1;
		ec_affine<E> q = bases[w * 32 + b];
		xyzz_add_affine(&acc, &acc, &q);
	}
	partial[t] = acc;
}

/* Thread r < kb of the pass from window w0: out[r] = the sum of window
 * w0 + r, segment 0 of its row; window 0 (weight 2^0) also takes the sum
 * of the ones. */
template <class E>
ZKP_HD void msm_gather(ec_xyzz<E> *out, const ec_xyzz<E> *segs, const ec_xyzz<E> *ones,
		       unsigned nseg, unsigned w0, unsigned r)
{
	ec_xyzz<E> s = segs[(size_t)r * nseg];
	if (w0 + r == 0) {
		ec_xyzz<E> o = ones[0];
		xyzz_add(&s, &s, &o);
	}
	out[r] = s;
}

#endif
