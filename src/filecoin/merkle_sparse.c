/*
 * Trees not held whole (merkle_int.h): periodic trees, and sparse trees,
 * the union of a few leaves' paths.
 *
 * A periodic tree keeps one period's full tree and one value per level
 * above it.
 *
 * Sparse trees:
 * Level by level, the nodes known at level l (the given leaves, then the
 * parents hashed from below) are grouped by their parent; each group gets
 * its missing members from the fill function, is stored whole (so a path
 * reads its siblings without asking again) and is hashed into its parent,
 * which is known at level l + 1. Groups are independent, so each level's
 * are spread over the pool.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "merkle_int.h"

/* ---- periodic trees ---- */

int zkp_merkle_periodic_build(zkp_merkle_periodic *t, const zkp_tree_shape *shape,
			      uint64_t nleaves, const zkp_fr *period_leaves, uint64_t period,
			      zkp_error *err)
{
	zkp_tree_shape ps = { .hash = shape->hash, .arity = { shape->arity[0], 0, 0 } };
	uint64_t width = 1;
	int rc;

	t->nlevels = zkp_tree_levels(shape);
	t->period_levels = 0;
	while (width < period && t->period_levels < shape->base_levels) {
		width *= shape->arity[0];
		t->period_levels++;
	}
	if (width != period || period == 0 || nleaves % period)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "a period of %llu leaves: it must be a power of the base arity %u below %u levels that divides %llu",
				     (unsigned long long)period, shape->arity[0], shape->base_levels + 1,
				     (unsigned long long)nleaves);
	ps.base_levels = t->period_levels;
	if ((rc = zkp_merkle_build(&t->period, &ps, period_leaves, period)))
		return zkp_error_set(err, rc, "the tree of one period of %llu leaves: %s",
				     (unsigned long long)period, zkp_strerror(rc));
	t->above[t->period_levels] = *zkp_merkle_root(&t->period);
	for (unsigned l = t->period_levels; l < t->nlevels; l++) {
		zkp_fr in[8];
		unsigned a = zkp_tree_level_arity(shape, l);
		for (unsigned k = 0; k < a; k++)
			in[k] = t->above[l];
		if ((rc = zkp_merkle_hash(shape, &t->above[l + 1], in, a)))
			return zkp_error_set(err, rc, "level %u of a periodic tree: hashing failed",
					     l + 1);
	}
	return 0;
}

void zkp_merkle_periodic_free(zkp_merkle_periodic *t) { zkp_merkle_free(&t->period); }

const zkp_fr *zkp_merkle_periodic_root(const zkp_merkle_periodic *t)
{
	return &t->above[t->nlevels];
}

int zkp_merkle_periodic_fill(void *ctx, unsigned level, uint64_t index, zkp_fr *out,
			     zkp_error *err)
{
	const zkp_merkle_periodic *t = ctx;
	(void)err;
	if (level < t->period_levels)
		*out = t->period.level[level][index % t->period.count[level]];
	else
		*out = t->above[level];
	return 0;
}

/* ---- sparse trees ---- */

struct given {
	uint64_t idx;
	zkp_fr v;
};

static int by_index(const void *a, const void *b)
{
	uint64_t x = ((const struct given *)a)->idx, y = ((const struct given *)b)->idx;
	return x < y ? -1 : x > y;
}

/* One level: groups g of the known nodes known_idx[first[g] .. first[g+1]). */
struct level {
	const zkp_tree_shape *shape;
	unsigned level, arity;
	const uint64_t *known_idx;
	const zkp_fr *known;
	const uint64_t *first; /* ngroups + 1 */
	const uint64_t *group; /* each group's index one level up */
	uint64_t *idx;         /* ngroups * arity: the groups, whole */
	zkp_fr *val;
	zkp_fr *parent;        /* ngroups */
	zkp_merkle_fill_fn fill;
	void *ctx;
	pthread_mutex_t lock;
	int rc;
	zkp_error *err;
};

static void level_fail(struct level *lv, int rc, const zkp_error *e)
{
	pthread_mutex_lock(&lv->lock);
	if (!lv->rc) {
		lv->rc = rc;
		if (lv->err)
			*lv->err = *e;
	}
	pthread_mutex_unlock(&lv->lock);
}

