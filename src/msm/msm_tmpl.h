/*
 * Pippenger's bucket method for one group, written once and instantiated
 * for G1 and G2.
 *
 * The including file defines, then includes this file:
 *   FE, FE_ADD, FE_SUB, FE_DBL, FE_NEG, FE_MUL, FE_SQR, FE_IS_ZERO, FE_EQ,
 *   FE_INV          the coordinate field and its operations
 *   BATCH_NORM(n, d), BATCH_INV(r, d, ninv)
 *                   the batch inversion's map to Fp and back (see record())
 *   PT, PT_AFF, PT_XYZZ, PN(x)   the group's types and zkp_g?_x functions
 *   MSM_NAME(x)     the public name zkp_msm_g?##x
 *   GROUP           the group's struct msm_group
 *
 * Flow of one call: a pre-pass turns the scalars into canonical, folded
 * limbs (dropping zeros, ones and infinity bases in split mode, following
 * the density bitmap in the density form); tasks, each one window over all
 * points or over one range of them, run on the pool, each in a private slot
 * of buckets, and leave one point each; the caller sums ranges and combines
 * windows by doublings (Horner's rule, c doublings per window).
 *
 * Batch-affine accumulation (the method of gnark-crypto's MSM, after
 * Montgomery's simultaneous inversion): adding Q to an affine bucket B is
 *   lambda = (yQ - yB) / (xQ - xB),  x = lambda^2 - xB - xQ,
 *   y = lambda (xB - x) - yB,
 * 1M + 1S + 1M once the inverse is known. A batch records up to `batch`
 * additions with the running products pre[e] = d_0 ... d_e of their
 * denominators (1M each), inverts pre[last] once, and walks back:
 * 1/d_e = inv * pre[e-1], inv *= d_e (2M each). Total 5M + 1S per addition
 * plus 1/batch of an inversion, against 8M + 2S for an XYZZ mixed addition.
 * A bucket already in the batch cannot take a second addition (its
 * coordinates are not final), so such a point waits in a small queue and is
 * retried after the flush; if the queue is full it goes to an XYZZ side
 * bucket instead, so heavy buckets (many equal scalars) degrade to XYZZ
 * speed rather than to one inversion per point. Q = B (doubling: lambda =
 * 3 x^2 / 2y) and Q = -B (the bucket empties) are recognised when the
 * addition is recorded, since the bucket is final then.
 *
 * Affine buckets are summed with the same engine (reduce_affine): the
 * weighted sum splits into row and column sums whose additions are
 * independent, about 2 batch-affine additions per non-empty bucket instead
 * of the running sum's dependent XYZZ pair (8M + 2S and 12M + 2S). XYZZ
 * buckets (the slot's side array is then the bucket array) use the running
 * sum.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Bucket state bits. */
#define ST_AFF 1u   /* the affine bucket holds a point */
#define ST_BATCH 2u /* an addition into it is pending in the batch */
#define ST_SIDE 4u  /* the XYZZ side bucket holds a point */
#define ST_COL 8u   /* bucket reduction: the column copy holds a point */

/* Batch entry flags. */
#define EF_NEG 1u
#define EF_DBL 2u
#define EF_COL 4u /* the destination is col[b], not bkt[b] */

/* One worker's view of its slot. */
struct slot {
	uint8_t *st;
	PT_XYZZ *side;
	PT_AFF *bkt;
	PT_AFF *col; /* bucket reduction only: column sums, in side memory */
	zkp_fp *pre, *nrm; /* prefix products of the denominators' norms; norms */
	FE *den;           /* denominators */
	uint32_t *eb;
	const PT_AFF **ep;
	uint8_t *ef;
	uint32_t *qb;
	const PT_AFF **qp;
	uint8_t *qf;
	size_t ne, nq, batch, qcap;
};

