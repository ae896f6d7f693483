/*
 * The PoSt vanilla proof reader (include/zkpd/post_vanilla.h).
 *
 * bincode 1 with its default fixed-width integers: every integer is
 * little-endian at its Rust width (usize as u64), a Vec is its length as a
 * u64 and then its elements, an enum is its variant number as a u32 and
 * then the variant's fields, a [u8; 32] is its 32 bytes with no length,
 * and struct fields follow their declaration order with no names.
 *
 * The one allocation, the challenges, waits until their count is known to
 * be at most ZKP_POST_VANILLA_MAX_CHALLENGES; every other length must equal
 * what the tree shape says and is refused before it is used, so no length
 * read from the input sizes anything. The input's end is checked before
 * each value, so a short input fails at the value it cuts, by name.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le_bytes.h"
#include "zkpd/post_vanilla.h"

#define SECTOR "vanilla_proof.sectors[0]"

static const char *const variant[] = { "Single", "Sub", "Top" };

/* The MerkleProof variant a tree's paths take. */
static unsigned variant_of(const zkp_tree_shape *t)
{
	return t->arity[2] ? 2 : t->arity[1] ? 1 : 0;
}

struct rd {
	const uint8_t *b;
	size_t len, off;
	zkp_error *err;
	/* Where the reader is, for messages: pfx is the serde path of the
	 * value (or of the path being read: then lvl >= 0 names its element,
	 * and hash >= 0 or at_index what in it). Rendered only on failure. */
	char pfx[112];
	int lvl, hash;
	bool at_index;
};

static void field(const struct rd *r, char *out, size_t n)
{
	if (r->lvl < 0)
		snprintf(out, n, "%s", r->pfx);
	else if (r->at_index)
		snprintf(out, n, "%s[%d].index", r->pfx, r->lvl);
	else if (r->hash < 0)
		snprintf(out, n, "%s[%d].hashes", r->pfx, r->lvl);
	else
		snprintf(out, n, "%s[%d].hashes[%d]", r->pfx, r->lvl, r->hash);
}

__attribute__((format(printf, 4, 5))) static int fail(const struct rd *r, size_t at, int code,
						      const char *fmt, ...)
{
	char f[160], d[224];
	va_list ap;
	field(r, f, sizeof(f));
	va_start(ap, fmt);
	vsnprintf(d, sizeof(d), fmt, ap);
	va_end(ap);
	return zkp_error_set(r->err, code, "PoSt vanilla proof, byte %zu: %s: %s", at, f, d);
}

static void here(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void here(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->pfx, sizeof(r->pfx), fmt, ap);
	va_end(ap);
	r->lvl = r->hash = -1;
	r->at_index = false;
}

static int take(const struct rd *r, size_t n, const char *what)
{
	if (r->len - r->off >= n)
		return 0;
	return fail(r, r->off, ZKP_ERR_TRUNCATED, "the input ends %zu bytes into this %zu-byte %s",
		    r->len - r->off, n, what);
}

static int get_u64(struct rd *r, uint64_t *v, const char *what)
{
	int rc = take(r, 8, what);
	if (rc)
		return rc;
	*v = zkp_get_le(r->b + r->off, 8);
	r->off += 8;
	return 0;
}

static int get_fr(struct rd *r, zkp_fr *out)
{
	int rc = take(r, 32, "field element");
	if (rc)
		return rc;
	if (zkp_fr_from_le(out, r->b + r->off))
		return fail(r, r->off, ZKP_ERR_NOT_CANONICAL,
			    "value is not below the BLS12-381 scalar field modulus r");
	r->off += 32;
	return 0;
}

/* One InclusionPath: `levels` elements of a level arity a, their positions
 * into p->index from level l0 and their hashes into p->siblings from s0. */
