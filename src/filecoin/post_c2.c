/*
 * PoSt partitions from vanilla proofs (include/zkpd/post_c2.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "le_bytes.h"
#include "zkpd/circuit.h"
#include "zkpd/post_c2.h"

int zkp_post_bundle_encode(uint8_t **out, size_t *len, uint64_t registered_proof,
			   const uint8_t randomness[32], unsigned partition,
			   const uint8_t *const *proofs, const size_t *lens, unsigned n, zkp_error *err)
{
	size_t total = 8 + 32 + 4 + 4;
	for (unsigned i = 0; i < n; i++)
		total += 8 + lens[i];
	uint8_t *b = malloc(total), *p = b;
	if (!b)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a PoSt job");
	zkp_put_le(p, registered_proof, 8);
	memcpy(p + 8, randomness, 32);
	zkp_put_le(p + 40, partition, 4);
	zkp_put_le(p + 44, n, 4);
	p += 48;
	for (unsigned i = 0; i < n; i++) {
		zkp_put_le(p, lens[i], 8);
		memcpy(p + 8, proofs[i], lens[i]);
		p += 8 + lens[i];
	}
	*out = b;
	*len = total;
	return 0;
}

void zkp_post_partition_release(zkp_post_partition *p)
{
	if (p->vanilla)
		for (unsigned i = 0; i < p->n; i++)
			zkp_post_vanilla_release(&p->vanilla[i]);
	free(p->vanilla);
	free(p->sectors);
	free(p->nodes);
	memset(p, 0, sizeof(*p));
}

/* A sector as the job gave it: its id, its place in the job and where
 * its proof starts in the bundle. */
struct given {
	uint64_t id;
	unsigned pos;
	size_t off;
};

static int by_id(const void *a, const void *b)
{
	const struct given *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id ? 1 : x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Puts p's sectors in ascending sector id, as rust-fil-proofs takes a
 * partition's sectors from its ordered map and the chain verifies them:
 * the order a job gives is not the proof's. g[i] describes vanilla[i] on
 * entry and the sorted order on return. Two sectors with one id are
 * refused, naming both places. */
static int sort_sectors(zkp_post_partition *p, struct given *g, zkp_error *err)
{
	qsort(g, p->n, sizeof(*g), by_id);
	for (unsigned i = 1; i < p->n; i++)
		if (g[i].id == g[i - 1].id)
			return zkp_error_set(err, ZKP_ERR_INVAL,
					     "PoSt job: sectors %u and %u both have sector id %" PRIu64
					     " (a partition proves each sector once)",
					     g[i - 1].pos, g[i].pos, g[i].id);
	zkp_post_vanilla *sorted = malloc(p->n * sizeof(*sorted));
	if (!sorted)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a PoSt job");
	for (unsigned i = 0; i < p->n; i++)
		sorted[i] = p->vanilla[g[i].pos];
	free(p->vanilla);
	p->vanilla = sorted;
	return 0;
}

int zkp_post_partition_from_bundle(zkp_post_partition *ret, enum zkp_post_kind kind,
				   uint64_t sector_bytes, const uint8_t *b, size_t len,
				   zkp_error *err)
{
	zkp_post_partition p = { 0 };
	struct given *g = NULL;
	int rc;
	memset(ret, 0, sizeof(*ret));
	if (len < 48)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "PoSt job: %zu bytes; the proof type, randomness, partition and count take 48",
				     len);
	if ((rc = zkp_post_proof_type_from_id(&p.type, (int64_t)zkp_get_le(b, 8), err)))
		return rc;
	if (p.type.kind != kind || p.type.sector_bytes != sector_bytes)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "PoSt job: a %s proof; the circuit proves %s PoSt of %" PRIu64
				     "-byte sectors",
				     p.type.name, zkp_post_kind_name(kind), sector_bytes);
	if ((rc = zkp_post_shape_for_size(&p.shape, kind, sector_bytes, err)))
		return rc;
	memcpy(p.randomness, b + 8, 32);
	p.partition = (unsigned)zkp_get_le(b + 40, 4);
	uint64_t n = zkp_get_le(b + 44, 4);
	if (n == 0 || n > p.shape.sectors)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "PoSt job, byte 44: %" PRIu64 " sectors; a %s partition holds 1 to %u",
				     n, p.type.name, p.shape.sectors);
	if (kind == ZKP_POST_WINNING && p.partition)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "PoSt job, byte 40: partition %u; WinningPoSt has one", p.partition);
	p.n = (unsigned)n;
	const unsigned S = p.shape.sectors, C = p.shape.challenges;
	p.vanilla = calloc(n, sizeof(*p.vanilla));
	p.sectors = calloc(S, sizeof(*p.sectors));
	p.nodes = calloc((size_t)S * C, sizeof(*p.nodes));
	g = calloc(n, sizeof(*g));
	if (!p.vanilla || !p.sectors || !p.nodes || !g) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a PoSt job");
		goto fail;
	}
	zkp_tree_shape t;
	zkp_post_tree_r(&p.shape, &t);
	size_t off = 48;
	for (unsigned i = 0; i < p.n; i++) {
		zkp_error e = { 0 };
		if (len - off < 8 || zkp_get_le(b + off, 8) > len - off - 8) {
			rc = zkp_error_set(err, ZKP_ERR_FORMAT,
					   "PoSt job, byte %zu: sector %u's proof runs past the end", off,
					   i);
			goto fail;
		}
		size_t l = (size_t)zkp_get_le(b + off, 8);
		rc = zkp_post_vanilla_decode(&p.vanilla[i], b + off + 8, l, &t, &e);
		if (!rc && p.vanilla[i].challenges != C)
			rc = zkp_error_set(&e, ZKP_ERR_FORMAT, "%u challenges; a %s sector has %u",
					   p.vanilla[i].challenges, p.type.name, C);
		if (!rc)
			rc = zkp_post_vanilla_check(&p.vanilla[i].sector, C, &t, &e);
		if (rc) {
			zkp_error_set(err, rc, "PoSt job, sector %u (byte %zu): %s", i, off, e.msg);
			goto fail;
		}
		g[i] = (struct given){ p.vanilla[i].sector.sector_id, i, off };
		off += 8 + l;
	}
	if (off != len) {
		rc = zkp_error_set(err, ZKP_ERR_FORMAT,
				   "PoSt job, byte %zu: %zu more bytes follow the last sector", off,
				   len - off);
		goto fail;
	}
	if ((rc = sort_sectors(&p, g, err)))
		goto fail;
	/* Challenges follow each sector's place in id order. */
	for (unsigned i = 0; i < p.n; i++) {
		zkp_error e = { 0 };
		uint64_t index = (uint64_t)p.partition * S + i;
		rc = zkp_post_vanilla_check_challenges(&p.vanilla[i].sector, C, p.type.version,
						       p.randomness, index, p.shape.nodes, &e);
		if (rc) {
			zkp_error_set(err, rc,
				      "PoSt job, sector %u (byte %zu, sector id %" PRIu64
				      ", place %u in id order): %s",
				      g[i].pos, g[i].off, g[i].id, i, e.msg);
			goto fail;
		}
	}
	for (unsigned i = 0; i < S; i++) {
		const zkp_post_vanilla *v = &p.vanilla[i < p.n ? i : p.n - 1];
		p.sectors[i] = v->sector;
		for (unsigned c = 0; c < C; c++)
			p.nodes[(size_t)i * C + c] = v->ch[c].node;
	}
	free(g);
	*ret = p;
	return 0;