/* Carves the slot the same way msm_slot_bytes sizes it. */
static void slot_bind(struct slot *s, uint8_t *mem, size_t nbk, bool affine, unsigned batch,
		      unsigned qcap)
{
	memset(s, 0, sizeof(*s));
	s->st = mem;
	mem += msm_align(nbk);
	s->side = (PT_XYZZ *)mem;
	mem += msm_align(nbk * sizeof(PT_XYZZ));
	if (!affine)
		return;
	s->bkt = (PT_AFF *)mem;
	mem += msm_align(nbk * sizeof(PT_AFF));
	s->pre = (zkp_fp *)mem;
	mem += msm_align(batch * sizeof(zkp_fp));
	s->nrm = (zkp_fp *)mem;
	mem += msm_align(batch * sizeof(zkp_fp));
	s->den = (FE *)mem;
	mem += msm_align(batch * sizeof(FE));
	s->eb = (uint32_t *)mem;
	mem += msm_align(batch * sizeof(uint32_t));
	s->ep = (const PT_AFF **)mem;
	mem += msm_align(batch * sizeof(void *));
	s->ef = mem;
	mem += msm_align(batch);
	s->qb = (uint32_t *)mem;
	mem += msm_align(qcap * sizeof(uint32_t));
	s->qp = (const PT_AFF **)mem;
	mem += msm_align(qcap * sizeof(void *));
	s->qf = mem;
	s->batch = batch;
	s->qcap = qcap;
}

/* side[b] += (neg ? -P : P), XYZZ mixed addition (8M + 2S). */
static inline void side_add(struct slot *s, uint32_t b, const PT_AFF *P, unsigned neg)
{
	PT_XYZZ *S = &s->side[b];
	if (!(s->st[b] & ST_SIDE)) {
		S->x = P->x;
		if (neg)
			FE_NEG(&S->y, &P->y);
		else
			S->y = P->y;
		S->zz = ONE_FE;
		S->zzz = ONE_FE;
		s->st[b] |= ST_SIDE;
	} else if (neg) {
		PN(xyzz_sub_affine)(S, S, P);
	} else {
		PN(xyzz_add_affine)(S, S, P);
	}
}

static void aff_flush(struct slot *s);

/* Appends denominator d to the batch's running product. The product runs
 * over BATCH_NORM(d) in Fp: d itself on G1, and on G2 the norm
 * d0^2 + d1^2, with 1/d = conj(d) / norm recovered by BATCH_INV, which
 * turns the 3 Fp2 multiplications per element of Montgomery's trick into
 * 3 Fp multiplications plus 2 squarings and 2 multiplications. */
static inline void record(struct slot *s, const FE *d)
{
	size_t e = s->ne;
	BATCH_NORM(&s->nrm[e], d);
	if (e)
		zkp_fp_mul(&s->pre[e], &s->pre[e - 1], &s->nrm[e]);
	else
		s->pre[0] = s->nrm[0];
	s->den[e] = *d;
}

/* Records bkt[b] += (neg ? -P : P) in the batch, or settles it at once when
 * the bucket is empty or the sum is infinity. P is never infinity. */
static void aff_insert(struct slot *s, uint32_t b, const PT_AFF *P, unsigned neg)
{
	unsigned st = s->st[b];
	if (st & ST_BATCH) {
		if (s->nq < s->qcap) {
			s->qb[s->nq] = b;
			s->qp[s->nq] = P;
			s->qf[s->nq] = (uint8_t)neg;
			s->nq++;
		} else {
			side_add(s, b, P, neg);
		}
		return;
	}
	PT_AFF *B = &s->bkt[b];
	if (!(st & ST_AFF)) {
		B->x = P->x;
		if (neg)
			FE_NEG(&B->y, &P->y);
		else
			B->y = P->y;
		s->st[b] = (uint8_t)(st | ST_AFF);
		return;
	}
	FE d;
	unsigned f = neg;
	FE_SUB(&d, &P->x, &B->x);
	if (FE_IS_ZERO(&d)) {
		FE y;
		if (neg)
			FE_NEG(&y, &P->y);
		else
			y = P->y;
		/* B + (-B) = infinity, and so is 2B for a 2-torsion point. */
		if (!FE_EQ(&y, &B->y) || FE_IS_ZERO(&y)) {
			s->st[b] = (uint8_t)(st & ~ST_AFF);
			return;
		}
		FE_DBL(&d, &B->y);
		f |= EF_DBL;
	}
	record(s, &d);
	size_t e = s->ne;
	s->eb[e] = b;
	s->ep[e] = P;
	s->ef[e] = (uint8_t)f;
	s->st[b] = (uint8_t)(st | ST_BATCH);
	if (++s->ne == s->batch)
		aff_flush(s);
}

/* Completes the batch with one inversion, then retries the queue. The
 * queue holds fewer entries than a batch, so the retries cannot fill the
 * new batch and recurse. */
