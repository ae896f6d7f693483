/*
 * Pippenger MSM on the device, for G1 and G2 (the same kernels, templates
 * over the coordinate field), and the density compaction in front of it.
 * Every kernel here is a wrapper around one per-thread function of
 * cuda/msm.cuh, which the host unit test runs on the CPU. G2 points are
 * twice the size of G1 ones and an addition costs three times the Fp
 * multiplications; the flow and the workspace layout are the same.
 *
 * 1. Scalars leave Montgomery form (one multiplication by 1 each) in
 *    place: the caller hands over a copy it owns (the shim's compacted or
 *    copied scalars), whose 32 bytes per scalar take the canonical limbs.
 *    Each is classified as 0, 1 or other; a warp's classes become one
 *    32-bit word of the zeros bitmap and one of the ones bitmap
 *    (__ballot_sync).
 * 2-4 run in passes of kb windows (msm_pass_windows: a pass's arrays
 *    within MSM_PASS_BYTES), every per-window array holding kb rows; each
 *    pass's gather writes its windows' sums into the K of the workspace.
 * 2. Counting sort per window over the "other" scalars only: a histogram of
 *    bucket indices |d_w| over all (scalar, window) pairs, an exclusive
 *    scan per window, and a scatter of point index | sign into one list per
 *    window ordered by bucket. Digits (cuda/msm.cuh) are recomputed from the
 *    canonical scalar in both passes rather than stored. Zero digits take
 *    no place. The lists are sized by the count of "other" scalars (cap,
 *    from msm_count_other), not by n: a witness MSM whose scalars are 98 %
 *    bits keeps lists, and runs chunks, for the 2 % only.
 * 3. Bucket accumulation without atomics, balanced (msm.cuh): each thread
 *    takes a fixed-size chunk of a window's sorted list, whatever buckets
 *    it holds, and adds the points into XYZZ accumulators (madd-2008-s, the
 *    point negated for a negative digit), one addition per loop iteration
 *    so that a warp's lanes stay in step; buckets inside a chunk are
 *    written at once, the pieces of buckets spanning chunks are combined
 *    by a segmented scan over the chunks (log2 launches, of which only
 *    those the longest bucket needs do any work) and a finishing pass per
 *    bucket. Skewed scalars (one value repeated, small integers) cost the
 *    same serial depth as uniform ones: a chunk plus the scan.
 * 4. Bucket reduction by running sums: each thread takes S consecutive
 *    buckets [lo, lo + S) of one window; walking down from the top, run +=
 *    B_b and tot += run give tot = sum (b - lo + 1) B_b, so the segment's
 *    share of sum_b b B_b is tot + lo run (lo run by double-and-add). The
 *    segment results of a window are then summed pairwise in log2 steps.
 * 5. Batch addition of the ones, before the passes: P threads (a power of
 *    two, up to 2^16) each sum the bases of the set bits in a contiguous
 *    range of ones-bitmap words with mixed additions; the P partials are
 *    folded pairwise in log2 P launches (no atomics). The result is added
 *    to window 0's sum on the device by the first pass's gather, before the
 *    window sums leave: window 0 has weight 2^0, so the host's Horner step
 *    needs no change.
 * 6. The K window sums go back to the host, which combines them (Horner,
 *    c doublings per window) with the C ec layer.
 *
 * Cost: m K mixed additions for the m scalars other than 0 and 1
 * (K = ceil(256 / c)), one mixed addition per 1, about 2 K 2^(c-1)
 * bucket-sum additions and K 2^(c-1) / S small scalar multiplications.
 * The window c is chosen by the shim from m, the count of scalars other
 * than 0 and 1 (msm_count_other, one pass over the scalars before the
 * workspace is sized), not from n: on witness-like scalars n would pick a
 * window too wide for the few that reach the buckets. The chunk pass adds
 * about 3 K (m / ch) points of workspace and, for buckets that span chunks,
 * up to log2(m / ch) additions per chunk in the scan. Workspace: the
 * lists (4 m a window), buckets (2^(c-1) points a window) and chunk sums
 * (3 m / ch points a window) of the kb windows of one pass, and n / 4 of
 * bitmaps: at most what n random scalars need, which is what device memory
 * admission plans for. The scalars' 32 n are the caller's.
 */
#ifndef ZKPD_CUDA_MSM_PIPPENGER_CUH
#define ZKPD_CUDA_MSM_PIPPENGER_CUH

#include "kernels.cuh"
#include "msm.cuh"

/* Threads per block of the MSM's kernels, each declared with its count in
 * __launch_bounds__ (ptxas may then give a thread up to 255 registers;
 * no minimum of resident blocks is asked, which would cap them: that
 * trade of registers against occupancy is for a GPU to measure). */
