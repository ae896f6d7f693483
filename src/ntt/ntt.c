/*
 * Radix-2 NTT over Fr.
 *
 * natural -> bit-reversed order is the decimation-in-frequency (Gentleman-
 * Sande) butterfly, bit-reversed -> natural the decimation-in-time
 * (Cooley-Tukey) one, so the two common orders need no permutation.
 *
 * Cache behaviour: the transform recurses depth-first, so once a sub-block
 * is at most LEAF elements (64 KiB) all its remaining stages run in L2.
 * Threads: the first K stages, where the blocks are still few, run as
 * parallel passes over all n/2 butterflies; after them the 2^K independent
 * blocks (2^K >= 4 x threads) run in parallel, each depth-first.
 *
 * One twiddle table serves both directions: omega^-i = -omega^(n/2 - i) for
 * 0 < i < n/2, and the sign is absorbed by swapping the butterfly's
 * subtraction (DIF) or outputs (DIT).
 */
#include <string.h>

#include "zkpd/error.h"
#include "zkpd/ntt.h"

#define LEAF 2048

/* ---- roots and tables ---- */

void zkp_ntt_root_of_unity(zkp_fr *ret, unsigned log_n, enum zkp_ntt_roots roots)
{
	/* t = (r - 1) / 2^32; generator^t has order 2^32, then square down. */
	uint64_t t[4];
	memcpy(t, ZKP_FR_MODULUS, sizeof(t));
	t[0] -= 1;
	for (int i = 0; i < 4; i++)
		t[i] = (t[i] >> 32) | (i < 3 ? t[i + 1] << 32 : 0);
	zkp_fr g;
	zkp_fr_set_u64(&g, roots == ZKP_NTT_ROOTS_SNARKJS ? 5 : 7);
	zkp_fr_pow(ret, &g, t, 4);
	for (unsigned k = log_n; k < 32; k++)
		zkp_fr_sqr(ret, ret);
}

static unsigned split_of(unsigned log_n) { return (log_n + 1) / 2; }

size_t zkp_ntt_domain_mem_size(unsigned log_n)
{
	if (log_n < 1 || log_n > ZKP_NTT_MAX_LOG)
		return 0;
	unsigned s = split_of(log_n);
	size_t elems = ((size_t)1 << (log_n - 1)) + 2 * (((size_t)1 << s) + ((size_t)1 << (log_n - s)));
	return elems * sizeof(zkp_fr);
}

/* table[i] = base^(start + i) * factor, i < count, from one pow per chunk. */
struct powers_arg {
	zkp_fr *table;
	zkp_fr base, factor;
};

static void powers_chunk(void *p, size_t begin, size_t end)
{
	struct powers_arg *a = p;
	uint64_t e[4] = { begin };
	zkp_fr acc;
	zkp_fr_pow(&acc, &a->base, e, 1);
	zkp_fr_mul(&acc, &acc, &a->factor);
	for (size_t i = begin; i < end; i++) {
		a->table[i] = acc;
		zkp_fr_mul(&acc, &acc, &a->base);
	}
}

static void fill_powers(zkp_fr *table, size_t count, const zkp_fr *base,
			const zkp_fr *factor, zkp_pool *pool)
{
	struct powers_arg a = { table, *base, *factor };
	zkp_pool_run(pool, count, count < 4096 ? count : 0, powers_chunk, &a);
}