static void aff_flush(struct slot *s)
{
	size_t n = s->ne;
	if (n) {
		zkp_fp inv, ninv;
		FE ij, num, lam, x3, t;
		zkp_fp_inv(&inv, &s->pre[n - 1]);
		for (size_t e = n; e-- > 0;) {
			if (e >= 2) {
				const PT_AFF *nB = s->ef[e - 2] & EF_COL ? &s->col[s->eb[e - 2]]
									  : &s->bkt[s->eb[e - 2]];
				__builtin_prefetch(nB);
				__builtin_prefetch((const char *)nB + sizeof(PT_AFF) - 1);
				__builtin_prefetch(s->ep[e - 2]);
				__builtin_prefetch((const char *)s->ep[e - 2] + sizeof(PT_AFF) - 1);
			}
			uint32_t b = s->eb[e];
			PT_AFF *B = s->ef[e] & EF_COL ? &s->col[b] : &s->bkt[b];
			const PT_AFF *P = s->ep[e];
			unsigned f = s->ef[e];
			if (e) {
				zkp_fp_mul(&ninv, &inv, &s->pre[e - 1]);
				zkp_fp_mul(&inv, &inv, &s->nrm[e]);
			} else {
				ninv = inv;
			}
			BATCH_INV(&ij, &s->den[e], &ninv);
			const FE *x2;
			bool flip = false;
			if (f & EF_DBL) {
				FE_SQR(&num, &B->x);
				FE_DBL(&t, &num);
				FE_ADD(&num, &num, &t);
				x2 = &B->x;
			} else if (f & EF_NEG) {
				/* yQ = -yP: use -lambda = (yP + yB) / d; lambda^2
				 * is the same and y = (-lambda)(x - xB) - yB. */
				FE_ADD(&num, &P->y, &B->y);
				flip = true;
				x2 = &P->x;
			} else {
				FE_SUB(&num, &P->y, &B->y);
				x2 = &P->x;
			}
			FE_MUL(&lam, &num, &ij);
			FE_SQR(&x3, &lam);
			FE_SUB(&x3, &x3, &B->x);
			FE_SUB(&x3, &x3, x2);
			if (flip)
				FE_SUB(&t, &x3, &B->x);
			else
				FE_SUB(&t, &B->x, &x3);
			FE_MUL(&t, &t, &lam);
			FE_SUB(&B->y, &t, &B->y);
			B->x = x3;
			s->st[b] &= (uint8_t)~ST_BATCH;
		}
		s->ne = 0;
	}
	size_t nq = s->nq;
	s->nq = 0;
	for (size_t k = 0; k < nq; k++) {
		uint32_t b = s->qb[k];
		const PT_AFF *P = s->qp[k];
		unsigned neg = s->qf[k];
		aff_insert(s, b, P, neg); /* may re-queue at index <= k */
	}
}

static void aff_finish(struct slot *s)
{
	while (s->ne || s->nq)
		aff_flush(s);
}

static inline void set_inf(PT_XYZZ *p) { PN(xyzz_set_infinity)(p); }

/* Running-sum bucket reduction over buckets [base, base + nb):
 * sum_b (b + 1) B_b = sum_b (sum_{b' >= b} B_b'), two additions per bucket
 * (8M + 2S and 12M + 2S) from the highest non-empty one down. Used for XYZZ
 * buckets. */
static void reduce_running(const struct slot *s, size_t base, size_t nb, PT_XYZZ *out)
{
	const uint8_t *st = s->st + base;
	size_t top = nb;
	while (top && !st[top - 1])
		top--;
	PT_XYZZ run, tot;
	set_inf(&run);
	set_inf(&tot);
	for (size_t b = top; b-- > 0;) {
		if (st[b] & ST_AFF)
			PN(xyzz_add_affine)(&run, &run, &s->bkt[base + b]);
		if (st[b] & ST_SIDE)
			PN(xyzz_add)(&run, &run, &s->side[base + b]);
		PN(xyzz_add)(&tot, &tot, &run);
	}
	*out = tot;
}

/* Records arr[b] += P (bit `bit` of st[b] says whether arr[b] holds a
 * point) for a caller that guarantees arr[b] takes no other addition and P
 * stays unchanged until the next aff_finish. */