static void level_chunk(void *arg, size_t begin, size_t end)
{
	struct level *lv = arg;
	const unsigned a = lv->arity;
	for (size_t g = begin; g < end; g++) {
		uint64_t k = lv->first[g];
		uint64_t *idx = &lv->idx[g * a];
		zkp_fr *val = &lv->val[g * a];
		for (unsigned c = 0; c < a; c++) {
			idx[c] = lv->group[g] * a + c;
			if (k < lv->first[g + 1] && lv->known_idx[k] == idx[c]) {
				val[c] = lv->known[k++];
				continue;
			}
			zkp_error e = { 0 };
			int rc = lv->fill(lv->ctx, lv->level, idx[c], &val[c], &e);
			if (rc) {
				level_fail(lv, rc, &e);
				return;
			}
		}
		int rc = zkp_merkle_hash(lv->shape, &lv->parent[g], val, a);
		if (rc) {
			zkp_error e = { 0 };
			zkp_error_set(&e, rc, "level %u, node %llu: hashing its %u children failed",
				      lv->level + 1, (unsigned long long)lv->group[g], a);
			level_fail(lv, rc, &e);
			return;
		}
	}
}

/* Level l's groups from its known nodes (increasing, distinct): their
 * parents and where each group's known nodes start. */
static int make_groups(uint64_t **group, uint64_t **first, uint64_t *ngroups,
		       const uint64_t *known, uint64_t n, unsigned a)
{
	uint64_t ng = 0;
	for (uint64_t i = 0; i < n; i++)
		ng += i == 0 || known[i] / a != known[i - 1] / a;
	*group = malloc(ng * sizeof(uint64_t));
	*first = malloc((ng + 1) * sizeof(uint64_t));
	if (!*group || !*first)
		return ZKP_ERR_NOMEM;
	ng = 0;
	for (uint64_t i = 0; i < n; i++)
		if (i == 0 || known[i] / a != known[i - 1] / a) {
			(*group)[ng] = known[i] / a;
			(*first)[ng++] = i;
		}
	(*first)[ng] = n;
	*ngroups = ng;
	return 0;
}

/* The given leaves sorted, duplicates merged, into idx/val (n entries). */
static int sort_given(uint64_t **idx, zkp_fr **val, uint64_t *count, const uint64_t *in_idx,
		      const zkp_fr *in, size_t n, uint64_t nleaves, zkp_error *err)
{
	struct given *g = malloc(n * sizeof(*g));
	int rc = 0;
	*idx = malloc(n * sizeof(uint64_t));
	*val = malloc(n * sizeof(zkp_fr));
	if (!g || !*idx || !*val) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %zu leaves", n);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (in_idx[i] >= nleaves) {
			rc = zkp_error_set(err, ZKP_ERR_INVAL, "leaf %llu: the tree has %llu",
					   (unsigned long long)in_idx[i], (unsigned long long)nleaves);
			goto out;
		}
		g[i].idx = in_idx[i];
		g[i].v = in[i];
	}
	qsort(g, n, sizeof(*g), by_index);
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && (*idx)[m - 1] == g[i].idx) {
			if (!zkp_fr_eq(&(*val)[m - 1], &g[i].v)) {
				rc = zkp_error_set(err, ZKP_ERR_INVAL,
						   "leaf %llu is given twice with different values",
						   (unsigned long long)g[i].idx);
				goto out;
			}
			continue;
		}
		(*idx)[m] = g[i].idx;
		(*val)[m++] = g[i].v;
	}
	*count = m;
out:
	free(g);
	return rc;
}

