/*
 * The PoRep-shaped synthetic circuit (include/zkpd/synth.h has the shape).
 *
 * Mix. Per constraint the 32 GiB partition has A 2.3749, B 1.0004,
 * C 2.1696 non-zeros, 0.99916 aux variables and 0.25416 aux variables in B.
 * With the row kinds below (non-zeros A/B/C, new aux, new aux in B, per row)
 *   bool 2/1/0 1 1   xor 1/1/3 1 0   and 1/1/1 1 0   ch 2/1/2 1 0
 *   maj (two rows) 2/1/1.5 1 0       pack 254/1/1 1 0
 *   add 256/1/132 0 0                poseidon (4 rows) 3/1/1.25 1 0.75
 *   input 64/1/1 0 0
 * fixing and = 2%, maj = 4%, poseidon = 1.3% (about what 14 Poseidon-11
 * columns and ten octree levels per challenge come to) and inputs at
 * 327/130,278,869 leaves five linear equations (rows, A, C, aux, aux in B)
 * in five unknowns, whose solution is the shares table below. Every kind
 * has exactly one B term per row, so B comes out at 1.0000 (0.04% under).
 *
 * Scheduling. Before each row the kind with the largest deficit
 * share * rows_so_far - rows_of_kind (among the kinds whose operands
 * exist) goes next; booleanity needs nothing and is always ready. Deficits
 * stay within a few rows of zero, so any prefix keeps the mix. Readiness
 * depends only on how many variables of each pool exist, which depends only
 * on the schedule: the structure is a function of N, the seed picks only
 * operands and bit values.
 *
 * Pools. Operands come from rings of recent variables: all bits (A-side
 * operands, taken oldest-unused first so computed bits get consumed like
 * in SHA-256, else the newest), bits already in B (B-side operands, drawn
 * at random, so the share of aux variables in B is set by the booleanity
 * and Poseidon rows alone), and field elements (packing results and
 * Poseidon outputs, which feed new Poseidon permutations).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zkpd/rng.h"
#include "zkpd/synth.h"

enum kind { K_BOOL, K_XOR, K_AND, K_CH, K_MAJ, K_PACK, K_ADD, K_POS, N_KINDS };

#define SHARE_ONE 100000000LL
/* Rows of each kind per SHARE_ONE rows; the remaining 251 are inputs. */
static const int64_t shares[N_KINDS] = {
	[K_BOOL] = 24441463, [K_XOR] = 60285869, [K_AND] = 2000000, [K_CH] = 7582346,
	[K_MAJ] = 4000000,   [K_PACK] = 306674,  [K_ADD] = 83397,   [K_POS] = 1300000,
};
static const unsigned kind_rows[N_KINDS] = { 1, 1, 1, 1, 2, 1, 1, 1 };

#define BITS_CAP 8192  /* ring of recent bits */
#define BRING_CAP 4096 /* ring of recent bits that are in B */
#define NUMS_CAP 512   /* ring of recent field elements */

#define PACK_BITS 254
#define INPUT_BITS 64
#define ADD_WORDS 4
#define ADD_SHIFT 33 /* bits per 32-bit sum, and the shift between sums */
#define ADD_OPERAND_BITS (ADD_WORDS * 64)
#define ADD_RESULT_BITS (ADD_WORDS * ADD_SHIFT)

#define PT 9 /* Poseidon width: arity 8 */
#define P_RF 8
#define P_RP 57
#define P_ROUNDS (P_RF + P_RP)
#define P_TAG 255 /* neptune's Merkle-tree domain tag for arity 8: 2^8 - 1 */

#define MAX_TERMS ADD_OPERAND_BITS /* the longest list: A of a packed addition */

/* Coefficient tables, the same for every circuit. */
struct consts {
	zkp_fr one, minus_one, two;
	zkp_fr pow2[256];
	zkp_fr mds[PT][PT];      /* 1 / (i + j + PT) */
	zkp_fr wpart[P_RP][PT];  /* partial-round mixing rows */
	zkp_fr rc[P_ROUNDS][PT]; /* round constants (partial rounds use [r][0]) */
};

struct gen {
	uint64_t n, n_inputs;
	zkp_synth_sink sink;
	void *ctx;
	zkp_fr *w;
	zkp_error *err;
	struct consts *k;
	zkp_rng rng;