static void pair_insert(struct slot *s, PT_AFF *arr, uint32_t b, unsigned bit, const PT_AFF *P)
{
	PT_AFF *B = &arr[b];
	unsigned st = s->st[b];
	if (!(st & bit)) {
		*B = *P;
		s->st[b] = (uint8_t)(st | bit);
		return;
	}
	FE d;
	unsigned f = bit == ST_COL ? EF_COL : 0;
	FE_SUB(&d, &P->x, &B->x);
	if (FE_IS_ZERO(&d)) {
		if (!FE_EQ(&P->y, &B->y) || FE_IS_ZERO(&P->y)) {
			s->st[b] = (uint8_t)(st & ~bit);
			return;
		}
		FE_DBL(&d, &B->y);
		f |= EF_DBL;
	}
	record(s, &d);
	size_t e = s->ne;
	s->eb[e] = b;
	s->ep[e] = P;
	s->ef[e] = (uint8_t)f;
	if (++s->ne == s->batch)
		aff_flush(s);
}

/* Moves the XYZZ side buckets of [base, base + nb) into the affine ones:
 * each is normalised in place (x = X (ZZ/ZZZ)^2, y = Y/ZZZ, one shared
 * inversion per chunk) and added to its affine bucket. Side buckets exist
 * only where the retry queue overflowed, i.e. for heavy buckets. */
static void fold_sides(struct slot *s, size_t base, size_t nb)
{
	size_t b = base, end = base + nb;
	while (b < end) {
		size_t k = 0;
		for (; b < end && k < s->qcap; b++) {
			if (!(s->st[b] & ST_SIDE))
				continue;
			s->st[b] &= (uint8_t)~ST_SIDE;
			if (FE_IS_ZERO(&s->side[b].zz))
				continue; /* the side sum came to infinity */
			if (k)
				FE_MUL(&s->den[k], &s->den[k - 1], &s->side[b].zzz);
			else
				s->den[0] = s->side[b].zzz;
			s->qb[k++] = (uint32_t)b;
		}
		if (!k)
			break;
		FE inv, iz, t;
		FE_INV(&inv, &s->den[k - 1]);
		for (size_t i = k; i-- > 0;) {
			PT_XYZZ *S = &s->side[s->qb[i]];
			if (i) {
				FE_MUL(&iz, &inv, &s->den[i - 1]);
				FE_MUL(&inv, &inv, &S->zzz);
			} else {
				iz = inv;
			}
			PT_AFF a;
			FE_MUL(&t, &S->zz, &iz); /* 1/z */
			FE_SQR(&t, &t);
			FE_MUL(&a.x, &S->x, &t);
			FE_MUL(&a.y, &S->y, &iz);
			*(PT_AFF *)S = a;
		}
		for (size_t i = 0; i < k; i++)
			pair_insert(s, s->bkt, s->qb[i], ST_AFF, (const PT_AFF *)&s->side[s->qb[i]]);
		aff_finish(s);
	}
}

/* Bucket reduction for affine buckets, sum_{w=1}^{N} w B_{w-1} with N = nb.
 * Write w - 1 = a L + l (l < L, a < A = N/L, L ~ sqrt N); then
 *   sum_w w B = L sum_a a S_a + sum_l (l + 1) T_l,
 * with row sums S_a = sum_l B_{aL+l} and column sums T_l = sum_a B_{aL+l}.
 * The row and column sums are 2N - A - L additions of affine points with
 * no dependency inside a tree level, so they run through the batch-affine
 * engine (5M + 1S each) instead of the running sum's dependent chain of
 * 8M + 2S and 12M + 2S per bucket; only the two short running sums over A
 * and L points and log2(L) doublings remain in XYZZ. Rows are summed in
 * bkt in place, columns in a copy placed in the (free by then) side area. */