int zkp_ntt_domain_init(zkp_ntt_domain *d, unsigned log_n, enum zkp_ntt_roots roots,
			const zkp_fr *shift, void *mem, zkp_pool *pool)
{
	if (log_n < 1 || log_n > ZKP_NTT_MAX_LOG)
		return ZKP_ERR_INVAL;
	zkp_fr g;
	if (shift)
		g = *shift;
	else
		zkp_fr_set_u64(&g, 7);
	if (zkp_fr_is_zero(&g))
		return ZKP_ERR_INVAL;

	memset(d, 0, sizeof(*d));
	d->log_n = log_n;
	d->n = (size_t)1 << log_n;
	d->split = split_of(log_n);
	zkp_ntt_root_of_unity(&d->omega, log_n, roots);
	zkp_fr_inv(&d->omega_inv, &d->omega);
	zkp_fr_set_u64(&d->n_inv, d->n);
	zkp_fr_inv(&d->n_inv, &d->n_inv);
	d->shift = g;
	zkp_fr_inv(&d->shift_inv, &g);

	size_t lo = (size_t)1 << d->split, hi = d->n >> d->split;
	zkp_fr *p = mem, *tw = p, *cs_lo = tw + d->n / 2, *cs_hi = cs_lo + lo,
	       *ci_lo = cs_hi + hi, *ci_hi = ci_lo + lo;
	zkp_fr one = ZKP_FR_ONE, step;
	fill_powers(tw, d->n / 2, &d->omega, &one, pool);
	fill_powers(cs_lo, lo, &g, &one, pool);
	uint64_t e[1] = { lo };
	zkp_fr_pow(&step, &g, e, 1);
	fill_powers(cs_hi, hi, &step, &one, pool);
	fill_powers(ci_lo, lo, &d->shift_inv, &one, pool);
	zkp_fr_pow(&step, &d->shift_inv, e, 1);
	fill_powers(ci_hi, hi, &step, &d->n_inv, pool);
	d->tw = tw;
	d->cs_lo = cs_lo;
	d->cs_hi = cs_hi;
	d->ci_lo = ci_lo;
	d->ci_hi = ci_hi;
	return 0;
}

/* ---- butterflies ---- */

struct xform {
	zkp_fr *x;
	const zkp_fr *tw;
	size_t n;
	bool inverse;
	size_t m;       /* half block size of the stage run by stage_chunk */
};

/* DIF: (a, b) <- (a + b, (a - b) * w), w = omega^(+-idx). */
static inline void bfly_dif(const struct xform *t, zkp_fr *a, zkp_fr *b, size_t idx)
{
	zkp_fr s;
	if (idx == 0) {
		zkp_fr_sub(&s, a, b);
		zkp_fr_add(a, a, b);
		*b = s;
	} else if (!t->inverse) {
		zkp_fr_sub(&s, a, b);
		zkp_fr_add(a, a, b);
		zkp_fr_mul(b, &s, &t->tw[idx]);
	} else {
		zkp_fr_sub(&s, b, a); /* (a - b) * -omega^(n/2 - idx) */
		zkp_fr_add(a, a, b);
		zkp_fr_mul(b, &s, &t->tw[t->n / 2 - idx]);
	}
}

/* DIT: (a, b) <- (a + b w, a - b w). */
static inline void bfly_dit(const struct xform *t, zkp_fr *a, zkp_fr *b, size_t idx)
{
	zkp_fr s;
	if (idx == 0) {
		s = *b;
		zkp_fr_sub(b, a, &s);
		zkp_fr_add(a, a, &s);
	} else if (!t->inverse) {
		zkp_fr_mul(&s, b, &t->tw[idx]);
		zkp_fr_sub(b, a, &s);
		zkp_fr_add(a, a, &s);
	} else {
		zkp_fr_mul(&s, b, &t->tw[t->n / 2 - idx]); /* b w = -s */
		zkp_fr_add(b, a, &s);
		zkp_fr_sub(a, a, &s);
	}
}

/* One stage of half size m over a block of `size` elements at x. */
static void stage(const struct xform *t, zkp_fr *x, size_t size, size_t m, bool dif)
{
	size_t stride = t->n / (2 * m);
	for (size_t j = 0; j < m; j++) {
		size_t idx = j * stride;
		for (size_t s = 0; s < size; s += 2 * m) {
			if (dif)
				bfly_dif(t, &x[s + j], &x[s + j + m], idx);
			else
				bfly_dit(t, &x[s + j], &x[s + j + m], idx);
		}
	}
}