	uint64_t rows, n_aux, kind_rows[N_KINDS], nnz[3];
	uint64_t bit_rows, packing_rows, poseidon_rows, hashes;
	uint64_t *in_a, *in_b, *inputs_b; /* bitmaps over aux / inputs */

	zkp_pce_term t[3][MAX_TERMS];
	size_t nt[3];

	/* Bit pools: absolute counts, entries at index % cap. */
	uint32_t bits_col[BITS_CAP];
	uint8_t bits_val[BITS_CAP];
	uint64_t nbits, fresh;
	uint32_t bring_col[BRING_CAP];
	uint8_t bring_val[BRING_CAP];
	uint64_t nbring;
	uint32_t nums_col[NUMS_CAP];
	zkp_fr nums_val[NUMS_CAP];
	uint64_t nnums, nums_fresh;

	/* Packed addition in progress: operands chosen, results being
	 * allocated by booleanity rows, then one row checks all four sums. */
	bool add_pending;
	unsigned add_done;
	uint32_t add_ops[ADD_OPERAND_BITS];
	uint32_t add_res[ADD_RESULT_BITS];
	uint64_t add_sum[ADD_WORDS];

	/* Poseidon permutation in progress. */
	struct {
		bool active;
		unsigned round, lane, phase;
		uint32_t col[PT], next_col[PT];
		zkp_fr val[PT], next_val[PT];
		bool is_const[PT];
		uint32_t v, v2, v4;
		zkp_fr vv, vv2, vv4;
	} p;
};

/* ---- random numbers (zkpd/rng.h) ---- */

/* Uniform enough in [0, n) for operand picks (n <= 2^13). */
static uint64_t rng_below(struct gen *g, uint64_t n) { return zkp_rng_next(&g->rng) % n; }

/* ---- constants ---- */

static void random_fr(zkp_fr *ret, zkp_rng *s)
{
	do {
		uint64_t wide[2 * ZKP_FR_LIMBS];
		for (int i = 0; i < 2 * ZKP_FR_LIMBS; i++)
			wide[i] = zkp_rng_next(s);
		zkp_fr_from_wide(ret, wide);
	} while (zkp_fr_is_zero(ret));
}

static void consts_init(struct consts *k)
{
	zkp_fr_set_one(&k->one);
	zkp_fr_neg(&k->minus_one, &k->one);
	zkp_fr_dbl(&k->two, &k->one);
	k->pow2[0] = k->one;
	for (int i = 1; i < 256; i++)
		zkp_fr_dbl(&k->pow2[i], &k->pow2[i - 1]);
	for (int i = 0; i < PT; i++)
		for (int j = 0; j < PT; j++) {
			zkp_fr d;
			zkp_fr_set_u64(&d, (uint64_t)(i + j + PT));
			zkp_fr_inv(&k->mds[i][j], &d); /* d != 0 */
		}
	/* A fixed stream, so every circuit shares the constants, like a real
	 * hash's round constants. */
	zkp_rng s;
	zkp_rng_seed(&s, 0x706f736569646f6eULL);
	for (int r = 0; r < P_ROUNDS; r++)
		for (int j = 0; j < PT; j++)
			random_fr(&k->rc[r][j], &s);
	for (int r = 0; r < P_RP; r++)
		for (int j = 0; j < PT; j++)
			random_fr(&k->wpart[r][j], &s);
}

/* ---- variables, terms and rows ---- */

static void fr_of_bit(zkp_fr *ret, unsigned bit, const struct consts *k)
{
	if (bit)
		*ret = k->one;
	else
		zkp_fr_set_zero(ret);
}

static uint32_t new_aux(struct gen *g, const zkp_fr *v)
{
	uint32_t col = (uint32_t)(g->n_inputs + g->n_aux++);
	if (g->w)
		g->w[col] = *v;
	return col;
}

static uint32_t new_bit(struct gen *g, unsigned bit)
{
	zkp_fr v;
	fr_of_bit(&v, bit, g->k);
	return new_aux(g, &v);
}

static inline void term(struct gen *g, int m, uint32_t col, const zkp_fr *coeff)
{
	zkp_pce_term *t = &g->t[m][g->nt[m]++];
	t->col = col;
	t->coeff = *coeff;
}

static inline void set_bit(uint64_t *bm, uint64_t i) { bm[i / 64] |= (uint64_t)1 << (i % 64); }