int zkp_merkle_sparse_build(zkp_merkle_sparse *t, const zkp_tree_shape *shape, uint64_t nleaves,
			    const uint64_t *idx, const zkp_fr *leaves, size_t n,
			    zkp_merkle_fill_fn fill, void *ctx, zkp_pool *pool, zkp_error *err)
{
	uint64_t *known_idx = NULL, *group = NULL, *first = NULL, nknown = 0, width = 1;
	zkp_fr *known = NULL;
	int rc;

	t->shape = *shape;
	t->nlevels = zkp_tree_levels(shape);
	t->leaves = nleaves;
	for (unsigned l = 0; l < t->nlevels; l++)
		width *= zkp_tree_level_arity(shape, l);
	if (n == 0 || width != nleaves || t->nlevels > ZKP_PATH_MAX_LEVELS)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "a sparse tree of %llu leaves over %zu given: its shape holds %llu",
				     (unsigned long long)nleaves, n, (unsigned long long)width);
	if ((rc = sort_given(&known_idx, &known, &nknown, idx, leaves, n, nleaves, err)))
		goto out;

	for (unsigned l = 0; l < t->nlevels; l++) {
		unsigned a = zkp_tree_level_arity(shape, l);
		uint64_t ng;
		if ((rc = make_groups(&group, &first, &ng, known_idx, nknown, a)))
			goto nomem;
		t->index[l] = malloc(ng * a * sizeof(uint64_t));
		t->value[l] = malloc(ng * a * sizeof(zkp_fr));
		zkp_fr *parent = malloc(ng * sizeof(zkp_fr));
		if (!t->index[l] || !t->value[l] || !parent) {
			free(parent);
			rc = ZKP_ERR_NOMEM;
			goto nomem;
		}
		t->count[l] = ng * a;
		struct level lv = { .shape = shape, .level = l, .arity = a, .known_idx = known_idx,
				    .known = known, .first = first, .group = group,
				    .idx = t->index[l], .val = t->value[l], .parent = parent,
				    .fill = fill, .ctx = ctx, .err = err };
		pthread_mutex_init(&lv.lock, NULL);
		zkp_pool_run(pool, (size_t)ng, 0, level_chunk, &lv);
		pthread_mutex_destroy(&lv.lock);
		free(known_idx);
		free(known);
		free(first);
		first = NULL;
		known_idx = group;
		known = parent;
		nknown = ng;
		group = NULL;
		if ((rc = lv.rc))
			goto out;
	}
	t->count[t->nlevels] = nknown; /* 1: the root */
	t->index[t->nlevels] = known_idx;
	t->value[t->nlevels] = known;
	known_idx = NULL;
	known = NULL;
	goto out;
nomem:
	zkp_error_set(err, rc, "no memory for a sparse tree of %zu leaves", n);
out:
	free(known_idx);
	free(known);
	free(group);
	free(first);
	return rc;
}

void zkp_merkle_sparse_free(zkp_merkle_sparse *t)
{
	for (unsigned l = 0; l <= ZKP_PATH_MAX_LEVELS; l++) {
		free(t->index[l]);
		free(t->value[l]);
		t->index[l] = NULL;
		t->value[l] = NULL;
		t->count[l] = 0;
	}
}

const zkp_fr *zkp_merkle_sparse_root(const zkp_merkle_sparse *t) { return &t->value[t->nlevels][0]; }

/* Where index sits in level l, or count[l]. */
static uint64_t find(const zkp_merkle_sparse *t, unsigned l, uint64_t index)
{
	uint64_t lo = 0, hi = t->count[l];
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (t->index[l][mid] < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->count[l] && t->index[l][lo] == index ? lo : t->count[l];
}

const zkp_fr *zkp_merkle_sparse_node(const zkp_merkle_sparse *t, unsigned level, uint64_t index)
{
	if (level > t->nlevels)
		return NULL;
	uint64_t at = find(t, level, index);
	return at < t->count[level] ? &t->value[level][at] : NULL;
}

int zkp_merkle_sparse_path(const zkp_merkle_sparse *t, uint64_t leaf, zkp_path *p)
{
	unsigned s = 0;
	memset(p, 0, sizeof(*p));
	for (unsigned l = 0; l < t->nlevels; l++) {
		unsigned a = zkp_tree_level_arity(&t->shape, l), pos = (unsigned)(leaf % a);
		uint64_t group = leaf / a, at = find(t, l, group * a);
		if (at == t->count[l])
			return ZKP_ERR_INVAL;
		/* groups are stored whole, in order */
		p->index[l] = (uint8_t)pos;
		for (unsigned k = 0; k < a; k++)
			if (k != pos)
				p->siblings[s++] = t->value[l][at + k];
		leaf = group;
	}
	return 0;
}
