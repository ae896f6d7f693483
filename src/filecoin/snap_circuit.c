/*
 * The SnapDeals (EmptySectorUpdate) partition circuit (include/zkpd/snap.h)
 * in the order of rust-fil-proofs' EmptySectorUpdateCircuit::synthesize
 * (storage-proofs-update circuit.rs and gadgets.rs):
 *
 *   1. k_and_h_select allocated and made an input, split into
 *      partition_bits + 6 h_select bits (one bit row each, one packing
 *      row), the partition index packed from its bits;
 *   2. comm_r_old, comm_d_new, comm_r_new allocated and made inputs;
 *      phi = H_gen(comm_d_new, comm_r_old);
 *   3. comm_c, root_r_old, root_r_new, the apex leaves and the partition
 *      path's siblings allocated; comm_r_old and comm_r_new checked as
 *      Poseidon-2(comm_c, root);
 *   4. the apex tree hashed (SHA-256, binary) and its root proven in tree D
 *      new at the partition's position;
 *   5. the challenges' random bits: per digest an index row, H_gen, 255
 *      bits;
 *   6. per challenge: rho from the selected high bits, the two leaves, the
 *      new leaf by the encoding, inclusion in tree R old, in tree R new, the
 *      apex leaf selected, inclusion of the data leaf below it in tree D.
 *
 * A 32 GiB partition: 81,049,499 rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le_bytes.h"
#include "zkpd/poseidon.h"
#include "zkpd/snap.h"

static const struct {
	uint64_t bytes;
	const char *name;
	unsigned tree[3];
} sizes[] = {
	{ 1ULL << 10, "1KiB", { 8, 4, 0 } },     { 2ULL << 10, "2KiB", { 8, 0, 0 } },
	{ 4ULL << 10, "4KiB", { 8, 2, 0 } },     { 8ULL << 10, "8KiB", { 8, 4, 0 } },
	{ 16ULL << 10, "16KiB", { 8, 8, 0 } },   { 32ULL << 10, "32KiB", { 8, 8, 2 } },
	{ 8ULL << 20, "8MiB", { 8, 0, 0 } },     { 16ULL << 20, "16MiB", { 8, 2, 0 } },
	{ 512ULL << 20, "512MiB", { 8, 0, 0 } }, { 32ULL << 30, "32GiB", { 8, 8, 0 } },
	{ 64ULL << 30, "64GiB", { 8, 8, 2 } },
};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

static unsigned log2u64(uint64_t x)
{
	unsigned k = 0;
	while (((uint64_t)1 << k) < x)
		k++;
	return k;
}

int zkp_snap_shape_for_size(zkp_snap_shape *ret, uint64_t sector_bytes, zkp_error *err)
{
	for (size_t i = 0; i < N_SIZES; i++) {
		if (sizes[i].bytes != sector_bytes)
			continue;
		uint64_t nodes = sector_bytes / 32;
		zkp_snap_shape s = {
			.nodes = nodes,
			.tree = { sizes[i].tree[0], sizes[i].tree[1], sizes[i].tree[2] },
			.partitions = nodes <= 256 ? 1 : nodes <= 1024 ? 2 : nodes <= (1u << 19) ? 4 : 16,
			.challenges = nodes <= (1u << 19) ? 10 : 86,
			.apex_leaves = nodes <= 256 ? 8 : 128,
			.sector_bytes = sector_bytes,
		};
		for (unsigned j = 0; j < ZKP_SNAP_HS; j++)
			s.hs[j] = nodes <= 1024 ? 1 : 7 + j;
		*ret = s;
		return 0;
	}
	return zkp_error_set(err, ZKP_ERR_INVAL,
			     "sector size %llu bytes: SnapDeals is defined for 1, 2, 4, 8, 16 and 32 KiB (tests), 8 MiB, 16 MiB, 512 MiB, 32 GiB and 64 GiB",
			     (unsigned long long)sector_bytes);
}

unsigned zkp_snap_challenge_bits(const zkp_snap_shape *s) { return log2u64(s->nodes); }
unsigned zkp_snap_partition_bits(const zkp_snap_shape *s) { return log2u64(s->partitions); }
unsigned zkp_snap_apex_bits(const zkp_snap_shape *s) { return log2u64(s->apex_leaves); }

void zkp_snap_tree_r(const zkp_snap_shape *s, zkp_tree_shape *ret)
{
	unsigned rest = zkp_snap_challenge_bits(s);
	if (s->tree[1])
		rest -= log2u64(s->tree[1]);
	if (s->tree[2])
		rest -= log2u64(s->tree[2]);
	*ret = (zkp_tree_shape){ .hash = ZKP_TREE_POSEIDON,
				 .base_levels = rest / log2u64(s->tree[0]),
				 .arity = { s->tree[0], s->tree[1], s->tree[2] } };
}

void zkp_snap_tree_d(const zkp_snap_shape *s, zkp_tree_shape *ret)
{
	*ret = (zkp_tree_shape){ .hash = ZKP_TREE_SHA256,
				 .base_levels = zkp_snap_challenge_bits(s),
				 .arity = { 2, 0, 0 } };
}

void zkp_snap_describe(char *out, size_t n, const zkp_snap_shape *s)
{
	const char *name = "?";
	for (size_t i = 0; i < N_SIZES; i++)
		if (sizes[i].bytes == s->sector_bytes)
			name = sizes[i].name;
	snprintf(out, n,
		 "%s SnapDeals: partition of %u, %u challenges, 2^%u nodes, tree %u-%u-%u, %u apex leaves",
		 name, s->partitions, s->challenges, zkp_snap_challenge_bits(s), s->tree[0],
		 s->tree[1], s->tree[2], s->apex_leaves);
}

void zkp_snap_label_encode(uint8_t out[32], const zkp_snap_shape *s)
{
	memset(out, 0, 32);
	memcpy(out, "SNP1", 4);
	zkp_put_le(out + 4, s->sector_bytes, 8);
}

bool zkp_snap_label_decode(zkp_snap_shape *ret, const uint8_t label[32])
{
	if (memcmp(label, "SNP1", 4))
		return false;
	zkp_error err;
	return zkp_snap_shape_for_size(ret, zkp_get_le(label + 4, 8), &err) == 0;
}

int zkp_snap_h_index(unsigned *ret, const zkp_snap_shape *s, unsigned h, zkp_error *err)
{
	for (unsigned i = 0; i < ZKP_SNAP_HS; i++)
		if (s->hs[i] == h) {
			*ret = i;
			return 0;
		}
	return zkp_error_set(err, ZKP_ERR_INVAL, "h = %u: this sector size allows h = %u..%u", h,
			     s->hs[0], s->hs[ZKP_SNAP_HS - 1]);
}

int zkp_snap_public_inputs(zkp_fr out[4], const zkp_snap_shape *s, unsigned k, unsigned h,
			   const zkp_fr *comm_r_old, const zkp_fr *comm_d_new,
			   const zkp_fr *comm_r_new, zkp_error *err)
{
	unsigned hi = 0;
	if (k >= s->partitions)
		return zkp_error_set(err, ZKP_ERR_INVAL, "partition %u: this sector size has %u", k,
				     s->partitions);
	int rc = zkp_snap_h_index(&hi, s, h, err);
	if (rc)
		return rc;
	zkp_fr_set_u64(&out[0], (uint64_t)k | ((uint64_t)1 << (hi + zkp_snap_partition_bits(s))));
	out[1] = *comm_r_old;
	out[2] = *comm_d_new;
	out[3] = *comm_r_new;
	return 0;
}

/* Everything the per-challenge part shares. */
struct ctx {
	zkp_cs *cs;
	const zkp_snap_shape *s;
	const zkp_snap_witness *w; /* NULL outside WITNESS */
	const zkp_poseidon_consts *gen;
	zkp_tree_shape tr, td, td_apex;
	unsigned cbl, pbl, abl;
	zkp_bool kh_bits[4 + ZKP_SNAP_HS]; /* partition bits, then h_select bits */
	zkp_num phi, root_r_old, root_r_new;
	zkp_num apex[128];
	zkp_bool cbits[64];
};