static int get_path(struct rd *r, zkp_path *p, unsigned l0, unsigned levels, unsigned a,
		    unsigned s0)
{
	size_t pos = r->off;
	uint64_t n;
	int rc = get_u64(r, &n, "length (u64)");
	if (rc)
		return rc;
	if (n != levels)
		return fail(r, pos, ZKP_ERR_FORMAT,
			    "length %llu; this part of the tree has %u level%s",
			    (unsigned long long)n, levels, levels == 1 ? "" : "s");
	for (unsigned l = 0; l < levels; l++) {
		r->lvl = (int)l;
		r->hash = -1;
		r->at_index = false;
		pos = r->off;
		if ((rc = get_u64(r, &n, "length (u64)")))
			return rc;
		if (n != a - 1)
			return fail(r, pos, ZKP_ERR_FORMAT,
				    "length %llu; a level of arity %u has %u siblings",
				    (unsigned long long)n, a, a - 1);
		for (unsigned j = 0; j < a - 1; j++) {
			r->hash = (int)j;
			if ((rc = get_fr(r, &p->siblings[s0 + l * (a - 1) + j])))
				return rc;
		}
		r->at_index = true;
		pos = r->off;
		if ((rc = get_u64(r, &n, "usize (u64)")))
			return rc;
		if (n >= a)
			return fail(r, pos, ZKP_ERR_FORMAT,
				    "position %llu is not below the arity %u",
				    (unsigned long long)n, a);
		p->index[l0 + l] = (uint8_t)n;
	}
	r->lvl = -1;
	r->at_index = false;
	return 0;
}

/* MerkleProof i: Single {root, leaf, path} or Sub {base_proof, sub_proof,
 * root, leaf} or Top {base_proof, sub_proof, top_proof, root, leaf}. */
static int get_proof(struct rd *r, const zkp_tree_shape *t, unsigned i, zkp_post_challenge *c,
		     zkp_fr *root, size_t *root_at)
{
	static const char *const part_name[] = { "base_proof", "sub_proof", "top_proof" };
	const unsigned want = variant_of(t);
	const unsigned base = t->base_levels, a0 = t->arity[0];
	here(r, SECTOR ".inclusion_proofs[%u].data", i);
	int rc = take(r, 4, "variant tag (u32)");
	if (rc)
		return rc;
	uint64_t tag = zkp_get_le(r->b + r->off, 4);
	if (tag > 2)
		return fail(r, r->off, ZKP_ERR_FORMAT,
			    "variant tag %llu; a MerkleProof is 0 (Single), 1 (Sub) or 2 (Top)",
			    (unsigned long long)tag);
	if (tag != want)
		return fail(r, r->off, ZKP_ERR_FORMAT,
			    "a %s proof, but a tree of arities %u-%u-%u takes %s proofs",
			    variant[tag], a0, t->arity[1], t->arity[2], variant[want]);
	r->off += 4;
	const char *v = variant[tag];

	if (tag == 0) {
		here(r, SECTOR ".inclusion_proofs[%u].data.Single.root", i);
		*root_at = r->off;
		if ((rc = get_fr(r, root)))
			return rc;
		here(r, SECTOR ".inclusion_proofs[%u].data.Single.leaf", i);
		if ((rc = get_fr(r, &c->leaf)))
			return rc;
		here(r, SECTOR ".inclusion_proofs[%u].data.Single.path.path", i);
		return get_path(r, &c->path, 0, base, a0, 0);
	}
	/* Levels: base ones, then the sub level, then the top level; their
	 * siblings in the same order. */
	unsigned l0 = 0, s0 = 0;
	for (unsigned part = 0; part <= tag; part++) {
		unsigned a = t->arity[part], levels = part ? 1 : base;
		here(r, SECTOR ".inclusion_proofs[%u].data.%s.%s.path", i, v, part_name[part]);
		if ((rc = get_path(r, &c->path, l0, levels, a, s0)))
			return rc;
		l0 += levels;
		s0 += levels * (a - 1);
	}
	here(r, SECTOR ".inclusion_proofs[%u].data.%s.root", i, v);
	*root_at = r->off;
	if ((rc = get_fr(r, root)))
		return rc;
	here(r, SECTOR ".inclusion_proofs[%u].data.%s.leaf", i, v);
	return get_fr(r, &c->leaf);
}