/* Hands the row in g->t to the sink and counts it; resets the term lists. */
static int emit(struct gen *g)
{
	for (int m = 0; m < 3; m++)
		g->nnz[m] += g->nt[m];
	for (size_t i = 0; i < g->nt[0]; i++)
		if (g->t[0][i].col >= g->n_inputs)
			set_bit(g->in_a, g->t[0][i].col - g->n_inputs);
	for (size_t i = 0; i < g->nt[1]; i++) {
		uint32_t col = g->t[1][i].col;
		if (col >= g->n_inputs)
			set_bit(g->in_b, col - g->n_inputs);
		else
			set_bit(g->inputs_b, col);
	}
	int rc = 0;
	if (g->sink)
		rc = g->sink(g->ctx, g->t[0], g->nt[0], g->t[1], g->nt[1], g->t[2], g->nt[2],
			     g->err);
	g->nt[0] = g->nt[1] = g->nt[2] = 0;
	g->rows++;
	return rc;
}

/* ---- pools ---- */

static uint64_t avail(uint64_t n, uint64_t cap) { return n < cap ? n : cap; }

static void push_bit(struct gen *g, uint32_t col, unsigned val, bool in_b)
{
	g->bits_col[g->nbits % BITS_CAP] = col;
	g->bits_val[g->nbits % BITS_CAP] = (uint8_t)val;
	g->nbits++;
	if (in_b) {
		g->bring_col[g->nbring % BRING_CAP] = col;
		g->bring_val[g->nbring % BRING_CAP] = (uint8_t)val;
		g->nbring++;
	}
}

static void push_num(struct gen *g, uint32_t col, const zkp_fr *v)
{
	g->nums_col[g->nnums % NUMS_CAP] = col;
	g->nums_val[g->nnums % NUMS_CAP] = *v;
	g->nnums++;
}

/* Absolute index of k consecutive (so distinct) bits: the oldest not yet
 * used as an A-side operand when there are k of them, else the newest k
 * (which takes the unused ones too). Positions never depend on the seed,
 * so neither does which variables end up in A. Needs avail(nbits) >= k. */
static uint64_t bit_window(struct gen *g, unsigned k)
{
	uint64_t lo = g->nbits - avail(g->nbits, BITS_CAP);
	if (g->fresh < lo)
		g->fresh = lo;
	if (g->nbits - g->fresh >= k) {
		uint64_t s = g->fresh;
		g->fresh += k;
		return s;
	}
	g->fresh = g->nbits;
	return g->nbits - k;
}

static uint32_t bit_col(const struct gen *g, uint64_t i) { return g->bits_col[i % BITS_CAP]; }
static unsigned bit_val(const struct gen *g, uint64_t i) { return g->bits_val[i % BITS_CAP]; }

/* The ring slot of a random bit already in B whose column is none of
 * ex[0..nex). Needs avail(nbring) > nex. */
static uint64_t b_pick(struct gen *g, const uint32_t *ex, int nex)
{
	uint64_t n = avail(g->nbring, BRING_CAP), i = rng_below(g, n);
	for (;;) {
		uint32_t col = g->bring_col[(g->nbring - 1 - i) % BRING_CAP];
		bool clash = false;
		for (int e = 0; e < nex; e++)
			clash |= col == ex[e];
		if (!clash)
			return (g->nbring - 1 - i) % BRING_CAP;
		i = (i + 1) % n;
	}
}

/* Little-endian packing of bits [s, s + k) of the ring into a field
 * element (k <= 254, so the integer is below r). */
static void pack_value(const struct gen *g, uint64_t s, unsigned k, zkp_fr *ret)
{
	uint64_t limbs[ZKP_FR_LIMBS] = { 0 };
	for (unsigned i = 0; i < k; i++)
		limbs[i / 64] |= (uint64_t)bit_val(g, s + i) << (i % 64);
	zkp_fr_from_limbs(ret, limbs);
}

/* ---- rows by kind ---- */

/* (ONE - b) * b = 0. While a packed addition waits for its results, the
 * bit is the next result bit; otherwise a fresh random bit, which may
 * start the next addition. */
