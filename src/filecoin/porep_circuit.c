/*
 * The StackedDRG partition circuit (include/zkpd/porep.h), in
 * StackedCircuit::synthesize's order: the global part, then per challenge
 * Proof::synthesize (rust-fil-proofs stacked/circuit/params.rs).
 *
 * Rows of a 32 GiB partition: 571 global + 18 x 7,237,665 per challenge
 * (tree D 1,361,462; 14 columns x 5,900; the challenge 65; 11 labels with
 * their parents' decompositions 5,782,335; encoding and tree R 5,303; the
 * own column 5,900) = 130,278,541, plus the prover's 328 input rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "le_bytes.h"
#include "porep_int.h"
#include "zkpd/porep.h"

static const struct {
	uint64_t bytes;
	const char *name;
	zkp_porep_shape shape;
} published[] = {
	{ 2048, "2KiB", { 64, 2, 2, { 8, 0, 0 }, 2048 } },
	{ 8ULL << 20, "8MiB", { 1ULL << 18, 2, 2, { 8, 0, 0 }, 8ULL << 20 } },
	{ 512ULL << 20, "512MiB", { 1ULL << 24, 2, 2, { 8, 0, 0 }, 512ULL << 20 } },
	{ 32ULL << 30, "32GiB", { 1ULL << 30, 11, 18, { 8, 8, 0 }, 32ULL << 30 } },
	{ 64ULL << 30, "64GiB", { 1ULL << 31, 11, 18, { 8, 8, 2 }, 64ULL << 30 } },
};

int zkp_porep_shape_for_size(zkp_porep_shape *ret, uint64_t sector_bytes, zkp_error *err)
{
	for (size_t i = 0; i < sizeof(published) / sizeof(published[0]); i++)
		if (published[i].bytes == sector_bytes) {
			*ret = published[i].shape;
			return 0;
		}
	return zkp_error_set(err, ZKP_ERR_INVAL,
			     "sector size %llu bytes: Filecoin publishes PoRep parameters for 2KiB, 8MiB, 512MiB, 32GiB and 64GiB only",
			     (unsigned long long)sector_bytes);
}

int zkp_porep_parse_size(uint64_t *ret, const char *s, zkp_error *err)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	if (end == s)
		goto bad;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	else if (*end)
		goto bad;
	if (shift) {
		end++;
		if (strcmp(end, "") && strcmp(end, "iB") && strcmp(end, "ib") && strcmp(end, "B"))
			goto bad;
	}
	if (v == 0 || v > (UINT64_MAX >> shift))
		goto bad;
	*ret = (uint64_t)v << shift;
	return 0;
bad:
	return zkp_error_set(err, ZKP_ERR_INVAL,
			     "sector size '%s': expected bytes or a number with KiB, MiB or GiB (e.g. 2KiB, 32GiB)",
			     s);
}

static unsigned log2_exact(uint64_t v)
{
	unsigned k = 0;
	while (((uint64_t)1 << k) < v)
		k++;
	return k;
}

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

int zkp_porep_shape_check(const zkp_porep_shape *s, zkp_error *err)
{
	if (!pow2(s->nodes) || s->nodes < 2 || s->nodes > (1ULL << 32))
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "nodes = %llu: must be a power of two from 2 to 2^32",
				     (unsigned long long)s->nodes);
	if (s->layers != 2 && s->layers != 11)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "layers = %u: the column hash is Poseidon of arity 2 or 11, so layers must be 2 or 11",
				     s->layers);
	if (s->challenges == 0 || s->challenges > 1024)
		return zkp_error_set(err, ZKP_ERR_INVAL, "challenges = %u: must be 1 to 1024",
				     s->challenges);
	zkp_tree_shape t = { .hash = ZKP_TREE_POSEIDON,
			     .arity = { s->tree[0], s->tree[1], s->tree[2] } };
	int rc = zkp_tree_shape_check(&t, err);
	if (rc)
		return rc;
	uint64_t div = (s->tree[1] ? s->tree[1] : 1) * (s->tree[2] ? s->tree[2] : 1);
	uint64_t base = s->nodes / div;
	unsigned bits = log2_exact(s->tree[0]);
	if (base * div != s->nodes || base < 1 || log2_exact(base) % bits != 0 ||
	    log2_exact(base) == 0)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "nodes = %llu do not fill trees of arity %u-%u-%u",
				     (unsigned long long)s->nodes, s->tree[0], s->tree[1], s->tree[2]);
	zkp_porep_tree_cr(s, &t);
	if ((rc = zkp_tree_shape_check(&t, err)))
		return rc;
	zkp_porep_tree_d(s, &t);
	return zkp_tree_shape_check(&t, err);
}

void zkp_porep_tree_d(const zkp_porep_shape *s, zkp_tree_shape *ret)
{
	*ret = (zkp_tree_shape){ .hash = ZKP_TREE_SHA256,
				 .base_levels = log2_exact(s->nodes),
				 .arity = { 2, 0, 0 } };
}

void zkp_porep_tree_cr(const zkp_porep_shape *s, zkp_tree_shape *ret)
{
	uint64_t div = (s->tree[1] ? s->tree[1] : 1) * (s->tree[2] ? s->tree[2] : 1);
	*ret = (zkp_tree_shape){ .hash = ZKP_TREE_POSEIDON,
				 .base_levels = log2_exact(s->nodes / div) / log2_exact(s->tree[0]),
				 .arity = { s->tree[0], s->tree[1], s->tree[2] } };
}

void zkp_porep_label_encode(uint8_t out[32], const zkp_porep_shape *s)
{
	memset(out, 0, 32);
	memcpy(out, "FPR1", 4);
	zkp_put_le(out + 4, s->nodes, 8);
	out[12] = (uint8_t)s->layers;
	zkp_put_le(out + 13, s->challenges, 2);
	for (int i = 0; i < 3; i++)
		out[15 + i] = (uint8_t)s->tree[i];
	zkp_put_le(out + 18, s->sector_bytes, 8);
}

bool zkp_porep_label_decode(zkp_porep_shape *ret, const uint8_t label[32])
{
	if (memcmp(label, "FPR1", 4))
		return false;
	ret->nodes = zkp_get_le(label + 4, 8);
	ret->layers = label[12];
	ret->challenges = (unsigned)zkp_get_le(label + 13, 2);
	for (int i = 0; i < 3; i++)
		ret->tree[i] = label[15 + i];
	ret->sector_bytes = zkp_get_le(label + 18, 8);
	return true;
}

void zkp_porep_tree_name(char out[16], const zkp_porep_shape *s)
{
	snprintf(out, 16, "%u-%u-%u", s->tree[0] % 100, s->tree[1] % 100, s->tree[2] % 100);
}

void zkp_porep_describe(char *out, size_t n, const zkp_porep_shape *s)
{
	char tree[16], size[24] = "test shape";
	zkp_porep_tree_name(tree, s);
	for (size_t i = 0; i < sizeof(published) / sizeof(published[0]); i++)
		if (published[i].bytes == s->sector_bytes)
			snprintf(size, sizeof(size), "%s", published[i].name);
	unsigned k = log2_exact(s->nodes);
	snprintf(out, n, "%s: 2^%u nodes, %u layers, %u challenge%s, tree %s", size, k, s->layers,
		 s->challenges, s->challenges == 1 ? "" : "s", tree);
}

uint64_t zkp_porep_inputs(const zkp_porep_shape *s) { return 4 + 18 * (uint64_t)s->challenges; }

zkp_num zkp_porep_label_circuit(zkp_cs *cs, const zkp_bool replica_id[256],
				const zkp_bool *const parents[ZKP_POREP_LABEL_PARENTS],
				const zkp_u32 *layer, const zkp_bool node_bits[64])
{
	enum { MSG = (2 + ZKP_POREP_LABEL_PARENTS) * 256 };
	zkp_bool *msg = malloc(MSG * sizeof(*msg)), digest[256], le[256];
	zkp_num out = { 0 };
	if (!msg) {
		zkp_cs_fail(cs, ZKP_ERR_NOMEM, "no memory for a label's message");
		return out;
	}
	memcpy(msg, replica_id, 256 * sizeof(*msg));
	zkp_u32_to_bits_be(msg + 256, layer);
	for (unsigned i = 0; i < 64; i++)
		msg[288 + i] = node_bits[63 - i];
	for (unsigned i = 352; i < 512; i++)
		msg[i] = zkp_bool_const(false);
	for (unsigned p = 0; p < ZKP_POREP_LABEL_PARENTS; p++)
		memcpy(msg + 512 + 256 * p, parents[p], 256 * sizeof(*msg));
	zkp_sha256(cs, msg, MSG, digest);
	free(msg);
	for (unsigned byte = 0; byte < 32; byte++)
		for (unsigned k = 0; k < 8; k++)
			le[byte * 8 + k] = digest[byte * 8 + 7 - k];
	return zkp_pack_bits(cs, le, 254);
}

/* Poseidon-2 or -11 of a column's rows (stacked/circuit/hash.rs). */
static zkp_num column_hash(zkp_cs *cs, const zkp_num *rows, unsigned layers)
{
	const zkp_poseidon_consts *c;
	int rc = zkp_poseidon_consts_get(&c, layers);
	if (rc) {
		zkp_cs_fail(cs, rc, "Poseidon of arity %u", layers);
		return (zkp_num){ 0 };
	}
	return zkp_poseidon_circuit(cs, c, rows);
}