#define MSM_BLOCK 128
#define MSM_GATHER_THREADS 64

/* The point kernels (curve arithmetic, 150-240 registers) may also ask for
 * a minimum of resident blocks (cmake ZKPD_CUDA_MSM_MIN_BLOCKS), trading
 * spills for occupancy; docs/benchmarks.md has ptxas's figures. */
#ifndef ZKPD_MSM_MIN_BLOCKS
#define ZKPD_MSM_MIN_BLOCKS 0
#endif
#if ZKPD_MSM_MIN_BLOCKS > 0
#define MSM_POINT_BOUNDS __launch_bounds__(MSM_BLOCK, ZKPD_MSM_MIN_BLOCKS)
#else
#define MSM_POINT_BOUNDS __launch_bounds__(MSM_BLOCK)
#endif
struct ws_layout {
	size_t zero_bits, one_bits, counts, offs, sorted, buckets, segs, ones, win;
	size_t first, first2, last, keys, span, total;
	unsigned k, nb, nseg; /* windows, buckets and segments per window */
	unsigned kb;          /* windows per pass */
	unsigned nones;       /* partial sums of the batch addition */
	unsigned ch;          /* entries per chunk of the accumulation */
	size_t nc;            /* chunks per window */
};

static size_t align256(size_t v)
{
	return (v + 255) & ~(size_t)255;
}

/* n scalars, cap of them at most other than 0 and 1 (the sorted lists' and
 * the chunks' size), window c, kb windows a pass (0: msm_pass_windows).
 * The per-window arrays have kb rows; win holds all K window sums. */
template <class E> static ws_layout layout_of(size_t n, size_t cap, unsigned c, unsigned kb)
{
	typedef ec_xyzz<E> xyzz;
	ws_layout l;
	size_t words = (n + 31) / 32;
	l.k = msm_windows(c);
	l.kb = kb ? (kb < l.k ? kb : l.k) : msm_pass_windows(cap, c, sizeof(xyzz));
	l.nb = 1u << (c - 1);
	l.nseg = msm_segs(l.nb);
	l.nones = msm_ones_threads(n);
	l.ch = msm_chunk(cap, l.kb);
	l.nc = msm_chunks(cap, l.ch);
	size_t off = 0, rows = l.kb;
	l.zero_bits = off;
	off += align256(words * sizeof(uint32_t));
	l.one_bits = off;
	off += align256(words * sizeof(uint32_t));
	l.counts = off;
	off += align256(rows * l.nb * sizeof(uint32_t));
	l.offs = off;
	off += align256(rows * (l.nb + 1) * sizeof(uint32_t));
	l.sorted = off;
	off += align256(rows * cap * sizeof(uint32_t));
	l.buckets = off;
	off += align256(rows * l.nb * sizeof(xyzz));
	l.segs = off;
	off += align256(rows * l.nseg * sizeof(xyzz));
	l.ones = off;
	off += align256((size_t)l.nones * sizeof(xyzz));
	l.win = off;
	off += align256((size_t)l.k * sizeof(xyzz));
	l.first = off;
	off += align256(rows * l.nc * sizeof(xyzz));
	l.first2 = off;
	off += align256(rows * l.nc * sizeof(xyzz));
	l.last = off;
	off += align256(rows * l.nc * sizeof(xyzz));
	l.keys = off;
	off += align256(rows * l.nc * sizeof(uint32_t));
	l.span = off;
	off += align256(sizeof(uint32_t));
	l.total = off;
	return l;
}

static unsigned grid_for(size_t threads)
{
	return (unsigned)((threads + MSM_BLOCK - 1) / MSM_BLOCK);
}