/* The leaf index the positions spell, level 0 the least significant. */
static uint64_t path_node(const zkp_tree_shape *t, const zkp_path *p)
{
	uint64_t node = 0, mul = 1;
	for (unsigned l = 0; l < zkp_tree_levels(t); l++) {
		node += p->index[l] * mul;
		mul *= zkp_tree_level_arity(t, l);
	}
	return node;
}

int zkp_post_vanilla_decode(zkp_post_vanilla *ret, const uint8_t *buf, size_t len,
			    const zkp_tree_shape *t, zkp_error *err)
{
	memset(ret, 0, sizeof(*ret));
	if (t->hash != ZKP_TREE_POSEIDON)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "PoSt vanilla proof: tree R is a Poseidon tree, not SHA-256");
	int rc = zkp_tree_shape_check(t, err);
	if (rc)
		return rc;
	if (zkp_tree_index_bits(t) > 63)
		return zkp_error_set(
			err, ZKP_ERR_INVAL,
			"PoSt vanilla proof: a tree of %u index bits is past any sector",
			zkp_tree_index_bits(t));

	struct rd r = { .b = buf, .len = len, .err = err };
	zkp_post_vanilla v = { .tree = *t };
	zkp_fr roots[ZKP_POST_VANILLA_MAX_CHALLENGES];
	size_t root_at[ZKP_POST_VANILLA_MAX_CHALLENGES];
	uint64_t n;
	size_t pos;

	here(&r, "sector_id");
	if ((rc = get_u64(&r, &v.sector.sector_id, "u64")))
		goto out;
	here(&r, "comm_r");
	if ((rc = get_fr(&r, &v.sector.comm_r)))
		goto out;
	here(&r, "vanilla_proof.sectors");
	pos = r.off;
	if ((rc = get_u64(&r, &n, "length (u64)")))
		goto out;
	if (n != 1) {
		rc = fail(&r, pos, ZKP_ERR_FORMAT,
			  "length %llu; a FallbackPoStSectorProof holds exactly 1 sector",
			  (unsigned long long)n);
		goto out;
	}
	here(&r, SECTOR ".inclusion_proofs");
	pos = r.off;
	if ((rc = get_u64(&r, &n, "length (u64)")))
		goto out;
	if (n == 0 || n > ZKP_POST_VANILLA_MAX_CHALLENGES) {
		rc = fail(&r, pos, ZKP_ERR_FORMAT, "length %llu; a sector has 1 to %u challenges",
			  (unsigned long long)n, ZKP_POST_VANILLA_MAX_CHALLENGES);
		goto out;
	}
	v.challenges = (unsigned)n;
	v.ch = calloc(n, sizeof(*v.ch));
	if (!v.ch) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM,
				   "PoSt vanilla proof: no memory for %llu challenges",
				   (unsigned long long)n);
		goto out;
	}
	for (unsigned i = 0; i < v.challenges; i++) {
		if ((rc = get_proof(&r, t, i, &v.ch[i], &roots[i], &root_at[i])))
			goto out;
		v.ch[i].node = path_node(t, &v.ch[i].path);
	}
	here(&r, SECTOR ".comm_c");
	if ((rc = get_fr(&r, &v.sector.comm_c)))
		goto out;
	here(&r, SECTOR ".comm_r_last");
	if ((rc = get_fr(&r, &v.sector.comm_r_last)))
		goto out;
	if (r.off != len) {
		here(&r, "end of the proof");
		rc = fail(&r, r.off, ZKP_ERR_FORMAT, "%zu more bytes follow", len - r.off);
		goto out;
	}
	for (unsigned i = 0; i < v.challenges; i++) {
		if (zkp_fr_eq(&roots[i], &v.sector.comm_r_last))
			continue;
		here(&r, SECTOR ".inclusion_proofs[%u].data.%s.root", i, variant[variant_of(t)]);
		rc = fail(&r, root_at[i], ZKP_ERR_MISMATCH, "differs from comm_r_last");
		goto out;
	}
	v.sector.challenges = v.ch;
	*ret = v;
	return 0;
out:
	free(v.ch);
	return rc;
}

void zkp_post_vanilla_release(zkp_post_vanilla *v)
{
	free(v->ch);
	memset(v, 0, sizeof(*v));
}