void porep_challenge(zkp_cs *cs, const zkp_porep_shape *s, const zkp_porep_challenge *ch,
		     const struct porep_globals *g, struct porep_scratch *x)
{
	const bool w = ch != NULL;
	const zkp_num *comm_d = &g->comm_d, *comm_c = &g->comm_c, *comm_r_last = &g->comm_r_last;
	const zkp_bool *replica_bits = g->replica_bits;
	const unsigned L = s->layers;
	zkp_tree_shape td, tcr;
	zkp_porep_tree_d(s, &td);
	zkp_porep_tree_cr(s, &tcr);

	zkp_num data_leaf = zkp_num_alloc(cs, w ? &ch->data_leaf : NULL);
	zkp_por_circuit(cs, &td, &data_leaf, comm_d, w ? &ch->comm_d_path : NULL);

	/* DRG parents, then expander parents: columns, hash, inclusion */
	for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++) {
		for (unsigned l = 0; l < L; l++)
			x->cols[p][l] = zkp_num_alloc(cs, w ? &ch->parent_rows[p][l] : NULL);
		zkp_num h = column_hash(cs, x->cols[p], L);
		zkp_por_circuit(cs, &tcr, &h, comm_c, w ? &ch->parent_paths[p] : NULL);
	}

	zkp_bool node_bits[64];
	zkp_u64_alloc_inputize(cs, w ? ch->node : 0, node_bits);

	for (unsigned layer = 1; layer <= L; layer++) {
		zkp_u32 layer_num = zkp_u32_const(layer);
		unsigned n = 0;
		zkp_bool raw[255];
		for (unsigned p = 0; p < ZKP_POREP_DRG_PARENTS; p++, n++) {
			zkp_num_to_bits_le(cs, &x->cols[p][layer - 1], raw);
			zkp_bits_reverse_bytes(x->bits[n], raw);
		}
		if (layer > 1)
			for (unsigned p = ZKP_POREP_DRG_PARENTS; p < ZKP_POREP_PARENTS; p++, n++) {
				zkp_num_to_bits_le(cs, &x->cols[p][layer - 2], raw);
				zkp_bits_reverse_bytes(x->bits[n], raw);
			}
		/* 37 slots: layer 1 repeats the 6 DRG parents six times and
		 * then parent 0; later layers take the 14 twice, then 9. */
		const zkp_bool *expanded[ZKP_POREP_LABEL_PARENTS];
		for (unsigned k = 0; k < ZKP_POREP_LABEL_PARENTS; k++)
			expanded[k] = x->bits[k % n];
		x->labels[layer - 1] =
			zkp_porep_label_circuit(cs, replica_bits, expanded, &layer_num, node_bits);
	}

	/* encode: key + data = enc, row (key + data) * ONE = enc */
	const zkp_num *key = &x->labels[L - 1];
	zkp_num enc;
	zkp_fr_add(&enc.value, &key->value, &data_leaf.value);
	enc = zkp_num_alloc(cs, &enc.value);
	{
		zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
		zkp_lc_add(cs, a, key->var, NULL);
		zkp_lc_add(cs, a, data_leaf.var, NULL);
		zkp_lc_add(cs, b, ZKP_CS_ONE, NULL);
		zkp_lc_add(cs, c, enc.var, NULL);
		zkp_cs_enforce_scratch(cs);
	}
	zkp_por_circuit(cs, &tcr, &enc, comm_r_last, w ? &ch->comm_r_last_path : NULL);

	zkp_num own = column_hash(cs, x->labels, L);
	zkp_por_circuit(cs, &tcr, &own, comm_c, w ? &ch->comm_c_path : NULL);
}