static __device__ size_t thread_id(void)
{
	return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

/* Every thread of a warp takes part in the ballots (no early exit); lane 0
 * writes the warp's words. MSM_BLOCK is a multiple of 32. */
static __global__ void __launch_bounds__(MSM_BLOCK)
k_prepare(uint64_t *canon, uint32_t *zero_bits, uint32_t *one_bits, const dfr *scalars, size_t n)
{
	size_t i = thread_id();
	unsigned cls = i < n ? msm_prepare(canon, scalars, i) : (unsigned)MSM_OTHER;
	uint32_t zw = __ballot_sync(0xffffffffu, cls == MSM_ZERO);
	uint32_t ow = __ballot_sync(0xffffffffu, cls == MSM_ONE);
	if ((threadIdx.x & 31) == 0 && i < n) {
		zero_bits[i / 32] = zw;
		one_bits[i / 32] = ow;
	}
}

static __global__ void __launch_bounds__(MSM_BLOCK)
k_histogram(uint32_t *counts, const uint64_t *canon, const uint32_t *zero_bits,
	    const uint32_t *one_bits, size_t n, unsigned c, unsigned w0, unsigned kb, unsigned nb)
{
	size_t i = thread_id();
	if (i < n)
		msm_histogram(counts, canon, zero_bits, one_bits, i, c, w0, kb, nb);
}

/* One block of MSM_SCAN_THREADS per segment of len counts (msm.cuh). */
static __global__ void __launch_bounds__(MSM_SCAN_THREADS)
k_scan(uint32_t *counts, uint32_t *offs, size_t len)
{
	__shared__ uint32_t part[2][MSM_SCAN_THREADS];
	uint32_t *cnt = counts + (size_t)blockIdx.x * len;
	uint32_t *off = offs + (size_t)blockIdx.x * (len + 1);
	unsigned t = threadIdx.x, src = 0;
	scan_load(part[0], cnt, len, t, MSM_SCAN_THREADS);
	__syncthreads();
	for (unsigned d = 1; d < MSM_SCAN_THREADS; d *= 2) {
		scan_step(part[src ^ 1], part[src], t, d);
		__syncthreads();
		src ^= 1;
	}
	scan_store(cnt, off, part[src], len, t, MSM_SCAN_THREADS);
}

static __global__ void __launch_bounds__(MSM_BLOCK)
k_scatter(uint32_t *sorted, uint32_t *cursor, const uint64_t *canon, const uint32_t *zero_bits,
	  const uint32_t *one_bits, size_t n, size_t cap, unsigned c, unsigned w0, unsigned kb,
	  unsigned nb)
{
	size_t i = thread_id();
	if (i < n)
		msm_scatter(sorted, cursor, canon, zero_bits, one_bits, i, cap, c, w0, kb, nb);
}

template <class E>
static __global__ void MSM_POINT_BOUNDS
k_acc_chunk(ec_xyzz<E> *buckets, ec_xyzz<E> *first, ec_xyzz<E> *last, uint32_t *key,
	    uint32_t *span, const uint32_t *sorted, const uint32_t *offs,
	    const ec_affine<E> *bases, size_t cap, unsigned k, unsigned nb, size_t nc, unsigned ch)
{
	size_t id = thread_id();
	if (id < (size_t)k * nc)
		msm_acc_chunk(buckets, first, last, key, span, sorted, offs, bases, cap, nb, nc,
			      ch, id);
}

template <class E>
static __global__ void MSM_POINT_BOUNDS
k_seg_step(ec_xyzz<E> *out, const ec_xyzz<E> *in, const uint32_t *key, const uint32_t *span,
	   unsigned k, size_t nc, size_t d)
{
	size_t id = thread_id();
	if (id < (size_t)k * nc)
		msm_seg_step(out, in, key, nc, d, *span, id);
}

template <class E>
static __global__ void MSM_POINT_BOUNDS
k_bucket_finish(ec_xyzz<E> *buckets, const ec_xyzz<E> *last, const ec_xyzz<E> *first,
		const ec_xyzz<E> *first2, const uint32_t *offs, const uint32_t *span, unsigned k,
		unsigned nb, size_t nc, unsigned ch)
{
	size_t id = thread_id();
	if (id < (size_t)k * nb)
		msm_bucket_finish(buckets, last, first, first2, offs, *span, nb, nc, ch, id);
}

template <class E>
static __global__ void MSM_POINT_BOUNDS
k_reduce(ec_xyzz<E> *segs, const ec_xyzz<E> *buckets, unsigned k, unsigned nb, unsigned nseg)
{
	size_t id = thread_id();
	if (id < (size_t)k * nseg)
		msm_reduce(segs, buckets, nb, nseg, id);
}

template <class E>
static __global__ void MSM_POINT_BOUNDS
k_fold(ec_xyzz<E> *segs, unsigned k, unsigned nseg, unsigned half)
{
	size_t id = thread_id();
	if (id < (size_t)k * half)
		msm_fold(segs, nseg, half, id);
}

template <class E>
static __global__ void MSM_POINT_BOUNDS
k_ones(ec_xyzz<E> *partial, const uint32_t *one_bits, const ec_affine<E> *bases, size_t n,
       unsigned p)
{
	size_t t = thread_id();
	if (t < p)
		msm_ones_partial(partial, one_bits, bases, n, p, t);
}

template <class E>
static __global__ void __launch_bounds__(MSM_GATHER_THREADS)
k_gather(ec_xyzz<E> *out, const ec_xyzz<E> *segs, const ec_xyzz<E> *ones, unsigned nseg,
	 unsigned w0, unsigned kb)
{
	unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < kb)
		msm_gather(out, segs, ones, nseg, w0, r);
}

