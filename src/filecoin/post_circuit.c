/*
 * The Fallback PoSt circuit (include/zkpd/post.h), in the order of
 * rust-fil-proofs' Sector::synthesize (storage-proofs-post
 * fallback/circuit.rs), sector after sector.
 *
 * Rows per sector: 313 (comm_r's input row 1, Poseidon-2 311, the equality
 * 1) + per challenge the tree R inclusion: 530 per octree level, 314 for a
 * binary top level, 2 for the index packing and the root equality. A
 * 32 GiB WindowPoSt partition: 2,349 x (313 + 10 x 5,302) = 125,279,217.
 */
#include <stdio.h>
#include <string.h>

#include "le_bytes.h"
#include "zkpd/porep.h"
#include "zkpd/poseidon.h"
#include "zkpd/post.h"

/* WindowPoSt sectors per partition (filecoin-proofs constants.rs
 * WINDOW_POST_SECTOR_COUNT) of each published size. */
static const struct {
	uint64_t bytes;
	const char *name;
	unsigned window_sectors;
} published[] = {
	{ 2048, "2KiB", 2 },
	{ 8ULL << 20, "8MiB", 2 },
	{ 512ULL << 20, "512MiB", 2 },
	{ 32ULL << 30, "32GiB", 2349 },
	{ 64ULL << 30, "64GiB", 2300 },
};

const char *zkp_post_kind_name(enum zkp_post_kind k)
{
	return k == ZKP_POST_WINNING ? "winning" : "window";
}

int zkp_post_kind_parse(enum zkp_post_kind *ret, const char *s, zkp_error *err)
{
	if (!strcmp(s, "window"))
		*ret = ZKP_POST_WINDOW;
	else if (!strcmp(s, "winning"))
		*ret = ZKP_POST_WINNING;
	else
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "PoSt kind '%s': expected window or winning", s);
	return 0;
}

int zkp_post_shape_for_size(zkp_post_shape *ret, enum zkp_post_kind kind, uint64_t sector_bytes,
			    zkp_error *err)
{
	zkp_porep_shape p;
	for (size_t i = 0; i < sizeof(published) / sizeof(published[0]); i++) {
		if (published[i].bytes != sector_bytes)
			continue;
		int rc = zkp_porep_shape_for_size(&p, sector_bytes, err);
		if (rc)
			return rc;
		*ret = (zkp_post_shape){
			.kind = kind,
			.nodes = p.nodes,
			.sectors = kind == ZKP_POST_WINNING ? ZKP_POST_WINNING_SECTORS :
							      published[i].window_sectors,
			.challenges = kind == ZKP_POST_WINNING ? ZKP_POST_WINNING_CHALLENGES :
								 ZKP_POST_WINDOW_CHALLENGES,
			.tree = { p.tree[0], p.tree[1], p.tree[2] },
			.sector_bytes = sector_bytes,
		};
		return 0;
	}
	return zkp_error_set(err, ZKP_ERR_INVAL,
			     "sector size %llu bytes: Filecoin publishes PoSt parameters for 2KiB, 8MiB, 512MiB, 32GiB and 64GiB only",
			     (unsigned long long)sector_bytes);
}

/* The tree checks are PoRep's (the same tree R); layers and challenges
 * there are placeholders that always pass. */
static zkp_porep_shape as_porep(const zkp_post_shape *s)
{
	return (zkp_porep_shape){ .nodes = s->nodes,
				  .layers = 2,
				  .challenges = 1,
				  .tree = { s->tree[0], s->tree[1], s->tree[2] } };
}

int zkp_post_shape_check(const zkp_post_shape *s, zkp_error *err)
{
	if (s->kind != ZKP_POST_WINDOW && s->kind != ZKP_POST_WINNING)
		return zkp_error_set(err, ZKP_ERR_INVAL, "kind = %d: not window or winning",
				     (int)s->kind);
	if (s->sectors == 0 || s->sectors > 100000)
		return zkp_error_set(err, ZKP_ERR_INVAL, "sectors = %u: must be 1 to 100000",
				     s->sectors);
	if (s->challenges == 0 || s->challenges > 1024)
		return zkp_error_set(err, ZKP_ERR_INVAL, "challenges = %u: must be 1 to 1024",
				     s->challenges);
	zkp_porep_shape p = as_porep(s);
	return zkp_porep_shape_check(&p, err);
}

void zkp_post_tree_r(const zkp_post_shape *s, zkp_tree_shape *ret)
{
	zkp_porep_shape p = as_porep(s);
	zkp_porep_tree_cr(&p, ret);
}

uint64_t zkp_post_inputs(const zkp_post_shape *s)
{
	return 1 + (uint64_t)s->sectors * (1 + (uint64_t)s->challenges);
}