static int row_bool(struct gen *g)
{
	const struct consts *k = g->k;
	if (!g->add_pending && avail(g->nbits, BITS_CAP) >= ADD_OPERAND_BITS) {
		uint64_t s = bit_window(g, ADD_OPERAND_BITS);
		for (unsigned i = 0; i < ADD_OPERAND_BITS; i++)
			g->add_ops[i] = bit_col(g, s + i);
		for (unsigned w = 0; w < ADD_WORDS; w++) {
			uint64_t x = 0, y = 0;
			for (unsigned i = 0; i < 32; i++) {
				x |= (uint64_t)bit_val(g, s + 64 * w + i) << i;
				y |= (uint64_t)bit_val(g, s + 64 * w + 32 + i) << i;
			}
			g->add_sum[w] = x + y;
		}
		g->add_pending = true;
		g->add_done = 0;
	}
	unsigned val;
	uint32_t col;
	if (g->add_pending && g->add_done < ADD_RESULT_BITS) {
		unsigned e = g->add_done;
		val = (unsigned)(g->add_sum[e / ADD_SHIFT] >> (e % ADD_SHIFT)) & 1;
		col = new_bit(g, val);
		g->add_res[g->add_done++] = col;
	} else {
		val = (unsigned)(zkp_rng_next(&g->rng) >> 63);
		col = new_bit(g, val);
	}
	term(g, 0, 0, &k->one);
	term(g, 0, col, &k->minus_one);
	term(g, 1, col, &k->one);
	push_bit(g, col, val, true);
	g->bit_rows++;
	return emit(g);
}

/* XOR (2a) * b = a + b - c, or AND a * b = c. */
static int row_xor_and(struct gen *g, bool is_xor)
{
	const struct consts *k = g->k;
	uint64_t ia = bit_window(g, 1);
	uint32_t a = bit_col(g, ia);
	uint64_t ib = b_pick(g, &a, 1);
	uint32_t b = g->bring_col[ib];
	unsigned va = bit_val(g, ia), vb = g->bring_val[ib];
	unsigned vc = is_xor ? va ^ vb : va & vb;
	uint32_t c = new_bit(g, vc);
	term(g, 0, a, is_xor ? &k->two : &k->one);
	term(g, 1, b, &k->one);
	if (is_xor) {
		term(g, 2, a, &k->one);
		term(g, 2, b, &k->one);
		term(g, 2, c, &k->minus_one);
	} else {
		term(g, 2, c, &k->one);
	}
	push_bit(g, c, vc, false);
	g->bit_rows++;
	return emit(g);
}

/* SHA-256 Ch: ch = a ? b : c as (b - c) * a = ch - c. */
static int row_ch(struct gen *g)
{
	const struct consts *k = g->k;
	uint64_t s = bit_window(g, 2);
	uint32_t ex[2] = { bit_col(g, s), bit_col(g, s + 1) };
	uint64_t ia = b_pick(g, ex, 2);
	unsigned va = g->bring_val[ia], vb = bit_val(g, s), vc = bit_val(g, s + 1);
	unsigned vch = va ? vb : vc;
	uint32_t ch = new_bit(g, vch);
	term(g, 0, ex[0], &k->one);
	term(g, 0, ex[1], &k->minus_one);
	term(g, 1, g->bring_col[ia], &k->one);
	term(g, 2, ch, &k->one);
	term(g, 2, ex[1], &k->minus_one);
	push_bit(g, ch, vch, false);
	g->bit_rows++;
	return emit(g);
}

/* SHA-256 Maj as bellman writes it: b * c = bc, then
 * (2bc - b - c) * a = bc - maj (a = 0: maj = bc; a = 1: maj = b + c - bc). */
static int rows_maj(struct gen *g)
{
	const struct consts *k = g->k;
	uint64_t ib = bit_window(g, 1);
	uint32_t ex[3] = { bit_col(g, ib), 0, 0 };
	uint64_t ic = b_pick(g, ex, 1);
	ex[1] = g->bring_col[ic];
	uint64_t ia = b_pick(g, ex, 2);
	ex[2] = g->bring_col[ia];
	unsigned vb = bit_val(g, ib), vc = g->bring_val[ic], va = g->bring_val[ia];
	unsigned vbc = vb & vc, vmaj = (va & vb) | (va & vc) | (vb & vc);

	uint32_t bc = new_bit(g, vbc);
	term(g, 0, ex[0], &k->one);
	term(g, 1, ex[1], &k->one);
	term(g, 2, bc, &k->one);
	g->bit_rows++;
	int rc = emit(g);
	if (rc || g->rows == g->n)
		return rc;

	uint32_t maj = new_bit(g, vmaj);
	term(g, 0, bc, &k->two);
	term(g, 0, ex[0], &k->minus_one);
	term(g, 0, ex[1], &k->minus_one);
	term(g, 1, ex[2], &k->one);
	term(g, 2, bc, &k->one);
	term(g, 2, maj, &k->minus_one);
	push_bit(g, maj, vmaj, false);
	g->bit_rows++;
	return emit(g);
}