void zkp_porep_circuit_fn(zkp_cs *cs, void *job)
{
	const zkp_porep_job *j = job;
	zkp_porep_circuit(cs, j->shape, zkp_cs_witness(cs) ? j->witness : NULL);
}

void porep_global_part(zkp_cs *cs, const zkp_porep_witness *w, struct porep_globals *g)
{
	const bool wit = zkp_cs_witness(cs);
	zkp_num replica_id = zkp_num_alloc(cs, wit ? &w->replica_id : NULL);
	zkp_num_inputize(cs, &replica_id);
	zkp_bool raw[255];
	zkp_num_to_bits_le(cs, &replica_id, raw);
	zkp_bits_reverse_bytes(g->replica_bits, raw);

	g->comm_d = zkp_num_alloc(cs, wit ? &w->comm_d : NULL);
	zkp_num_inputize(cs, &g->comm_d);
	zkp_num comm_r = zkp_num_alloc(cs, wit ? &w->comm_r : NULL);
	zkp_num_inputize(cs, &comm_r);
	g->comm_r_last = zkp_num_alloc(cs, wit ? &w->comm_r_last : NULL);
	g->comm_c = zkp_num_alloc(cs, wit ? &w->comm_c : NULL);

	const zkp_poseidon_consts *p2;
	int rc = zkp_poseidon_consts_get(&p2, 2);
	if (rc) {
		zkp_cs_fail(cs, rc, "Poseidon of arity 2");
		return;
	}
	zkp_num pair[2] = { g->comm_c, g->comm_r_last };
	zkp_num h = zkp_poseidon_circuit(cs, p2, pair);
	zkp_num_enforce_equal(cs, &comm_r, &h);
}