static void reduce_affine(struct slot *s, size_t base, size_t nb, PT_XYZZ *out)
{
	fold_sides(s, base, nb);
	unsigned lg = 0;
	while (((size_t)1 << (lg + 1)) <= nb)
		lg++;
	size_t L = (size_t)1 << (lg / 2), A = nb / L;
	PT_AFF *bkt = s->bkt + base, *col = (PT_AFF *)(s->side + base);
	uint8_t *st = s->st + base;
	PT_AFF *save_bkt = s->bkt;
	uint8_t *save_st = s->st;
	s->bkt = bkt;
	s->col = col;
	s->st = st;
	size_t top = nb;
	while (top && !(st[top - 1] & ST_AFF))
		top--;
	for (size_t b = 0; b < top; b++) {
		if (st[b] & ST_AFF) {
			col[b] = bkt[b];
			st[b] |= ST_COL;
		}
	}
	/* Tree levels: rows pair l with l + 2^k, columns a with a + 2^k. */
	for (size_t h = 1; h < L || h < A; h *= 2) {
		if (h < L) {
			for (size_t a = 0; a * L < top; a++)
				for (size_t l = 0; l + h < L; l += 2 * h)
					if (st[a * L + l + h] & ST_AFF)
						pair_insert(s, bkt, (uint32_t)(a * L + l), ST_AFF,
							    &bkt[a * L + l + h]);
		}
		if (h < A) {
			for (size_t a = 0; a + h < A && (a + h) * L < top; a += 2 * h)
				for (size_t l = 0; l < L; l++)
					if (st[(a + h) * L + l] & ST_COL)
						pair_insert(s, col, (uint32_t)(a * L + l), ST_COL,
							    &col[(a + h) * L + l]);
		}
		aff_finish(s);
	}
	PT_XYZZ run, tot, t2;
	/* L * sum_{a >= 1} a S_a */
	set_inf(&run);
	set_inf(&tot);
	for (size_t a = A; a-- > 1;) {
		if (st[a * L] & ST_AFF)
			PN(xyzz_add_affine)(&run, &run, &bkt[a * L]);
		PN(xyzz_add)(&tot, &tot, &run);
	}
	for (size_t h = 1; h < L; h *= 2)
		PN(xyzz_dbl)(&tot, &tot);
	/* + sum_l (l + 1) T_l */
	set_inf(&run);
	set_inf(&t2);
	for (size_t l = L; l-- > 0;) {
		if (st[l] & ST_COL)
			PN(xyzz_add_affine)(&run, &run, &col[l]);
		PN(xyzz_add)(&t2, &t2, &run);
	}
	PN(xyzz_add)(out, &tot, &t2);
	s->bkt = save_bkt;
	s->st = save_st;
	s->col = NULL;
}

/* ---- tasks ---- */

struct job {
	const PT_AFF *bases;
	const uint64_t *canon;   /* 4 limbs per Pippenger point */
	const uint32_t *idx;     /* base of Pippenger point i, NULL: i */
	const uint32_t *ones;    /* base of ones point k is ones[-k] */
	size_t m, nones;
	bool ones_affine;
	const struct msm_plan *p;
	PT_XYZZ *results;
	uint8_t *slots;
	size_t stride;
	atomic_size_t next;
};

#define PF_DIST 8

/* Adds the replicas of each of the D buckets of a replicated window,
 * bucket d + D r for r < R, into bucket d: log2(R) tree levels of
 * independent affine additions. */
static void sum_replicas(struct slot *s, size_t base, size_t D, size_t R)
{
	fold_sides(s, base, D * R);
	for (size_t h = 1; h < R; h *= 2) {
		for (size_t r = 0; r + h < R; r += 2 * h)
			for (size_t d = 0; d < D; d++) {
				size_t src = base + d + D * (r + h);
				if (s->st[src] & ST_AFF)
					pair_insert(s, s->bkt, (uint32_t)(base + d + D * r), ST_AFF,
						    &s->bkt[src]);
			}
		aff_finish(s);
	}
}