/* (sum 2^i b_i) * ONE = x: 254 bits become a field element. */
static int row_pack(struct gen *g)
{
	const struct consts *k = g->k;
	uint64_t s = bit_window(g, PACK_BITS);
	zkp_fr x;
	pack_value(g, s, PACK_BITS, &x);
	for (unsigned i = 0; i < PACK_BITS; i++)
		term(g, 0, bit_col(g, s + i), &k->pow2[i]);
	term(g, 1, 0, &k->one);
	uint32_t col = new_aux(g, &x);
	term(g, 2, col, &k->one);
	push_num(g, col, &x);
	g->packing_rows++;
	return emit(g);
}

/* Input j as the packing of up to 64 bits: (sum 2^i b_i) * ONE = input. */
static int row_input(struct gen *g, uint64_t j)
{
	const struct consts *k = g->k;
	unsigned nb = (unsigned)avail(avail(g->nbits, BITS_CAP), INPUT_BITS);
	zkp_fr x;
	zkp_fr_set_zero(&x);
	if (nb) {
		uint64_t s = bit_window(g, nb);
		pack_value(g, s, nb, &x);
		for (unsigned i = 0; i < nb; i++)
			term(g, 0, bit_col(g, s + i), &k->pow2[i]);
	}
	term(g, 1, 0, &k->one);
	term(g, 2, (uint32_t)j, &k->one);
	if (g->w)
		g->w[j] = x;
	g->packing_rows++;
	return emit(g);
}

/* The four sums of the pending addition in one row:
 * (sum_w sum_i 2^(33w+i) (x_wi + y_wi)) * ONE = sum_w sum_i 2^(33w+i) r_wi. */
static int row_add(struct gen *g)
{
	const struct consts *k = g->k;
	for (unsigned w = 0; w < ADD_WORDS; w++)
		for (unsigned i = 0; i < 64; i++)
			term(g, 0, g->add_ops[64 * w + i], &k->pow2[ADD_SHIFT * w + i % 32]);
	term(g, 1, 0, &k->one);
	for (unsigned e = 0; e < ADD_RESULT_BITS; e++)
		term(g, 2, g->add_res[e], &k->pow2[e]);
	g->add_pending = false;
	g->packing_rows++;
	return emit(g);
}

static bool pos_full_round(unsigned r) { return r < P_RF / 2 || r >= P_RF / 2 + P_RP; }

/* Starts a permutation: lane 0 is the domain tag (a constant, so it enters
 * the mixing rows as a multiple of ONE), lanes 1..8 the newest unused
 * field elements (the newest when all have been used), or bits while
 * there are fewer than 8 of those. */
static void pos_start(struct gen *g)
{
	zkp_fr_set_u64(&g->p.val[0], P_TAG);
	g->p.col[0] = 0;
	g->p.is_const[0] = true;
	bool from_nums = avail(g->nnums, NUMS_CAP) >= PT - 1;
	uint64_t s = 0;
	if (from_nums) {
		uint64_t lo = g->nnums - avail(g->nnums, NUMS_CAP);
		if (g->nums_fresh < lo)
			g->nums_fresh = lo;
		if (g->nnums - g->nums_fresh >= PT - 1) {
			s = g->nums_fresh;
			g->nums_fresh += PT - 1;
		} else {
			s = g->nnums - (PT - 1);
			g->nums_fresh = g->nnums;
		}
	} else {
		s = bit_window(g, PT - 1);
	}
	for (unsigned i = 1; i < PT; i++) {
		g->p.is_const[i] = false;
		if (from_nums) {
			g->p.col[i] = g->nums_col[(s + i - 1) % NUMS_CAP];
			g->p.val[i] = g->nums_val[(s + i - 1) % NUMS_CAP];
		} else {
			g->p.col[i] = bit_col(g, s + i - 1);
			fr_of_bit(&g->p.val[i], bit_val(g, s + i - 1), g->k);
		}
	}
	g->p.active = true;
	g->p.round = g->p.lane = g->p.phase = 0;
}