void zkp_porep_circuit(zkp_cs *cs, const zkp_porep_shape *s, const zkp_porep_witness *w)
{
	const bool wit = zkp_cs_witness(cs);
	if (wit && !w) {
		zkp_cs_fail(cs, ZKP_ERR_INVAL, "a witness pass needs the partition's values");
		return;
	}
	struct porep_scratch *x = malloc(sizeof(*x));
	struct porep_globals g;
	if (!x) {
		zkp_cs_fail(cs, ZKP_ERR_NOMEM, "no memory for a challenge");
		return;
	}
	porep_global_part(cs, w, &g);
	for (unsigned i = 0; i < s->challenges && !zkp_cs_error(cs); i++)
		porep_challenge(cs, s, wit ? &w->challenges[i] : NULL, &g, x);
	free(x);
}

void zkp_porep_public_inputs(zkp_fr *out, const zkp_porep_shape *s, const zkp_fr *replica_id,
			     const zkp_fr *comm_d, const zkp_fr *comm_r, const uint64_t *nodes,
			     const uint32_t (*parents)[ZKP_POREP_PARENTS])
{
	size_t k = 0;
	out[k++] = *replica_id;
	out[k++] = *comm_d;
	out[k++] = *comm_r;
	for (unsigned i = 0; i < s->challenges; i++) {
		zkp_fr_set_u64(&out[k++], nodes[i]);
		for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++)
			zkp_fr_set_u64(&out[k++], parents[i][p]);
		for (int r = 0; r < 3; r++)
			zkp_fr_set_u64(&out[k++], nodes[i]);
	}
}

