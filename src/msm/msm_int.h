/*
 * Private declarations shared by the msm/ sources: the scalar recoding, the
 * plan (window, accumulation form, how the work is cut into tasks) and the
 * workspace layout. The group arithmetic lives in msm_tmpl.h, instantiated
 * once per group.
 */
#ifndef ZKPD_MSM_INT_H
#define ZKPD_MSM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/ff.h"
#include "zkpd/msm.h"

/* Scalars are stored canonical and folded: s <= (r-1)/2 < 2^254 in bits
 * 0..253, and bit 255 set when the point must be negated (s was replaced by
 * r - s). */
#define MSM_SCALAR_BITS 254
#define MSM_NEG_BIT (1ULL << 63) /* in limb 3 */

/* Per-group numbers the plan needs. */
struct msm_group {
	size_t aff_size, xyzz_size, fe_size;
	/* Measured tables, indexed by floor(log2 m) for m Pippenger points
	 * (msm.c). */
	const uint8_t *win_affine, *win_xyzz;
	const uint8_t *auto_affine; /* 1: batch-affine is faster at this size */
};

extern const struct msm_group msm_group_g1, msm_group_g2;

/* Points per workspace chunk of the scalar pre-pass. */
#define MSM_PREP_CHUNK 8192
/* Lanes of the direct (0/1 split) sums: independent affine accumulators,
 * point k of a task going to lane k mod lanes, so a batch (half the lanes)
 * never meets a lane twice. A task uses 256..MSM_ONES_LANES lanes, about
 * one per 32 points, and sums them by a tree at the end. */
#define MSM_ONES_LANES 2048
/* Smallest slice of the ones list worth a task of its own: enough points
 * that the lanes and their final sum stay a small share. */
#define MSM_ONES_MIN_TASK 16384

struct msm_plan {
	unsigned c;        /* window width */
	unsigned nwin;     /* K = ceil(255 / c) windows */
	unsigned nwhole;   /* windows 0..nwhole-1 are one task each */
	unsigned ranges;   /* the others are cut into this many point ranges */
	size_t nb;         /* buckets per window, 2^(c-1) */
	bool affine;
	unsigned batch, qcap;   /* batch-affine batch size and retry queue */
	size_t npip;       /* Pippenger tasks: nwhole + (nwin - nwhole) * ranges;
			    * window w, range r leaves its point in results
			    * [w * ranges + r], ones task t in [nwin * ranges + t] */
	size_t nones;      /* tasks summing the 0/1-split ones */
	size_t ones_per;   /* points per ones task */
	size_t nslots;     /* concurrent workers, one bucket slot each */
	size_t slot_bytes; /* workspace of one slot */
};

/* The plan for m Pippenger points and `ones` direct points on `threads`
 * threads. Deterministic in its arguments. */
void msm_plan_make(struct msm_plan *p, const struct msm_group *g, size_t m, size_t ones,
		   unsigned threads, const zkp_msm_opts *opts);

/* Bytes of one slot: state, XYZZ and (when affine) affine buckets for nbk
 * buckets, plus the batch arrays when affine. */
size_t msm_slot_bytes(const struct msm_group *g, size_t nbk, bool affine, unsigned batch,
		      unsigned qcap);

/* Workspace layout. Everything is 64-byte aligned from the base. */
struct msm_layout {
	size_t canon;    /* uint64_t[4] per scalar */
	size_t idx;      /* uint32_t per scalar: base indices */
	size_t counts;   /* size_t[3] per pre-pass chunk */
	size_t results;  /* one XYZZ per task, results_cap of them */
	size_t results_cap;
	size_t slots;    /* nslots_cap slots of slot_stride bytes */
	size_t slot_stride, nslots_cap;
	size_t end;
};

size_t msm_prep_chunks(size_t n, unsigned threads);
/* The layout for n scalars on `threads` threads with these options; it
 * holds every plan msm_plan_make can produce for m + ones <= n. */
void msm_layout_make(struct msm_layout *l, const struct msm_group *g, size_t n,
		     unsigned threads, const zkp_msm_opts *opts);
size_t msm_scratch_size(const struct msm_group *g, size_t n, unsigned threads,
			const zkp_msm_opts *opts);

static inline size_t msm_align(size_t x) { return (x + 63) & ~(size_t)63; }

/* Canonical, folded limbs of s (see MSM_NEG_BIT). */
void msm_scalar_fold(uint64_t out[4], const zkp_fr *s);

/* Reads window k of a folded scalar: the c + 1 bits [kc - 1, kc + c - 1]
 * (bit -1 is 0) and turns them into the Booth digit
 *   d = b_{kc-1} + sum_{j<c} b_{kc+j} 2^j - b_{kc+c-1} 2^c,
 * in [-2^(c-1), 2^(c-1)]. Summed over k with weights 2^(kc) the boundary
 * bits telescope to s itself as long as bit Kc - 1 is 0, which
 * s < 2^254 <= 2^(Kc-1) guarantees: no carry pass, no digit array. */
struct msm_win {
	unsigned lo, hi;     /* limbs holding the window */
	unsigned sh;         /* shift of the window's bit 0 in limb lo */
	uint64_t mlo, mhi;   /* masks: drop the negation flag, or a missing limb */
	uint32_t mask;       /* c + 1 bits */
	unsigned c;
};

void msm_win_init(struct msm_win *w, unsigned k, unsigned c);

static inline int32_t msm_digit(const uint64_t *s, const struct msm_win *w)
{
	uint64_t lo = s[w->lo] & w->mlo, hi = s[w->hi] & w->mhi;
	/* (hi << 1) << (63 - sh) is hi << (64 - sh) without the undefined
	 * shift by 64 when sh = 0. */
	uint32_t v = (uint32_t)((lo >> w->sh) | ((hi << 1) << (63 - w->sh))) & w->mask;
	return (int32_t)((v + 1) >> 1) - (int32_t)((v >> w->c) << w->c);
}

#endif