/* One row of the S-box of the current lane. */
static int row_pos(struct gen *g)
{
	const struct consts *k = g->k;
	if (!g->p.active)
		pos_start(g);
	unsigned r = g->p.round, j = g->p.lane;
	bool full = pos_full_round(r);
	zkp_fr t;

	switch (g->p.phase) {
	case 0: { /* (sum_i m_i s_i) * ONE = v */
		const zkp_fr *m = full ? k->mds[j] : k->wpart[r - P_RF / 2];
		zkp_fr_set_zero(&g->p.vv);
		for (unsigned i = 0; i < PT; i++) {
			zkp_fr_mul(&t, &m[i], &g->p.val[i]);
			zkp_fr_add(&g->p.vv, &g->p.vv, &t);
			term(g, 0, g->p.col[i], g->p.is_const[i] ? &t : &m[i]);
		}
		term(g, 1, 0, &k->one);
		g->p.v = new_aux(g, &g->p.vv);
		term(g, 2, g->p.v, &k->one);
		break;
	}
	case 1: /* v * v = v2 */
		zkp_fr_sqr(&g->p.vv2, &g->p.vv);
		g->p.v2 = new_aux(g, &g->p.vv2);
		term(g, 0, g->p.v, &k->one);
		term(g, 1, g->p.v, &k->one);
		term(g, 2, g->p.v2, &k->one);
		break;
	case 2: /* v2 * v2 = v4 */
		zkp_fr_sqr(&g->p.vv4, &g->p.vv2);
		g->p.v4 = new_aux(g, &g->p.vv4);
		term(g, 0, g->p.v2, &k->one);
		term(g, 1, g->p.v2, &k->one);
		term(g, 2, g->p.v4, &k->one);
		break;
	default: { /* v * v4 = out - k * ONE */
		const zkp_fr *rc = &k->rc[r][full ? j : 0];
		zkp_fr out, nk;
		zkp_fr_mul(&out, &g->p.vv, &g->p.vv4);
		zkp_fr_add(&out, &out, rc);
		zkp_fr_neg(&nk, rc);
		uint32_t col = new_aux(g, &out);
		term(g, 0, g->p.v, &k->one);
		term(g, 1, g->p.v4, &k->one);
		term(g, 2, col, &k->one);
		term(g, 2, 0, &nk);
		if (full) {
			g->p.next_col[j] = col;
			g->p.next_val[j] = out;
			if (++g->p.lane == PT) {
				memcpy(g->p.col, g->p.next_col, sizeof(g->p.col));
				memcpy(g->p.val, g->p.next_val, sizeof(g->p.val));
				memset(g->p.is_const, 0, sizeof(g->p.is_const));
				g->p.lane = 0;
				g->p.round++;
			}
		} else {
			g->p.col[0] = col;
			g->p.val[0] = out;
			g->p.is_const[0] = false;
			g->p.round++;
		}
		if (g->p.round == P_ROUNDS) {
			push_num(g, g->p.col[1], &g->p.val[1]);
			g->p.active = false;
			g->hashes++;
		}
		break;
	}
	}
	g->p.phase = (g->p.phase + 1) % 4;
	g->poseidon_rows++;
	return emit(g);
}

/* ---- schedule ---- */

static bool ready(const struct gen *g, enum kind kd, uint64_t rows_left)
{
	uint64_t bits = avail(g->nbits, BITS_CAP), inb = avail(g->nbring, BRING_CAP);
	if (kind_rows[kd] > rows_left)
		return false;
	switch (kd) {
	case K_BOOL:
		return true;
	case K_XOR:
	case K_AND:
		return bits >= 1 && inb >= 2;
	case K_CH:
		return bits >= 2 && inb >= 3;
	case K_MAJ:
		return bits >= 1 && inb >= 3;
	case K_PACK:
		return bits >= PACK_BITS;
	case K_ADD:
		return g->add_pending && g->add_done == ADD_RESULT_BITS;
	case K_POS:
		return g->p.active || avail(g->nnums, NUMS_CAP) >= PT - 1 || bits >= PT - 1;
	default:
		return false;
	}
}

static enum kind pick(const struct gen *g, uint64_t rows_left)
{
	enum kind best = K_BOOL;
	int64_t best_d = INT64_MIN;
	for (int kd = 0; kd < N_KINDS; kd++) {
		if (!ready(g, (enum kind)kd, rows_left))
			continue;
		int64_t d = shares[kd] * (int64_t)g->rows -
			    (int64_t)g->kind_rows[kd] * SHARE_ONE;
		if (d > best_d) {
			best_d = d;
			best = (enum kind)kd;
		}
	}
	return best;
}