int porep_layout(const zkp_porep_shape *s, struct porep_layout *ret, zkp_error *err)
{
	struct porep_scratch *x = malloc(sizeof(*x));
	struct porep_globals g;
	zkp_cs cs;
	if (!x)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a challenge");
	zkp_cs_init_shape(&cs);
	porep_global_part(&cs, NULL, &g);
	ret->in0 = cs.inputs;
	ret->aux0 = cs.aux;
	ret->rows0 = cs.rows;
	porep_challenge(&cs, s, NULL, &g, x);
	ret->in_per = cs.inputs - ret->in0;
	ret->aux_per = cs.aux - ret->aux0;
	ret->rows_per = cs.rows - ret->rows0;
	ret->inputs = ret->in0 + s->challenges * ret->in_per;
	ret->aux = ret->aux0 + s->challenges * ret->aux_per;
	ret->rows = ret->rows0 + s->challenges * ret->rows_per;
	zkp_cs_release(&cs);
	free(x);
	return 0;
}

/* ---- the witness, challenges in parallel ---- */

struct par {
	const zkp_porep_shape *s;
	const zkp_porep_witness *in;
	zkp_fr *w;
	struct porep_layout lay;
	const struct porep_globals *g;
	pthread_mutex_t lock;
	int err;
	zkp_error error;
};

static void par_fail(struct par *p, const zkp_cs *cs, unsigned i, int rc)
{
	pthread_mutex_lock(&p->lock);
	if (!p->err) {
		p->err = rc;
		zkp_error_set(&p->error, rc, "challenge %u: %s", i, zkp_error_text(&cs->error, rc));
	}
	pthread_mutex_unlock(&p->lock);
}

static void par_chunk(void *arg, size_t begin, size_t end)
{
	struct par *p = arg;
	const struct porep_layout *y = &p->lay;
	struct porep_scratch *x = malloc(sizeof(*x));
	for (size_t i = begin; i < end; i++) {
		zkp_cs cs;
		zkp_cs_init_witness_at(&cs, y->inputs, y->aux, p->w, y->in0 + i * y->in_per,
				       y->aux0 + i * y->aux_per);
		if (!x)
			zkp_cs_fail(&cs, ZKP_ERR_NOMEM, "no memory for a challenge");
		else
			porep_challenge(&cs, p->s, &p->in->challenges[i], p->g, x);
		if (!zkp_cs_error(&cs) && (cs.aux != y->aux0 + (i + 1) * y->aux_per ||
					   cs.inputs != y->in0 + (i + 1) * y->in_per))
			zkp_cs_fail(&cs, ZKP_ERR_MISMATCH, "allocated other than its shape");
		if (zkp_cs_error(&cs))
			par_fail(p, &cs, (unsigned)i, zkp_cs_error(&cs));
		zkp_cs_release(&cs);
	}
	free(x);
}

int zkp_porep_witness_parallel(const zkp_porep_shape *s, const zkp_porep_witness *in, zkp_fr *w,
			       uint64_t inputs, uint64_t aux, zkp_pool *pool, zkp_error *err)
{
	struct par p = { .s = s, .in = in, .w = w };
	struct porep_globals g;
	zkp_cs cs;
	int rc;

	/* Where each challenge's variables start: a shape pass of the global
	 * part and of one challenge (every challenge allocates alike). */
	if ((rc = porep_layout(s, &p.lay, err)))
		return rc;
	if (p.lay.inputs != inputs || p.lay.aux != aux)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "a witness of %llu inputs and %llu aux for a circuit of %llu and %llu",
				     (unsigned long long)inputs, (unsigned long long)aux,
				     (unsigned long long)p.lay.inputs, (unsigned long long)p.lay.aux);

	zkp_cs_init_witness(&cs, inputs, aux, w);
	porep_global_part(&cs, in, &g);
	rc = zkp_cs_error(&cs);
	if (rc) {
		zkp_error_set(err, rc, "global part: %s", zkp_error_text(&cs.error, rc));
		zkp_cs_release(&cs);
		return rc;
	}
	zkp_cs_release(&cs);
	p.g = &g;
	pthread_mutex_init(&p.lock, NULL);
	zkp_pool_run(pool, s->challenges, 1, par_chunk, &p);
	pthread_mutex_destroy(&p.lock);
	if (p.err)
		*err = p.error;
	return p.err;
}