void zkp_post_describe(char *out, size_t n, const zkp_post_shape *s)
{
	char tree[16], size[24] = "test shape";
	zkp_porep_shape p = as_porep(s);
	zkp_porep_tree_name(tree, &p);
	for (size_t i = 0; i < sizeof(published) / sizeof(published[0]); i++)
		if (published[i].bytes == s->sector_bytes)
			snprintf(size, sizeof(size), "%s", published[i].name);
	unsigned k = 0;
	while (((uint64_t)1 << k) < s->nodes)
		k++;
	snprintf(out, n, "%s %s: %u sector%s x %u challenge%s, 2^%u nodes, tree %s", size,
		 s->kind == ZKP_POST_WINNING ? "WinningPoSt" : "WindowPoSt", s->sectors,
		 s->sectors == 1 ? "" : "s", s->challenges, s->challenges == 1 ? "" : "s", k, tree);
}

void zkp_post_label_encode(uint8_t out[32], const zkp_post_shape *s)
{
	memset(out, 0, 32);
	memcpy(out, "FPS1", 4);
	out[4] = (uint8_t)s->kind;
	zkp_put_le(out + 5, s->nodes, 8);
	zkp_put_le(out + 13, s->sectors, 4);
	zkp_put_le(out + 17, s->challenges, 2);
	for (int i = 0; i < 3; i++)
		out[19 + i] = (uint8_t)s->tree[i];
	zkp_put_le(out + 22, s->sector_bytes, 8);
}

bool zkp_post_label_decode(zkp_post_shape *ret, const uint8_t label[32])
{
	if (memcmp(label, "FPS1", 4))
		return false;
	ret->kind = label[4] == ZKP_POST_WINNING ? ZKP_POST_WINNING : ZKP_POST_WINDOW;
	ret->nodes = zkp_get_le(label + 5, 8);
	ret->sectors = (unsigned)zkp_get_le(label + 13, 4);
	ret->challenges = (unsigned)zkp_get_le(label + 17, 2);
	for (int i = 0; i < 3; i++)
		ret->tree[i] = label[19 + i];
	ret->sector_bytes = zkp_get_le(label + 22, 8);
	return true;
}

/* One sector: comm_r against comm_c and comm_r_last, then each challenge's
 * leaf in tree R. */
static void sector(zkp_cs *cs, const zkp_post_shape *s, const zkp_tree_shape *tr,
		   const zkp_poseidon_consts *p2, const zkp_post_sector *sec)
{
	const bool w = sec != NULL;
	zkp_num comm_r_last = zkp_num_alloc(cs, w ? &sec->comm_r_last : NULL);
	zkp_num comm_c = zkp_num_alloc(cs, w ? &sec->comm_c : NULL);
	zkp_num comm_r = zkp_num_alloc(cs, w ? &sec->comm_r : NULL);
	zkp_num_inputize(cs, &comm_r);
	zkp_num pair[2] = { comm_c, comm_r_last };
	zkp_num h = zkp_poseidon_circuit(cs, p2, pair);
	zkp_num_enforce_equal(cs, &comm_r, &h);
	for (unsigned i = 0; i < s->challenges && !zkp_cs_error(cs); i++) {
		const zkp_post_challenge *ch = w ? &sec->challenges[i] : NULL;
		zkp_num leaf = zkp_num_alloc(cs, w ? &ch->leaf : NULL);
		zkp_por_circuit(cs, tr, &leaf, &comm_r_last, w ? &ch->path : NULL);
	}
}

void zkp_post_circuit(zkp_cs *cs, const zkp_post_shape *s, const zkp_post_witness *w)
{
	const bool wit = zkp_cs_witness(cs);
	if (wit && (!w || !w->sectors)) {
		zkp_cs_fail(cs, ZKP_ERR_INVAL, "a witness pass needs the sectors' values");
		return;
	}
	const zkp_poseidon_consts *p2;
	int rc = zkp_poseidon_consts_get(&p2, 2);
	if (rc) {
		zkp_cs_fail(cs, rc, "Poseidon of arity 2");
		return;
	}
	zkp_tree_shape tr;
	zkp_post_tree_r(s, &tr);
	for (unsigned i = 0; i < s->sectors && !zkp_cs_error(cs); i++)
		sector(cs, s, &tr, p2, wit ? &w->sectors[i] : NULL);
}

void zkp_post_public_inputs(zkp_fr *out, const zkp_post_shape *s, const zkp_fr *comm_r,
			    const uint64_t *nodes)
{
	size_t k = 0;
	for (unsigned i = 0; i < s->sectors; i++) {
		out[k++] = comm_r[i];
		for (unsigned c = 0; c < s->challenges; c++)
			zkp_fr_set_u64(&out[k++], nodes[(size_t)i * s->challenges + c]);
	}
}

void zkp_post_circuit_fn(zkp_cs *cs, void *job)
{
	const zkp_post_job *j = job;
	zkp_post_circuit(cs, j->shape, zkp_cs_witness(cs) ? j->witness : NULL);
}