uint64_t zkp_synth_porep_inputs(uint64_t n)
{
	/* round(328 n / 130278869) without overflow for n < 2^32 */
	uint64_t v = (2 * ZKP_SYNTH_POREP_INPUTS * n + ZKP_SYNTH_POREP_CONSTRAINTS) /
		     (2 * ZKP_SYNTH_POREP_CONSTRAINTS);
	return v < 2 ? 2 : v;
}

static uint64_t popcount(const uint64_t *bm, uint64_t words)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < words; i++)
		n += (uint64_t)__builtin_popcountll(bm[i]);
	return n;
}

int zkp_synth_porep(uint64_t n, uint64_t seed, zkp_synth_sink sink, void *ctx, zkp_fr *witness,
		    zkp_synth_info *info, zkp_error *err)
{
	if (n == 0 || n > ZKP_SYNTH_MAX_CONSTRAINTS)
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "synthetic circuit: %" PRIu64
				     " constraints; expected 1 to %" PRIu64,
				     n, ZKP_SYNTH_MAX_CONSTRAINTS);
	int rc = 0;
	uint64_t words = (n + 63) / 64;
	struct gen *g = calloc(1, sizeof(*g));
	struct consts *k = malloc(sizeof(*k));
	if (g) {
		g->n_inputs = zkp_synth_porep_inputs(n);
		g->in_a = calloc(words, 8);
		g->in_b = calloc(words, 8);
		g->inputs_b = calloc((g->n_inputs + 63) / 64, 8);
	}
	if (!g || !k || !g->in_a || !g->in_b || !g->inputs_b) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "synthetic circuit: out of memory");
		goto out;
	}
	consts_init(k);
	g->n = n;
	g->sink = sink;
	g->ctx = ctx;
	g->w = witness;
	g->err = err;
	g->k = k;
	zkp_rng_seed(&g->rng, seed);
	if (witness)
		witness[0] = k->one;

	uint64_t next_input = 1;
	while (g->rows < n && !rc) {
		uint64_t left = n - g->rows, inputs_left = g->n_inputs - next_input;
		/* Input j is due at row j * n / n_inputs, and in any case once
		 * only the remaining inputs still fit. */
		if (inputs_left &&
		    (g->rows >= next_input * n / g->n_inputs || left <= inputs_left)) {
			rc = row_input(g, next_input++);
			continue;
		}
		enum kind kd = pick(g, left - inputs_left);
		uint64_t before = g->rows;
		switch (kd) {
		case K_BOOL:
			rc = row_bool(g);
			break;
		case K_XOR:
			rc = row_xor_and(g, true);
			break;
		case K_AND:
			rc = row_xor_and(g, false);
			break;
		case K_CH:
			rc = row_ch(g);
			break;
		case K_MAJ:
			rc = rows_maj(g);
			break;
		case K_PACK:
			rc = row_pack(g);
			break;
		case K_ADD:
			rc = row_add(g);
			break;
		default:
			rc = row_pos(g);
			break;
		}
		g->kind_rows[kd] += g->rows - before;
	}
	if (rc)
		goto out;
	if (info) {
		memset(info, 0, sizeof(*info));
		info->n_constraints = n;
		info->n_inputs = g->n_inputs;
		info->n_aux = g->n_aux;
		memcpy(info->nnz, g->nnz, sizeof(info->nnz));
		info->aux_in_a = popcount(g->in_a, words);
		info->aux_in_b = popcount(g->in_b, words);
		info->inputs_in_b = popcount(g->inputs_b, (g->n_inputs + 63) / 64);
		info->bit_rows = g->bit_rows;
		info->packing_rows = g->packing_rows;
		info->poseidon_rows = g->poseidon_rows;
		info->poseidon_hashes = g->hashes;
	}
out:
	if (g) {
		free(g->in_a);
		free(g->in_b);
		free(g->inputs_b);
	}
	free(g);
	free(k);
	return rc;
}

int zkp_synth_porep_dims(uint64_t n, zkp_synth_info *info, zkp_error *err)
{
	return zkp_synth_porep(n, 0, NULL, NULL, NULL, info, err);
}