static zkp_num hash_gen(struct ctx *x, const zkp_num *a, const zkp_num *b)
{
	zkp_num in[2] = { *a, *b };
	return zkp_poseidon_circuit(x->cs, x->gen, in);
}

static zkp_num alloc_input(zkp_cs *cs, const zkp_fr *v)
{
	zkp_num n = zkp_num_alloc(cs, v);
	zkp_num_inputize(cs, &n);
	return n;
}

/* k_and_h_select's bits and its packing row; returns the packed partition. */
static zkp_num k_and_h_select(struct ctx *x, const zkp_num *kh)
{
	zkp_cs *cs = x->cs;
	unsigned n = x->pbl + ZKP_SNAP_HS;
	uint64_t v = 0;
	if (x->w) {
		uint64_t limbs[ZKP_FR_LIMBS];
		zkp_fr_to_limbs(limbs, &kh->value);
		v = limbs[0];
	}
	for (unsigned i = 0; i < n; i++)
		x->kh_bits[i] = zkp_bool_alloc(cs, (v >> i) & 1);
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	for (unsigned i = 0; i < n; i++)
		zkp_lc_add(cs, a, x->kh_bits[i].var, zkp_cs_pow2(i));
	zkp_lc_add(cs, b, ZKP_CS_ONE, NULL);
	zkp_lc_add(cs, c, kh->var, NULL);
	zkp_cs_enforce_scratch(cs);
	return zkp_pack_bits(cs, x->kh_bits, x->pbl);
}