/* Pairwise folds of `count` rows of `len` (a power of two) points. */
template <class E>
static void fold_rows(ec_xyzz<E> *rows, unsigned count, unsigned len, cudaStream_t stream)
{
	for (unsigned half = len / 2; half >= 1; half /= 2)
		k_fold<E><<<grid_for((size_t)count * half), MSM_BLOCK, 0, stream>>>(rows, count,
									       len, half);
}

/* ---- phase times (zkp_msm_opts.phases) ---- */

enum msm_phase {
	MSM_PHASE_START,
	MSM_PHASE_PREPARE,
	MSM_PHASE_SORT,
	MSM_PHASE_ACCUMULATE,
	MSM_PHASE_SCAN,
	MSM_PHASE_REDUCE,
};

/* A start, the preparation, then four phases a pass, at most 64 passes
 * (one window each, c >= 4). */
#define MSM_MARKS_MAX (2 + 4 * 64)

/* Events recorded on the stream where a phase ends, each tagged with that
 * phase; none when out is NULL. */
struct msm_marks {
	zkp_msm_phases *out;
	cudaEvent_t ev[MSM_MARKS_MAX];
	unsigned char phase[MSM_MARKS_MAX];
	unsigned n, passes;
};

static void marks_init(msm_marks *mk, zkp_msm_phases *out)
{
	mk->out = out;
	mk->n = mk->passes = 0;
}

static cudaError_t marks_add(msm_marks *mk, msm_phase phase, cudaStream_t stream)
{
	if (!mk->out || mk->n == MSM_MARKS_MAX)
		return cudaSuccess;
	cudaEvent_t ev;
	cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDefault);
	if (e != cudaSuccess)
		return e;
	mk->ev[mk->n] = ev;
	mk->phase[mk->n++] = (unsigned char)phase;
	return cudaEventRecord(ev, stream);
}

/* After the stream's work has ended (done) the times between consecutive
 * marks go to the phase each ends; the events are destroyed either way. */
static cudaError_t marks_finish(msm_marks *mk, bool done)
{
	cudaError_t e = cudaSuccess;
	if (!mk->out)
		return e;
	if (done) {
		zkp_msm_phases *o = mk->out;
		double *slot[] = { NULL, &o->prepare, &o->sort, &o->accumulate, &o->scan, &o->reduce };
		*o = zkp_msm_phases{};
		for (unsigned i = 1; i < mk->n && e == cudaSuccess; i++) {
			float ms = 0;
			e = cudaEventElapsedTime(&ms, mk->ev[i - 1], mk->ev[i]);
			*slot[mk->phase[i]] += ms;
		}
		o->passes = e == cudaSuccess ? mk->passes : 0;
	}
	for (unsigned i = 0; i < mk->n; i++)
		(void)cudaEventDestroy(mk->ev[i]);
	mk->n = 0;
	return e;
}

