/*
 * The bincode reader and writer of Filecoin's vanilla proofs
 * (bincode_int.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bincode_int.h"
#include "le_bytes.h"

static const char *const variant[] = { "Single", "Sub", "Top" };

void zkp_bincode_init(zkp_bincode_rd *r, const uint8_t *b, size_t len, const char *what,
		      zkp_error *err)
{
	memset(r, 0, sizeof(*r));
	r->b = b;
	r->len = len;
	r->what = what;
	r->err = err;
	r->lvl = r->hash = -1;
}

static void field(const zkp_bincode_rd *r, char *out, size_t n)
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

int zkp_bincode_fail(const zkp_bincode_rd *r, size_t at, int code, const char *fmt, ...)
{
	char f[200], d[224];
	va_list ap;
	field(r, f, sizeof(f));
	va_start(ap, fmt);
	vsnprintf(d, sizeof(d), fmt, ap);
	va_end(ap);
	return zkp_error_set(r->err, code, "%s, byte %zu: %s: %s", r->what, at, f, d);
}

void zkp_bincode_here(zkp_bincode_rd *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->pfx, sizeof(r->pfx), fmt, ap);
	va_end(ap);
	r->lvl = r->hash = -1;
	r->at_index = false;
}

static int take(const zkp_bincode_rd *r, size_t n, const char *what)
{
	if (r->len - r->off >= n)
		return 0;
	return zkp_bincode_fail(r, r->off, ZKP_ERR_TRUNCATED,
				"the input ends %zu bytes into this %zu-byte %s", r->len - r->off,
				n, what);
}

int zkp_bincode_u64(zkp_bincode_rd *r, uint64_t *v, const char *what)
{
	int rc = take(r, 8, what);
	if (rc)
		return rc;
	*v = zkp_get_le(r->b + r->off, 8);
	r->off += 8;
	return 0;
}

int zkp_bincode_fr(zkp_bincode_rd *r, zkp_fr *out)
{
	int rc = take(r, 32, "field element");
	if (rc)
		return rc;
	if (zkp_fr_from_le(out, r->b + r->off))
		return zkp_bincode_fail(r, r->off, ZKP_ERR_NOT_CANONICAL,
					"value is not below the BLS12-381 scalar field modulus r");
	r->off += 32;
	return 0;
}

int zkp_bincode_len(zkp_bincode_rd *r, uint64_t want, const char *unit)
{
	size_t pos = r->off;
	uint64_t n;
	int rc = zkp_bincode_u64(r, &n, "length (u64)");
	if (rc)
		return rc;
	if (n != want)
		return zkp_bincode_fail(r, pos, ZKP_ERR_FORMAT, "length %llu; expected %llu %s",
					(unsigned long long)n, (unsigned long long)want, unit);
	return 0;
}

int zkp_bincode_end(zkp_bincode_rd *r)
{
	if (r->off == r->len)
		return 0;
	zkp_bincode_here(r, "end of the proof");
	return zkp_bincode_fail(r, r->off, ZKP_ERR_FORMAT, "%zu more bytes follow",
				r->len - r->off);
}

unsigned zkp_bincode_variant(const zkp_tree_shape *t)
{
	return t->arity[2] ? 2 : t->arity[1] ? 1 : 0;
}

/* One InclusionPath: `levels` elements of a level arity a, their positions
 * into p->index from level l0 and their hashes into p->siblings from s0. */
static int get_path(zkp_bincode_rd *r, zkp_path *p, unsigned l0, unsigned levels, unsigned a,
		    unsigned s0)
{
	size_t pos = r->off;
	uint64_t n;
	int rc = zkp_bincode_u64(r, &n, "length (u64)");
	if (rc)
		return rc;
	if (n != levels)
		return zkp_bincode_fail(r, pos, ZKP_ERR_FORMAT,
					"length %llu; this part of the tree has %u level%s",
					(unsigned long long)n, levels, levels == 1 ? "" : "s");
	for (unsigned l = 0; l < levels; l++) {
		r->lvl = (int)l;
		r->hash = -1;
		r->at_index = false;
		pos = r->off;
		if ((rc = zkp_bincode_u64(r, &n, "length (u64)")))
			return rc;
		if (n != a - 1)
			return zkp_bincode_fail(r, pos, ZKP_ERR_FORMAT,
						"length %llu; a level of arity %u has %u siblings",
						(unsigned long long)n, a, a - 1);
		for (unsigned j = 0; j < a - 1; j++) {
			r->hash = (int)j;
			if ((rc = zkp_bincode_fr(r, &p->siblings[s0 + l * (a - 1) + j])))
				return rc;
		}
		r->at_index = true;
		pos = r->off;
		if ((rc = zkp_bincode_u64(r, &n, "usize (u64)")))
			return rc;
		if (n >= a)
			return zkp_bincode_fail(r, pos, ZKP_ERR_FORMAT,
						"position %llu is not below the arity %u",
						(unsigned long long)n, a);
		p->index[l0 + l] = (uint8_t)n;
	}
	r->lvl = -1;
	r->at_index = false;
	return 0;
}