/* apex_por: the apex tree over the partition's leaves, its root in tree D. */
static void apex_por(struct ctx *x, const zkp_num *partition_path, const zkp_num *comm_d)
{
	zkp_num row[128];
	unsigned n = x->s->apex_leaves;
	memcpy(row, x->apex, n * sizeof(row[0]));
	for (; n > 1 && !zkp_cs_error(x->cs); n /= 2)
		for (unsigned i = 0; i < n / 2; i++)
			row[i] = zkp_sha256_leaves_circuit(x->cs, &row[2 * i], 2);
	zkp_tree_shape top = { .hash = ZKP_TREE_SHA256, .base_levels = x->pbl, .arity = { 2 } };
	zkp_por_given(x->cs, &top, &row[0], comm_d, x->kh_bits, partition_path);
}

/* gen_challenge_bits: the random low bits of every challenge, into bits
 * (challenges rows of b bits each). */
static void challenge_bits(struct ctx *x, const zkp_num *comm_r_new, const zkp_num *partition,
			   zkp_bool *bits)
{
	zkp_cs *cs = x->cs;
	unsigned b = x->cbl - x->pbl, per = 254 / b, total = x->s->challenges;
	unsigned digests = (total + per - 1) / per, done = 0;
	zkp_bool dbits[255];
	for (unsigned j = 0; j < digests && !zkp_cs_error(cs); j++) {
		zkp_fr coeff, jv, v;
		zkp_fr_set_u64(&coeff, digests);
		zkp_fr_set_u64(&jv, j);
		zkp_fr_mul(&v, &coeff, &partition->value);
		zkp_fr_add(&v, &v, &jv);
		zkp_num index = zkp_num_alloc(cs, &v);
		zkp_lc *A = &cs->lc[0], *B = &cs->lc[1], *C = &cs->lc[2];
		zkp_lc_add(cs, A, partition->var, &coeff);
		zkp_lc_add(cs, A, ZKP_CS_ONE, &jv);
		zkp_lc_add(cs, B, ZKP_CS_ONE, NULL);
		zkp_lc_add(cs, C, index.var, NULL);
		zkp_cs_enforce_scratch(cs);
		zkp_num digest = hash_gen(x, comm_r_new, &index);
		zkp_num_alloc_bits_le(cs, &digest, dbits);
		unsigned take = j == digests - 1 ? total - done : per;
		memcpy(bits + (size_t)done * b, dbits, (size_t)take * b * sizeof(zkp_bool));
		done += take;
	}
}

/* get_challenge_high_bits: sum over the six h of (h high bits of c) *
 * h_select bit. */
