/*
 * msm: multi-scalar multiplication sum_i s_i * P_i on G1 and G2, the CPU
 * side of the prover's MSMs (H, L, A, B on G1; B on G2).
 *
 * Invariants:
 *  - Bases are affine points, the point at infinity stored as (0, 0); they
 *    may repeat, be negations of each other or be infinity. Any point on the
 *    curve is accepted (subgroup membership is not assumed).
 *  - Scalars are zkp_fr in Montgomery form, fully reduced, as the prover
 *    holds them; they are read, never written.
 *  - The result is exact for every input: n = 0 gives infinity.
 *  - Nothing here allocates and nothing fails. The caller passes a workspace
 *    of at least zkp_msm_g{1,2}_scratch_size(n, threads, opts) bytes, 64-byte
 *    aligned, where threads = zkp_pool_threads(pool) of the pool that runs
 *    the call and opts are the same options. The workspace is only borrowed:
 *    its contents are undefined afterwards and it may be reused at once.
 *    A smaller workspace is a programmer error and aborts.
 *  - Threads: every call may run on any thread and concurrently with other
 *    calls (each needs its own workspace); the work is spread over pool
 *    (NULL: the calling thread only), which may be shared with other jobs.
 *  - Results do not depend on the thread count, the window or the
 *    accumulation form (the group law is exact); only the time does.
 *
 * Method: Pippenger's bucket method with signed (Booth) digits. Scalars
 * above (r - 1)/2 are replaced by r - s with the point negated, which keeps
 * them below 2^254; a scalar is then cut into K = ceil(255 / c) windows of
 * c bits, each digit in [-2^(c-1), 2^(c-1)] read straight from c + 1
 * scalar bits (no carry pass, no digit array), so each window has 2^(c-1)
 * buckets and a point costs one addition per window with a non-zero digit.
 * Buckets accumulate in one of two forms:
 *  - XYZZ: one mixed addition per point and window, 8M + 2S, summed by the
 *    running-sum method (two additions per bucket);
 *  - batch-affine: affine buckets, additions collected into batches of up
 *    to 4096 and completed with one shared inversion (Montgomery's trick),
 *    5M + 1S per addition plus the inversion's share; a point whose bucket
 *    is already in the batch waits for the next one. The buckets are summed
 *    through the same batch engine (row and column sums, about two
 *    additions per non-empty bucket).
 * Windows are combined by c doublings each. With AUTO the window c and the
 * form come from tables measured on the 2-core x86-64 VM (src/msm/msm.c);
 * both can be forced.
 *
 * Threads: each window is a task; when the windows do not divide evenly
 * among the threads, the K mod T top windows are also cut into ranges of
 * points (each with its own buckets, summed at the end), so that the
 * threads finish together. The prepass over the scalars runs on the pool
 * too; the final combination (about 255 doublings) on the caller.
 *
 * Cost, single thread, n random scalars: about n K additions plus
 * 2 K min(n, 2^(c-1)) bucket-sum additions. On a 2-core x86-64 VM
 * (2 vCPUs, shared Zen 5, MULX/ADX Fp multiplication) G1 takes about
 * 7 us per point at n = 2^16 and 6 us at 2^18, G2 about 3 times that;
 * zkpd-bench msm prints current figures.
 *
 * Workspace: 36 bytes per scalar (the canonical scalars and base indices)
 * plus, per thread, one slot of 2^(c-1) buckets of 1 + 96 + 192 bytes on
 * G1 (1 + 192 + 384 on G2) and the batch arrays: about 5 MB per thread for
 * G1 at c = 15 (n around 2^18), 20 MB at c = 17 (n around 2^20).
 */
#ifndef ZKPD_MSM_H
#define ZKPD_MSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/ec.h"
#include "zkpd/ff.h"
#include "zkpd/pool.h"

/* Largest window a caller may force (2^21 buckets per window): wider than
 * any the backends pick themselves (the CPU's tables stop at 19, the
 * device's choice at 20), so that benches can time the next widths. */
#define ZKP_MSM_MAX_WINDOW 22

enum zkp_msm_accum {
	ZKP_MSM_AUTO,   /* the faster form for this group and size (measured) */
	ZKP_MSM_XYZZ,   /* XYZZ buckets, mixed additions */
	ZKP_MSM_AFFINE, /* batch-affine buckets */
};

/* What a device MSM's phases took, in milliseconds of device time between
 * CUDA events on its stream, summed over its window passes. */