int zkp_bincode_merkle_proof(zkp_bincode_rd *r, const zkp_tree_shape *t, const char *at,
			     zkp_fr *leaf, zkp_path *path, zkp_fr *root, size_t *root_at)
{
	static const char *const part_name[] = { "base_proof", "sub_proof", "top_proof" };
	const unsigned want = zkp_bincode_variant(t);
	const unsigned base = t->base_levels, a0 = t->arity[0];
	zkp_bincode_here(r, "%s.data", at);
	int rc = take(r, 4, "variant tag (u32)");
	if (rc)
		return rc;
	uint64_t tag = zkp_get_le(r->b + r->off, 4);
	if (tag > 2)
		return zkp_bincode_fail(r, r->off, ZKP_ERR_FORMAT,
					"variant tag %llu; a MerkleProof is 0 (Single), 1 (Sub) or 2 (Top)",
					(unsigned long long)tag);
	if (tag != want)
		return zkp_bincode_fail(r, r->off, ZKP_ERR_FORMAT,
					"a %s proof, but a tree of arities %u-%u-%u takes %s proofs",
					variant[tag], a0, t->arity[1], t->arity[2], variant[want]);
	r->off += 4;
	const char *v = variant[tag];
	memset(path, 0, sizeof(*path));

	if (tag == 0) {
		zkp_bincode_here(r, "%s.data.Single.root", at);
		if (root_at)
			*root_at = r->off;
		if ((rc = zkp_bincode_fr(r, root)))
			return rc;
		zkp_bincode_here(r, "%s.data.Single.leaf", at);
		if ((rc = zkp_bincode_fr(r, leaf)))
			return rc;
		zkp_bincode_here(r, "%s.data.Single.path.path", at);
		return get_path(r, path, 0, base, a0, 0);
	}
	/* Levels: base ones, then the sub level, then the top level; their
	 * siblings in the same order. */
	unsigned l0 = 0, s0 = 0;
	for (unsigned part = 0; part <= tag; part++) {
		unsigned a = t->arity[part], levels = part ? 1 : base;
		zkp_bincode_here(r, "%s.data.%s.%s.path", at, v, part_name[part]);
		if ((rc = get_path(r, path, l0, levels, a, s0)))
			return rc;
		l0 += levels;
		s0 += levels * (a - 1);
	}
	zkp_bincode_here(r, "%s.data.%s.root", at, v);
	if (root_at)
		*root_at = r->off;
	if ((rc = zkp_bincode_fr(r, root)))
		return rc;
	zkp_bincode_here(r, "%s.data.%s.leaf", at, v);
	return zkp_bincode_fr(r, leaf);
}

uint64_t zkp_bincode_path_node(const zkp_tree_shape *t, const zkp_path *p)
{
	uint64_t node = 0, mul = 1;
	for (unsigned l = 0; l < zkp_tree_levels(t); l++) {
		node += p->index[l] * mul;
		mul *= zkp_tree_level_arity(t, l);
	}
	return node;
}

/* ---- writer ---- */

static uint8_t *room(zkp_bincode_wr *w, size_t n)
{
	if (w->failed)
		return NULL;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->len + n)
			cap *= 2;
		uint8_t *b = realloc(w->b, cap);
		if (!b) {
			w->failed = true;
			return NULL;
		}
		w->b = b;
		w->cap = cap;
	}
	uint8_t *p = w->b + w->len;
	w->len += n;
	return p;
}

void zkp_bincode_put_u64(zkp_bincode_wr *w, uint64_t v)
{
	uint8_t *p = room(w, 8);
	if (p)
		zkp_put_le(p, v, 8);
}

void zkp_bincode_put_u32(zkp_bincode_wr *w, uint32_t v)
{
	uint8_t *p = room(w, 4);
	if (p)
		zkp_put_le(p, v, 4);
}

void zkp_bincode_put_fr(zkp_bincode_wr *w, const zkp_fr *v)
{
	uint8_t *p = room(w, 32);
	if (p)
		zkp_fr_to_le(p, v);
}

static void put_path(zkp_bincode_wr *w, const zkp_path *p, unsigned l0, unsigned levels,
		     unsigned a, unsigned s0)
{
	zkp_bincode_put_u64(w, levels);
	for (unsigned l = 0; l < levels; l++) {
		zkp_bincode_put_u64(w, a - 1);
		for (unsigned j = 0; j < a - 1; j++)
			zkp_bincode_put_fr(w, &p->siblings[s0 + l * (a - 1) + j]);
		zkp_bincode_put_u64(w, p->index[l0 + l]);
	}
}

void zkp_bincode_put_merkle_proof(zkp_bincode_wr *w, const zkp_tree_shape *t, const zkp_fr *leaf,
				  const zkp_path *path, const zkp_fr *root)
{
	unsigned tag = zkp_bincode_variant(t);
	zkp_bincode_put_u32(w, tag);
	if (tag == 0) {
		zkp_bincode_put_fr(w, root);
		zkp_bincode_put_fr(w, leaf);
		put_path(w, path, 0, t->base_levels, t->arity[0], 0);
		return;
	}
	unsigned l0 = 0, s0 = 0;
	for (unsigned part = 0; part <= tag; part++) {
		unsigned a = t->arity[part], levels = part ? 1 : t->base_levels;
		put_path(w, path, l0, levels, a, s0);
		l0 += levels;
		s0 += levels * (a - 1);
	}
	zkp_bincode_put_fr(w, root);
	zkp_bincode_put_fr(w, leaf);
}