/* Task t: one window over one range of the points, reduced to one point. */
static void pip_task(struct job *j, size_t t, uint8_t *mem)
{
	const struct msm_plan *p = j->p;
	unsigned w, r = 0, nr = 1;
	if (t < p->nwhole) {
		w = (unsigned)t;
	} else {
		w = p->nwhole + (unsigned)((t - p->nwhole) / p->ranges);
		r = (unsigned)((t - p->nwhole) % p->ranges);
		nr = p->ranges;
	}
	size_t lo = j->m * r / nr, hi = j->m * (r + 1) / nr;
	size_t nb = p->nb;
	struct msm_win win;
	msm_win_init(&win, w, p->c);
	/* Bucket of digit magnitude v: (v - 1) + D (i & rm). A window that
	 * reaches past bit 253 has digits of at most 2^tb, tb = 254 - wc, so
	 * only D = 2^tb of its buckets can be hit; with batch-affine buckets
	 * the slot holds R = nb / D replicas of them, point i going to replica
	 * i mod R, so consecutive points never meet in a batch. Other windows
	 * have rm = 0. */
	size_t D = nb, rm = 0;
	if (p->affine && (size_t)w * p->c + p->c - 1 > MSM_SCALAR_BITS) {
		unsigned tb = MSM_SCALAR_BITS - w * p->c;
		if (tb < p->c - 1) {
			D = (size_t)1 << tb;
			rm = nb / D - 1;
		}
	}

	struct slot s;
	slot_bind(&s, mem, nb, p->affine, p->batch, p->qcap);
	memset(s.st, 0, nb);

	for (size_t i = lo; i < hi; i++) {
		if (i + PF_DIST < hi) {
			/* The buckets are random accesses into a few hundred KB
			 * to MB: fetch the lines a few points ahead. */
			size_t in = i + PF_DIST;
			int32_t d = msm_digit(j->canon + 4 * in, &win);
			if (d) {
				size_t b = (size_t)(d > 0 ? d : -d) - 1 + D * (in & rm);
				if (p->affine) {
					__builtin_prefetch(&s.bkt[b]);
					__builtin_prefetch((const char *)&s.bkt[b] + sizeof(PT_AFF) - 1);
				} else {
					__builtin_prefetch(&s.side[b]);
					__builtin_prefetch((const char *)&s.side[b] + sizeof(PT_XYZZ) - 1);
				}
				__builtin_prefetch(&s.st[b]);
			}
		}
		const uint64_t *sc = j->canon + 4 * i;
		int32_t d = msm_digit(sc, &win);
		if (!d)
			continue;
		const PT_AFF *P = &j->bases[j->idx ? j->idx[i] : i];
		uint32_t b = (uint32_t)((size_t)(d > 0 ? d : -d) - 1 + D * (i & rm));
		unsigned neg = (unsigned)(sc[3] >> 63) ^ (d < 0);
		if (p->affine)
			aff_insert(&s, b, P, neg);
		else
			side_add(&s, b, P, neg);
	}
	PT_XYZZ *out = &j->results[(size_t)w * p->ranges + r];
	if (!p->affine) {
		reduce_running(&s, 0, nb, out);
		return;
	}
	aff_finish(&s);
	if (rm)
		sum_replicas(&s, 0, D, rm + 1);
	reduce_affine(&s, 0, D, out);
}

/* Sum of the bases of the ones in [lo, hi): batch-affine over independent
 * lanes, then the lanes summed by a tree. */
static void ones_task(struct job *j, size_t t, uint8_t *mem)
{
	const struct msm_plan *p = j->p;
	size_t lo = t * p->ones_per;
	size_t hi = lo + p->ones_per < j->nones ? lo + p->ones_per : j->nones;
	PT_XYZZ *out = &j->results[(size_t)p->nwin * p->ranges + t];
	if (!j->ones_affine) {
		set_inf(out);
		for (size_t k = lo; k < hi; k++)
			PN(xyzz_add_affine)(out, out, &j->bases[j->ones[-(ptrdiff_t)k]]);
		return;
	}
	size_t lanes = 256;
	while (lanes < MSM_ONES_LANES && lanes * 32 <= hi - lo)
		lanes *= 2;
	struct slot s;
	slot_bind(&s, mem, lanes, true, (unsigned)lanes / 2, (unsigned)lanes / 4);
	memset(s.st, 0, lanes);
	for (size_t k = lo; k < hi; k++)
		aff_insert(&s, (uint32_t)((k - lo) & (lanes - 1)), &j->bases[j->ones[-(ptrdiff_t)k]], 0);
	aff_finish(&s);
	sum_replicas(&s, 0, 1, lanes);
	if (s.st[0] & ST_AFF)
		PN(xyzz_from_affine)(out, &s.bkt[0]);
	else
		set_inf(out);
}

/* One pool chunk per slot: claim tasks until none are left. */
static void worker(void *arg, size_t begin, size_t end)
{
	struct job *j = arg;
	size_t ntasks = j->p->npip + j->p->nones;
	for (size_t sl = begin; sl < end; sl++) {
		uint8_t *mem = j->slots + sl * j->stride;
		for (;;) {
			size_t t = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
			if (t >= ntasks)
				break;
			if (t < j->p->npip)
				pip_task(j, t, mem);
			else
				ones_task(j, t - j->p->npip, mem);
		}
	}
}

/* ---- scalar pre-pass ---- */

struct prep {
	const PT_AFF *bases;
	const zkp_fr *scalars;
	const uint64_t *density; /* NULL: every scalar has bases[i] */
	bool split;
	size_t n, nch;
	uint64_t *canon;
	uint32_t *idx;
	size_t *counts; /* per chunk: bases, rest, ones; then their starts */
};