typedef struct {
	double prepare;    /* canonical scalars, 0/1 bitmaps, batch addition of the ones */
	double sort;       /* per pass: histogram, offsets, scatter into bucket lists */
	double accumulate; /* per pass: the bucket accumulation over the lists */
	double scan;       /* per pass: the segmented scan of the chunks' partial sums */
	double reduce;     /* per pass: buckets finished, running sums, folds, gather */
	unsigned passes;   /* window passes; 0: nothing was timed (no device MSM) */
} zkp_msm_phases;

typedef struct {
	enum zkp_msm_accum accum;
	/* Window width c; 0 picks it from the measured table. Forced values
	 * are clamped to 1..ZKP_MSM_MAX_WINDOW. */
	unsigned window;
	/* Witness-like scalars: zeros are skipped and ones are summed directly
	 * (no windows), only the other scalars go through Pippenger. Pays for
	 * itself when a good share of the scalars is 0 or 1. */
	bool split;
	/* Device MSMs only: windows sorted and accumulated in one pass; 0 lets
	 * the backend keep a pass within its memory budget. For benches. */
	unsigned pass_windows;
	/* Device MSMs only: when set, the MSM times its phases with CUDA
	 * events (a few microseconds each) and writes them here; other
	 * backends leave it untouched. For benches. */
	zkp_msm_phases *phases;
} zkp_msm_opts;

/* NULL opts everywhere means { ZKP_MSM_AUTO, 0, false, 0, NULL }. */

/* Bytes of workspace that any G1 form below needs for n scalars on a pool
 * of `threads` threads (0 counts as 1) with these options; the same size
 * serves the plain and the density forms. Pure function of its arguments. */
size_t zkp_msm_g1_scratch_size(size_t n, unsigned threads, const zkp_msm_opts *opts);
size_t zkp_msm_g2_scratch_size(size_t n, unsigned threads, const zkp_msm_opts *opts);

/* ret = sum_{i < n} scalars[i] * bases[i]. bases and scalars hold n entries
 * each (either may be NULL when n = 0). n < 2^32. */
void zkp_msm_g1(zkp_g1 *ret, const zkp_g1_affine *bases, const zkp_fr *scalars, size_t n,
		const zkp_msm_opts *opts, void *scratch, size_t scratch_size, zkp_pool *pool);
void zkp_msm_g2(zkp_g2 *ret, const zkp_g2_affine *bases, const zkp_fr *scalars, size_t n,
		const zkp_msm_opts *opts, void *scratch, size_t scratch_size, zkp_pool *pool);

/* Density form, for Groth16 keys that store only the bases whose scalar can
 * be non-zero: scalar i takes part iff bit i of density is set (bit i is
 * bit i % 64 of density[i / 64]), and its base is bases[j], j = the number of
 * set bits below i. scalars and density cover n scalars; bases holds one
 * point per set bit. ret = sum over set bits i of scalars[i] * bases[j(i)].
 * Size the workspace with the scratch_size query above for the same n. */
void zkp_msm_g1_density(zkp_g1 *ret, const zkp_g1_affine *bases, const zkp_fr *scalars,
			const uint64_t *density, size_t n, const zkp_msm_opts *opts,
			void *scratch, size_t scratch_size, zkp_pool *pool);
void zkp_msm_g2_density(zkp_g2 *ret, const zkp_g2_affine *bases, const zkp_fr *scalars,
			const uint64_t *density, size_t n, const zkp_msm_opts *opts,
			void *scratch, size_t scratch_size, zkp_pool *pool);

/* How a call would cut the work: for m Pippenger points (n for the plain
 * form, the scalars other than 0 and 1 in split mode) on `threads` threads
 * with these options. For benches, tests and logs. */
typedef struct {
	enum zkp_msm_accum accum; /* XYZZ or AFFINE, never AUTO */
	unsigned window;          /* c */
	unsigned windows;         /* K = ceil(255 / c) */
	unsigned cut;             /* windows cut into point ranges (the top ones) */
	unsigned ranges;          /* point ranges each of those is cut into */
} zkp_msm_shape;

void zkp_msm_g1_shape(zkp_msm_shape *ret, size_t m, unsigned threads, const zkp_msm_opts *opts);
void zkp_msm_g2_shape(zkp_msm_shape *ret, size_t m, unsigned threads, const zkp_msm_opts *opts);

#endif