static void dif_seq(const struct xform *t, zkp_fr *x, size_t size)
{
	if (size <= LEAF) {
		for (size_t m = size / 2; m >= 1; m /= 2)
			stage(t, x, size, m, true);
		return;
	}
	stage(t, x, size, size / 2, true);
	dif_seq(t, x, size / 2);
	dif_seq(t, x + size / 2, size / 2);
}

static void dit_seq(const struct xform *t, zkp_fr *x, size_t size)
{
	if (size <= LEAF) {
		for (size_t m = 1; m < size; m *= 2)
			stage(t, x, size, m, false);
		return;
	}
	dit_seq(t, x, size / 2);
	dit_seq(t, x + size / 2, size / 2);
	stage(t, x, size, size / 2, false);
}

/* Parallel pass: butterflies [begin, end) of the n/2 in one stage. */
static void stage_chunk_dif(void *p, size_t begin, size_t end)
{
	const struct xform *t = p;
	size_t m = t->m, stride = t->n / (2 * m);
	for (size_t q = begin; q < end; q++) {
		size_t j = q % m, i = (q / m) * 2 * m + j;
		bfly_dif(t, &t->x[i], &t->x[i + m], j * stride);
	}
}

static void stage_chunk_dit(void *p, size_t begin, size_t end)
{
	const struct xform *t = p;
	size_t m = t->m, stride = t->n / (2 * m);
	for (size_t q = begin; q < end; q++) {
		size_t j = q % m, i = (q / m) * 2 * m + j;
		bfly_dit(t, &t->x[i], &t->x[i + m], j * stride);
	}
}

struct blocks {
	const struct xform *t;
	size_t size;
	bool dif;
};

static void blocks_chunk(void *p, size_t begin, size_t end)
{
	const struct blocks *b = p;
	for (size_t k = begin; k < end; k++) {
		if (b->dif)
			dif_seq(b->t, b->t->x + k * b->size, b->size);
		else
			dit_seq(b->t, b->t->x + k * b->size, b->size);
	}
}

/* Stages run as whole-array parallel passes before the blocks split. */
static unsigned top_stages(size_t n, zkp_pool *pool)
{
	unsigned threads = zkp_pool_threads(pool), k = 0;
	if (threads == 1)
		return 0;
	while (((size_t)1 << k) < 4 * (size_t)threads && ((size_t)2 << k) <= n / 2)
		k++;
	return k;
}

static void transform(struct xform *t, bool dif, zkp_pool *pool)
{
	unsigned k = top_stages(t->n, pool);
	struct blocks b = { t, t->n >> k, dif };
	if (dif) {
		for (unsigned s = 0; s < k; s++) {
			t->m = t->n >> (s + 1);
			zkp_pool_run(pool, t->n / 2, 0, stage_chunk_dif, t);
		}
		zkp_pool_run(pool, (size_t)1 << k, 1, blocks_chunk, &b);
	} else {
		zkp_pool_run(pool, (size_t)1 << k, 1, blocks_chunk, &b);
		for (unsigned s = k; s-- > 0;) {
			t->m = t->n >> (s + 1);
			zkp_pool_run(pool, t->n / 2, 0, stage_chunk_dit, t);
		}
	}
}

/* ---- permutation and scaling ---- */

static inline size_t bitrev(size_t i, unsigned log_n)
{
	uint64_t v = i;
	v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
	v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
	v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
	v = __builtin_bswap64(v);
	return (size_t)(v >> (64 - log_n));
}

struct permute_arg {
	zkp_fr *x;
	unsigned log_n;
};

static void permute_chunk(void *p, size_t begin, size_t end)
{
	const struct permute_arg *a = p;
	for (size_t i = begin; i < end; i++) {
		size_t j = bitrev(i, a->log_n);
		if (i < j) {
			zkp_fr t = a->x[i];
			a->x[i] = a->x[j];
			a->x[j] = t;
		}
	}
}