static inline bool has_base(const uint64_t *density, size_t i)
{
	return !density || (density[i / 64] >> (i % 64) & 1);
}

/* Set bits of density in [lo, hi). */
static size_t count_bits(const uint64_t *density, size_t lo, size_t hi)
{
	size_t c = 0;
	while (lo < hi && lo % 64) {
		c += has_base(density, lo);
		lo++;
	}
	for (; lo + 64 <= hi; lo += 64)
		c += (size_t)__builtin_popcountll(density[lo / 64]);
	for (; lo < hi; lo++)
		c += has_base(density, lo);
	return c;
}

static void prep_plain(void *arg, size_t begin, size_t end)
{
	const struct prep *a = arg;
	for (size_t i = begin; i < end; i++) {
		if (PN(affine_is_infinity)(&a->bases[i]))
			memset(a->canon + 4 * i, 0, 4 * sizeof(uint64_t));
		else
			msm_scalar_fold(a->canon + 4 * i, &a->scalars[i]);
	}
}

static void chunk_range(const struct prep *a, size_t ch, size_t *lo, size_t *hi)
{
	*lo = ch * a->n / a->nch;
	*hi = (ch + 1) * a->n / a->nch;
}

static void prep_count_bases(void *arg, size_t begin, size_t end)
{
	const struct prep *a = arg;
	for (size_t ch = begin; ch < end; ch++) {
		size_t lo, hi;
		chunk_range(a, ch, &lo, &hi);
		a->counts[3 * ch] = a->density ? count_bits(a->density, lo, hi) : hi - lo;
	}
}

/* 0: skip (zero scalar or infinity base), 1: a one, 2: Pippenger. */
static int classify(const struct prep *a, size_t i, size_t j)
{
	if (PN(affine_is_infinity)(&a->bases[j]) || zkp_fr_is_zero(&a->scalars[i]))
		return 0;
	return zkp_fr_is_one(&a->scalars[i]) ? 1 : 2;
}

static void prep_count_split(void *arg, size_t begin, size_t end)
{
	const struct prep *a = arg;
	for (size_t ch = begin; ch < end; ch++) {
		size_t lo, hi, j = a->counts[3 * ch], rest = 0, ones = 0;
		chunk_range(a, ch, &lo, &hi);
		for (size_t i = lo; i < hi; i++) {
			if (!has_base(a->density, i))
				continue;
			int k = classify(a, i, j++);
			rest += k == 2;
			ones += k == 1;
		}
		a->counts[3 * ch + 1] = rest;
		a->counts[3 * ch + 2] = ones;
	}
}

static void prep_write(void *arg, size_t begin, size_t end)
{
	const struct prep *a = arg;
	for (size_t ch = begin; ch < end; ch++) {
		size_t lo, hi, j = a->counts[3 * ch], rest = a->counts[3 * ch + 1],
			       ones = a->counts[3 * ch + 2];
		chunk_range(a, ch, &lo, &hi);
		for (size_t i = lo; i < hi; i++) {
			if (!has_base(a->density, i))
				continue;
			if (!a->split) { /* density only: keep rank order, no indices */
				if (PN(affine_is_infinity)(&a->bases[j]))
					memset(a->canon + 4 * j, 0, 4 * sizeof(uint64_t));
				else
					msm_scalar_fold(a->canon + 4 * j, &a->scalars[i]);
				j++;
				continue;
			}
			int k = classify(a, i, j);
			if (k == 2) {
				msm_scalar_fold(a->canon + 4 * rest, &a->scalars[i]);
				a->idx[rest++] = (uint32_t)j;
			} else if (k == 1) {
				a->idx[a->n - 1 - ones++] = (uint32_t)j;
			}
			j++;
		}
	}
}

/* Exclusive prefix sums of column col of counts. */
static size_t prefix(size_t *counts, size_t nch, unsigned col)
{
	size_t acc = 0;
	for (size_t ch = 0; ch < nch; ch++) {
		size_t c = counts[3 * ch + col];
		counts[3 * ch + col] = acc;
		acc += c;
	}
	return acc;
}

/* ---- driver ---- */