static zkp_num high_bits(struct ctx *x)
{
	zkp_cs *cs = x->cs;
	const zkp_bool *hsel = x->kh_bits + x->pbl;
	zkp_num parts[ZKP_SNAP_HS];
	zkp_fr sum;
	zkp_fr_set_zero(&sum);
	for (unsigned k = 0; k < ZKP_SNAP_HS; k++) {
		unsigned h = x->s->hs[k];
		zkp_num high = zkp_pack_bits(cs, x->cbits + x->cbl - h, h);
		zkp_fr v;
		if (hsel[k].value)
			v = high.value;
		else
			zkp_fr_set_zero(&v);
		parts[k] = zkp_num_alloc(cs, &v);
		zkp_fr_add(&sum, &sum, &parts[k].value);
		zkp_lc *A = &cs->lc[0], *B = &cs->lc[1], *C = &cs->lc[2];
		zkp_lc_add(cs, A, high.var, NULL);
		zkp_lc_add_bool(cs, B, &hsel[k], NULL);
		zkp_lc_add(cs, C, parts[k].var, NULL);
		zkp_cs_enforce_scratch(cs);
	}
	zkp_num out = zkp_num_alloc(cs, &sum);
	zkp_lc *A = &cs->lc[0], *B = &cs->lc[1], *C = &cs->lc[2];
	for (unsigned k = 0; k < ZKP_SNAP_HS; k++)
		zkp_lc_add(cs, A, parts[k].var, NULL);
	zkp_lc_add(cs, B, ZKP_CS_ONE, NULL);
	zkp_lc_add(cs, C, out.var, NULL);
	zkp_cs_enforce_scratch(cs);
	return out;
}

/* The path's siblings allocated, level after level. */
static void alloc_siblings(zkp_cs *cs, const zkp_tree_shape *t, const zkp_path *p, zkp_num *out)
{
	unsigned n = 0;
	for (unsigned l = 0; l < zkp_tree_levels(t); l++)
		n += zkp_tree_level_arity(t, l) - 1;
	for (unsigned i = 0; i < n; i++)
		out[i] = zkp_num_alloc(cs, p ? &p->siblings[i] : NULL);
}

static void challenge(struct ctx *x, const zkp_snap_challenge *ch)
{
	zkp_cs *cs = x->cs;
	zkp_num high = high_bits(x);
	zkp_num rho = hash_gen(x, &x->phi, &high);
	zkp_num r_old = zkp_num_alloc(cs, ch ? &ch->leaf_r_old : NULL);
	zkp_num d_new = zkp_num_alloc(cs, ch ? &ch->leaf_d_new : NULL);

	/* label_r_new: r_new = r_old + d_new * rho */
	zkp_num d_rho = zkp_num_mul(cs, &d_new, &rho);
	zkp_fr v;
	zkp_fr_add(&v, &r_old.value, &d_rho.value);
	zkp_num r_new = zkp_num_alloc(cs, &v);
	zkp_lc *A = &cs->lc[0], *B = &cs->lc[1], *C = &cs->lc[2];
	zkp_lc_add(cs, A, r_old.var, NULL);
	zkp_lc_add(cs, A, d_rho.var, NULL);
	zkp_lc_add(cs, B, ZKP_CS_ONE, NULL);
	zkp_lc_add(cs, C, r_new.var, NULL);
	zkp_cs_enforce_scratch(cs);

	zkp_num sib[ZKP_PATH_MAX_SIBLINGS];
	alloc_siblings(cs, &x->tr, ch ? &ch->r_old : NULL, sib);
	zkp_por_given(cs, &x->tr, &r_old, &x->root_r_old, x->cbits, sib);
	alloc_siblings(cs, &x->tr, ch ? &ch->r_new : NULL, sib);
	zkp_por_given(cs, &x->tr, &r_new, &x->root_r_new, x->cbits, sib);

	unsigned below = x->cbl - x->pbl - x->abl;
	zkp_num apex_leaf = zkp_select(cs, x->apex, x->cbits + below, x->abl);
	alloc_siblings(cs, &x->td_apex, ch ? &ch->d_new : NULL, sib);
	zkp_por_given(cs, &x->td_apex, &d_new, &apex_leaf, x->cbits, sib);
}