void zkp_ntt_bitrev_permute(zkp_fr *x, unsigned log_n, zkp_pool *pool)
{
	struct permute_arg a = { x, log_n };
	zkp_pool_run(pool, (size_t)1 << log_n, 0, permute_chunk, &a);
}

struct bitrev_sub_arg {
	zkp_fr *x;
	const zkp_fr *y, *scale;
	unsigned log_n;
};

/* Each pair (i, rev(i)) is handled by its smaller index, so chunks touch
 * disjoint elements. */
static void bitrev_sub_chunk(void *p, size_t begin, size_t end)
{
	const struct bitrev_sub_arg *a = p;
	for (size_t i = begin; i < end; i++) {
		size_t j = a->log_n ? bitrev(i, a->log_n) : i; /* 2^0: rev(0) = 0 */
		if (i > j)
			continue;
		zkp_fr u, v;
		zkp_fr_sub(&u, &a->x[j], &a->y[j]);
		zkp_fr_sub(&v, &a->x[i], &a->y[i]);
		if (a->scale) {
			zkp_fr_mul(&u, &u, a->scale);
			zkp_fr_mul(&v, &v, a->scale);
		}
		a->x[i] = u;
		a->x[j] = v;
	}
}

void zkp_ntt_bitrev_sub(zkp_fr *x, const zkp_fr *y, const zkp_fr *scale, unsigned log_n,
			zkp_pool *pool)
{
	struct bitrev_sub_arg a = { x, y, scale, log_n };
	zkp_pool_run(pool, (size_t)1 << log_n, 0, bitrev_sub_chunk, &a);
}

struct scale_arg {
	zkp_fr *x;
	const zkp_fr *lo, *hi; /* factor(k) = lo[k & mask] * hi[k >> split] */
	unsigned log_n, split;
	bool bitrev;
	const zkp_fr *uniform; /* when set, every element times *uniform */
};

static void scale_chunk(void *p, size_t begin, size_t end)
{
	const struct scale_arg *a = p;
	size_t mask = ((size_t)1 << a->split) - 1;
	for (size_t i = begin; i < end; i++) {
		if (a->uniform) {
			zkp_fr_mul(&a->x[i], &a->x[i], a->uniform);
			continue;
		}
		size_t k = a->bitrev ? bitrev(i, a->log_n) : i;
		zkp_fr f;
		zkp_fr_mul(&f, &a->lo[k & mask], &a->hi[k >> a->split]);
		zkp_fr_mul(&a->x[i], &a->x[i], &f);
	}
}

void zkp_ntt(zkp_fr *x, const zkp_ntt_domain *d, const zkp_ntt_opts *opts, zkp_pool *pool)
{
	struct xform t = { x, d->tw, d->n, opts->inverse, 0 };
	struct scale_arg sc = { x, NULL, NULL, d->log_n, d->split, false, NULL };

	if (!opts->inverse && opts->coset) {
		sc.lo = d->cs_lo;
		sc.hi = d->cs_hi;
		sc.bitrev = opts->in_order == ZKP_NTT_BITREV;
		zkp_pool_run(pool, d->n, 0, scale_chunk, &sc);
	}

	bool in_nat = opts->in_order == ZKP_NTT_NATURAL;
	bool out_nat = opts->out_order == ZKP_NTT_NATURAL;
	if (in_nat && !out_nat) {
		transform(&t, true, pool);
	} else if (!in_nat && out_nat) {
		transform(&t, false, pool);
	} else if (in_nat && out_nat) {
		transform(&t, true, pool);
		zkp_ntt_bitrev_permute(x, d->log_n, pool);
	} else {
		zkp_ntt_bitrev_permute(x, d->log_n, pool);
		transform(&t, true, pool);
	}

	if (opts->inverse) {
		if (opts->coset) {
			sc.lo = d->ci_lo; /* n^-1 is folded into ci_hi */
			sc.hi = d->ci_hi;
			sc.bitrev = !out_nat;
		} else {
			sc.uniform = &d->n_inv;
		}
		zkp_pool_run(pool, d->n, 0, scale_chunk, &sc);
	}
}