static void msm_run(PT *ret, const PT_AFF *bases, const zkp_fr *scalars,
		    const uint64_t *density, size_t n, const zkp_msm_opts *opts, void *scratch,
		    size_t scratch_size, zkp_pool *pool)
{
	if (n == 0) {
		PN(set_infinity)(ret);
		return;
	}
	unsigned T = zkp_pool_threads(pool);
	bool split = opts && opts->split;
	struct msm_layout l;
	msm_layout_make(&l, GROUP, n, T, opts);
	if (!scratch || scratch_size < l.end)
		abort(); /* workspace not sized by the scratch_size query */
	uint8_t *ws = scratch;

	struct prep a = { bases, scalars, density, split, n, msm_prep_chunks(n, T),
			  (uint64_t *)(ws + l.canon), (uint32_t *)(ws + l.idx),
			  (size_t *)(ws + l.counts) };
	size_t m = n, nones = 0;
	if (!density && !split) {
		zkp_pool_run(pool, n, n < 4096 ? n : 0, prep_plain, &a);
	} else {
		zkp_pool_run(pool, a.nch, 1, prep_count_bases, &a);
		m = prefix(a.counts, a.nch, 0);
		if (split) {
			zkp_pool_run(pool, a.nch, 1, prep_count_split, &a);
			m = prefix(a.counts, a.nch, 1);
			nones = prefix(a.counts, a.nch, 2);
		}
		zkp_pool_run(pool, a.nch, 1, prep_write, &a);
	}

	struct msm_plan p;
	msm_plan_make(&p, GROUP, m, nones, T, opts);
	if ((size_t)p.nwin * p.ranges + p.nones > l.results_cap || p.slot_bytes > l.slot_stride ||
	    p.nslots > l.nslots_cap)
		abort(); /* the layout's bounds do not cover this plan */

	struct job j = {
		.bases = bases, .canon = a.canon, .idx = split ? a.idx : NULL,
		.ones = a.idx + n - 1, .m = m, .nones = nones,
		.ones_affine = !(opts && opts->accum == ZKP_MSM_XYZZ), .p = &p,
		.results = (PT_XYZZ *)(ws + l.results), .slots = ws + l.slots,
		.stride = l.slot_stride,
	};
	atomic_init(&j.next, 0);
	if (p.nslots)
		zkp_pool_run(pool, p.nslots, 1, worker, &j);

	/* sum_w 2^(cw) W_w by Horner's rule, from the top window. */
	PT_XYZZ acc;
	set_inf(&acc);
	bool started = false;
	if (p.npip) {
		for (unsigned w = p.nwin; w-- > 0;) {
			if (started)
				for (unsigned k = 0; k < p.c; k++)
					PN(xyzz_dbl)(&acc, &acc);
			unsigned nr = w < p.nwhole ? 1 : p.ranges;
			for (unsigned r = 0; r < nr; r++)
				PN(xyzz_add)(&acc, &acc, &j.results[(size_t)w * p.ranges + r]);
			started = started || !FE_IS_ZERO(&acc.zz);
		}
	}
	for (size_t t = 0; t < p.nones; t++)
		PN(xyzz_add)(&acc, &acc, &j.results[(size_t)p.nwin * p.ranges + t]);
	PN(from_xyzz)(ret, &acc);
}

void MSM_NAME()(PT *ret, const PT_AFF *bases, const zkp_fr *scalars, size_t n,
		const zkp_msm_opts *opts, void *scratch, size_t scratch_size, zkp_pool *pool)
{
	msm_run(ret, bases, scalars, NULL, n, opts, scratch, scratch_size, pool);
}

void MSM_NAME(_density)(PT *ret, const PT_AFF *bases, const zkp_fr *scalars,
			const uint64_t *density, size_t n, const zkp_msm_opts *opts,
			void *scratch, size_t scratch_size, zkp_pool *pool)
{
	msm_run(ret, bases, scalars, density, n, opts, scratch, scratch_size, pool);
}

size_t MSM_NAME(_scratch_size)(size_t n, unsigned threads, const zkp_msm_opts *opts)
{
	return msm_scratch_size(GROUP, n, threads, opts);
}

void MSM_NAME(_shape)(zkp_msm_shape *ret, size_t m, unsigned threads, const zkp_msm_opts *opts)
{
	struct msm_plan p;
	msm_plan_make(&p, GROUP, m ? m : 1, 0, threads, opts);
	ret->accum = p.affine ? ZKP_MSM_AFFINE : ZKP_MSM_XYZZ;
	ret->window = p.c;
	ret->windows = p.nwin;
	ret->cut = p.nwin - p.nwhole;
	ret->ranges = p.ranges;
}