void zkp_snap_circuit(zkp_cs *cs, const zkp_snap_shape *s, const zkp_snap_witness *w)
{
	if (zkp_cs_witness(cs) && (!w || !w->apex_leaves || !w->challenges)) {
		zkp_cs_fail(cs, ZKP_ERR_INVAL, "a witness pass needs the partition's values");
		return;
	}
	if (!zkp_cs_witness(cs))
		w = NULL;
	struct ctx *x = calloc(1, sizeof(*x));
	zkp_bool *gen_bits = NULL;
	const zkp_poseidon_consts *p2;
	if (!x) {
		zkp_cs_fail(cs, ZKP_ERR_NOMEM, "SnapDeals circuit state");
		return;
	}
	*x = (struct ctx){ .cs = cs, .s = s, .w = w };
	int rc = zkp_poseidon_consts_get(&p2, 2);
	if (!rc)
		rc = zkp_poseidon_consts_get_custom(&x->gen, 2, 1);
	if (rc) {
		zkp_cs_fail(cs, rc, "Poseidon of arity 2");
		goto out;
	}
	x->cbl = zkp_snap_challenge_bits(s);
	x->pbl = zkp_snap_partition_bits(s);
	x->abl = zkp_snap_apex_bits(s);
	zkp_snap_tree_r(s, &x->tr);
	zkp_snap_tree_d(s, &x->td);
	x->td_apex = x->td;
	x->td_apex.base_levels = x->cbl - x->pbl - x->abl;
	gen_bits = calloc((size_t)s->challenges * (x->cbl - x->pbl), sizeof(zkp_bool));
	if (!gen_bits || x->pbl > 4 || s->apex_leaves > 128 || x->cbl > 63) {
		zkp_cs_fail(cs, gen_bits ? ZKP_ERR_INVAL : ZKP_ERR_NOMEM, "SnapDeals shape");
		goto out;
	}

	/* 1. k and h_select */
	zkp_fr khv;
	if (w) {
		zkp_fr pub[4];
		zkp_error e;
		if (zkp_snap_public_inputs(pub, s, w->k, w->h, &w->comm_r_old, &w->comm_d_new,
					   &w->comm_r_new, &e)) {
			zkp_cs_fail(cs, ZKP_ERR_INVAL, "%s", e.msg);
			goto out;
		}
		khv = pub[0];
	}
	zkp_num kh = alloc_input(cs, w ? &khv : NULL);
	zkp_num partition = k_and_h_select(x, &kh);

	/* 2. the commitments, phi */
	zkp_num comm_r_old = alloc_input(cs, w ? &w->comm_r_old : NULL);
	zkp_num comm_d_new = alloc_input(cs, w ? &w->comm_d_new : NULL);
	zkp_num comm_r_new = alloc_input(cs, w ? &w->comm_r_new : NULL);
	x->phi = hash_gen(x, &comm_d_new, &comm_r_old);

	/* 3. private values, comm_r checks */
	zkp_num comm_c = zkp_num_alloc(cs, w ? &w->comm_c : NULL);
	x->root_r_old = zkp_num_alloc(cs, w ? &w->root_r_old : NULL);
	x->root_r_new = zkp_num_alloc(cs, w ? &w->root_r_new : NULL);
	for (unsigned i = 0; i < s->apex_leaves; i++)
		x->apex[i] = zkp_num_alloc(cs, w ? &w->apex_leaves[i] : NULL);
	zkp_num ppath[4];
	for (unsigned i = 0; i < x->pbl; i++)
		ppath[i] = zkp_num_alloc(
			cs, w ? &w->challenges[0].d_new.siblings[x->cbl - x->pbl + i] : NULL);
	zkp_num pair[2] = { comm_c, x->root_r_old };
	zkp_num calc = zkp_poseidon_circuit(cs, p2, pair);
	zkp_num_enforce_equal(cs, &calc, &comm_r_old);
	pair[1] = x->root_r_new;
	calc = zkp_poseidon_circuit(cs, p2, pair);
	zkp_num_enforce_equal(cs, &calc, &comm_r_new);

	/* 4. the apex tree in tree D */
	apex_por(x, ppath, &comm_d_new);

	/* 5. challenge bits; 6. challenges */
	unsigned b = x->cbl - x->pbl;
	challenge_bits(x, &comm_r_new, &partition, gen_bits);
	for (unsigned c = 0; c < s->challenges && !zkp_cs_error(cs); c++) {
		memcpy(x->cbits, gen_bits + (size_t)c * b, b * sizeof(zkp_bool));
		memcpy(x->cbits + b, x->kh_bits, x->pbl * sizeof(zkp_bool));
		challenge(x, w ? &w->challenges[c] : NULL);
	}
out:
	free(gen_bits);
	free(x);
}

void zkp_snap_circuit_fn(zkp_cs *cs, void *job)
{
	const zkp_snap_job *j = job;
	zkp_snap_circuit(cs, j->shape, zkp_cs_witness(cs) ? j->witness : NULL);
}