template <class E>
static cudaError_t msm_queue(ec_xyzz<E> *win_host, const ec_affine<E> *bases, dfr *scalars,
			     size_t n, size_t cap, unsigned c, unsigned kb, void *ws,
			     msm_marks *mk, cudaStream_t stream)
{
	typedef ec_xyzz<E> xyzz;
	ws_layout l = layout_of<E>(n, cap, c, kb);
	char *base = (char *)ws;
	/* The scalars' canonical limbs take their place (same size). */
	uint64_t *canon = (uint64_t *)scalars;
	uint32_t *zero_bits = (uint32_t *)(base + l.zero_bits);
	uint32_t *one_bits = (uint32_t *)(base + l.one_bits);
	uint32_t *counts = (uint32_t *)(base + l.counts);
	uint32_t *offs = (uint32_t *)(base + l.offs);
	uint32_t *sorted = (uint32_t *)(base + l.sorted);
	xyzz *buckets = (xyzz *)(base + l.buckets);
	xyzz *segs = (xyzz *)(base + l.segs);
	xyzz *ones = (xyzz *)(base + l.ones);
	xyzz *win = (xyzz *)(base + l.win);
	xyzz *first = (xyzz *)(base + l.first);
	xyzz *first2 = (xyzz *)(base + l.first2);
	xyzz *last = (xyzz *)(base + l.last);
	uint32_t *keys = (uint32_t *)(base + l.keys);
	uint32_t *span = (uint32_t *)(base + l.span);
	cudaError_t e = marks_add(mk, MSM_PHASE_START, stream);
	if (e != cudaSuccess)
		return e;

	if (n) {
		k_prepare<<<grid_for(n), MSM_BLOCK, 0, stream>>>(canon, zero_bits, one_bits,
								 scalars, n);
		k_ones<E><<<grid_for(l.nones), MSM_BLOCK, 0, stream>>>(ones, one_bits, bases, n,
								       l.nones);
		fold_rows(ones, 1, l.nones, stream);
	} else {
		/* A zeroed XYZZ point has ZZ = 0: infinity. */
		e = cudaMemsetAsync(ones, 0, sizeof(xyzz), stream);
		if (e != cudaSuccess)
			return e;
	}
	if ((e = marks_add(mk, MSM_PHASE_PREPARE, stream)) != cudaSuccess)
		return e;
	for (unsigned w0 = 0; w0 < l.k; w0 += l.kb) {
		unsigned kb = l.k - w0 < l.kb ? l.k - w0 : l.kb;
		e = cudaMemsetAsync(counts, 0, (size_t)kb * l.nb * sizeof(uint32_t), stream);
		if (e == cudaSuccess)
			e = cudaMemsetAsync(span, 0, sizeof(uint32_t), stream);
		if (e != cudaSuccess)
			return e;
		if (n)
			k_histogram<<<grid_for(n), MSM_BLOCK, 0, stream>>>(
				counts, canon, zero_bits, one_bits, n, c, w0, kb, l.nb);
		k_scan<<<kb, MSM_SCAN_THREADS, 0, stream>>>(counts, offs, l.nb);
		if (n)
			k_scatter<<<grid_for(n), MSM_BLOCK, 0, stream>>>(
				sorted, counts, canon, zero_bits, one_bits, n, cap, c, w0, kb, l.nb);
		if ((e = marks_add(mk, MSM_PHASE_SORT, stream)) != cudaSuccess)
			return e;
		size_t chunks = (size_t)kb * l.nc;
		xyzz *in = first, *out = first2;
		k_acc_chunk<E><<<grid_for(chunks), MSM_BLOCK, 0, stream>>>(
			buckets, first, last, keys, span, sorted, offs, bases, cap, kb, l.nb, l.nc,
			l.ch);
		if ((e = marks_add(mk, MSM_PHASE_ACCUMULATE, stream)) != cudaSuccess)
			return e;
		/* every step the list could need is launched; those past the
		 * pass's span return at once (msm.cuh) */
		for (size_t d = 1; d < l.nc; d *= 2) {
			k_seg_step<E><<<grid_for(chunks), MSM_BLOCK, 0, stream>>>(out, in, keys, span,
										  kb, l.nc, d);
			xyzz *t = in;
			in = out;
			out = t;
		}
		if ((e = marks_add(mk, MSM_PHASE_SCAN, stream)) != cudaSuccess)
			return e;
		k_bucket_finish<E><<<grid_for((size_t)kb * l.nb), MSM_BLOCK, 0, stream>>>(
			buckets, last, first, first2, offs, span, kb, l.nb, l.nc, l.ch);
		k_reduce<E><<<grid_for((size_t)kb * l.nseg), MSM_BLOCK, 0, stream>>>(
			segs, buckets, kb, l.nb, l.nseg);
		fold_rows(segs, kb, l.nseg, stream);
		k_gather<E><<<1, MSM_GATHER_THREADS, 0, stream>>>(win + w0, segs, ones, l.nseg, w0,
								  kb);
		e = cudaGetLastError();
		if (e == cudaSuccess)
			e = marks_add(mk, MSM_PHASE_REDUCE, stream);
		if (e != cudaSuccess)
			return e;
		mk->passes++;
	}
	return cudaMemcpyAsync(win_host, win, (size_t)l.k * sizeof(xyzz), cudaMemcpyDeviceToHost,
			       stream);
}

/* The MSM of kernels.cuh's msm_g?_run: queued, waited for, and its phases
 * timed where asked. */
template <class E>
static cudaError_t msm_run(ec_xyzz<E> *win_host, const ec_affine<E> *bases, dfr *scalars,
			   size_t n, size_t cap, unsigned c, unsigned kb, void *ws,
			   zkp_msm_phases *phases, cudaStream_t stream)
{
	msm_marks mk;
	marks_init(&mk, phases);
	cudaError_t e = msm_queue<E>(win_host, bases, scalars, n, cap, c, kb, ws, &mk, stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(stream);
	cudaError_t t = marks_finish(&mk, e == cudaSuccess);
	return e != cudaSuccess ? e : t;
}

#endif