int zkp_synth_builder_sink(void *ctx, const zkp_pce_term *a, size_t na, const zkp_pce_term *b,
			   size_t nb, const zkp_pce_term *c, size_t nc, zkp_error *err)
{
	return zkp_pce_builder_add(ctx, a, na, b, nb, c, nc, err);
}

void zkp_synth_ratios_of(zkp_synth_ratios *ret, const zkp_synth_info *info)
{
	double n = (double)info->n_constraints, aux = info->n_aux ? (double)info->n_aux : 1;
	ret->a_per_row = (double)info->nnz[0] / n;
	ret->b_per_row = (double)info->nnz[1] / n;
	ret->c_per_row = (double)info->nnz[2] / n;
	ret->aux_per_row = (double)info->n_aux / n;
	ret->aux_in_b = (double)info->aux_in_b / aux;
	ret->aux_in_a = (double)info->aux_in_a / aux;
}

void zkp_synth_porep_target(zkp_synth_ratios *ret)
{
	const double n = (double)ZKP_SYNTH_POREP_CONSTRAINTS, aux = (double)ZKP_SYNTH_POREP_AUX;
	ret->a_per_row = (double)ZKP_SYNTH_POREP_NNZ_A / n;
	ret->b_per_row = (double)ZKP_SYNTH_POREP_NNZ_B / n;
	ret->c_per_row = (double)ZKP_SYNTH_POREP_NNZ_C / n;
	ret->aux_per_row = aux / n;
	ret->aux_in_b = (double)ZKP_SYNTH_POREP_AUX_IN_B / aux;
	ret->aux_in_a = (double)ZKP_SYNTH_POREP_AUX_IN_A / aux;
}

/* ---- .wtns ---- */

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int fsync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return -1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	free(dir);
	if (fd < 0)
		return -1;
	int r = fsync(fd);
	close(fd);
	return r;
}

int zkp_synth_write_wtns(const char *path, const zkp_fr *w, uint64_t count, zkp_error *err)
{
	if (count == 0 || count > UINT32_MAX)
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "%s: %" PRIu64 " witness values; .wtns holds 1 to 2^32 - 1",
				     path, count);
	enum { HEAD = 12 + 12 + 40 + 12, CHUNK = 1024 };
	uint8_t head[HEAD], buf[CHUNK * ZKP_FR_BYTES];
	memcpy(head, "wtns", 4);
	put_u32(head + 4, 2);  /* version */
	put_u32(head + 8, 2);  /* sections */
	put_u32(head + 12, 1); /* header section: n8, prime, nWitness */
	put_u64(head + 16, 4 + ZKP_FR_BYTES + 4);
	put_u32(head + 24, ZKP_FR_BYTES);
	for (int i = 0; i < ZKP_FR_LIMBS; i++)
		put_u64(head + 28 + 8 * i, ZKP_FR_MODULUS[i]);
	put_u32(head + 60, (uint32_t)count);
	put_u32(head + 64, 2); /* values section */
	put_u64(head + 68, count * ZKP_FR_BYTES);

	int rc = 0, fd = -1;
	const char *what = "writing";
	char *tmp = malloc(strlen(path) + sizeof(".tmp.XXXXXX"));
	if (!tmp)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
	strcpy(tmp, path);
	strcat(tmp, ".tmp.XXXXXX");
	if ((fd = mkstemp(tmp)) < 0) {
		what = "creating";
		goto io;
	}
	if (write_all(fd, head, HEAD))
		goto io;
	for (uint64_t i = 0; i < count;) {
		size_t k = 0;
		for (; k < CHUNK && i < count; k++, i++)
			zkp_fr_to_le(buf + k * ZKP_FR_BYTES, &w[i]);
		if (write_all(fd, buf, k * ZKP_FR_BYTES))
			goto io;
	}
	if (fchmod(fd, 0644) || fsync(fd))
		goto io;
	if (close(fd)) {
		fd = -1;
		goto io;
	}
	fd = -1;
	what = "renaming";
	if (rename(tmp, path))
		goto io;
	/* The name is in place; only the directory entry's durability is left. */
	tmp[0] = '\0';
	what = "syncing the directory of";
	if (fsync_parent(path))
		goto io;
	goto out;
io:
	rc = zkp_error_set(err, ZKP_ERR_IO, "%s: %s %s: %s", path, what,
			   tmp[0] ? tmp : path, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (tmp[0] && strcmp(what, "creating"))
		unlink(tmp);
out:
	free(tmp);
	return rc;
}