fail:
	free(g);
	zkp_post_partition_release(&p);
	return rc;
}

int zkp_post_partition_public_inputs(zkp_fr *out, const zkp_post_partition *p, zkp_error *err)
{
	const unsigned S = p->shape.sectors;
	zkp_fr *comm_r = malloc(S * sizeof(zkp_fr));
	if (!comm_r)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %u comm_r values", S);
	for (unsigned i = 0; i < S; i++)
		comm_r[i] = p->sectors[i].comm_r;
	zkp_post_public_inputs(out, &p->shape, comm_r, p->nodes);
	free(comm_r);
	return 0;
}

int zkp_post_partition_witness(zkp_fr *w, uint64_t inputs, uint64_t aux,
			       const zkp_post_partition *p, zkp_error *err)
{
	uint64_t n_in = zkp_post_inputs(&p->shape);
	if (inputs != n_in)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "the circuit has %" PRIu64 " inputs; a %s partition has %" PRIu64,
				     inputs, p->type.name, n_in);
	zkp_fr *pub = malloc((size_t)(n_in - 1) * sizeof(zkp_fr));
	if (!pub)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for the public inputs");
	zkp_post_witness wit = { p->sectors };
	zkp_post_job job = { &p->shape, &wit };
	zkp_circuit_dims dims = { .inputs = inputs, .aux = aux };
	int rc = zkp_post_partition_public_inputs(pub, p, err);
	if (!rc)
		rc = zkp_circuit_witness(zkp_post_circuit_fn, &job, &dims, w, err);
	for (uint64_t i = 0; !rc && i + 1 < n_in; i++)
		if (!zkp_fr_eq(&w[1 + i], &pub[i]))
			rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
					   "public input %" PRIu64 " of the witness differs from the one derived from the randomness and sector ids",
					   i + 1);
	free(pub);
	return rc;
}
