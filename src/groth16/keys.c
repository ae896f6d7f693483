/*
 * Key structures: lifecycle, the backing block's layout, shape checks.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "groth16_int.h"
#include "zkpd/mapguard.h"

static const char *const section_names[ZKP_GROTH16_NSECTIONS] = {
	"ic", "h", "l", "a", "b_g1", "b_g2",
};

const char *zkp_groth16_section_name(enum zkp_groth16_section s)
{
	return (unsigned)s < ZKP_GROTH16_NSECTIONS ? section_names[s] : "?";
}

/* ---- verifying key ---- */

void zkp_groth16_vk_init(zkp_groth16_vk *vk)
{
	memset(vk, 0, sizeof(*vk));
}

void zkp_groth16_vk_release(zkp_groth16_vk *vk)
{
	free(vk->ic_alloc);
	zkp_groth16_vk_init(vk);
}

int zkp_groth16_vk_alloc_ic(zkp_groth16_vk *vk, size_t n_ic, zkp_g1_affine **ic)
{
	if (n_ic == 0)
		return ZKP_ERR_INVAL;
	zkp_g1_affine *p = calloc(n_ic, sizeof(*p));
	if (!p)
		return ZKP_ERR_NOMEM;
	free(vk->ic_alloc);
	vk->ic_alloc = p;
	vk->ic = p;
	vk->n_ic = n_ic;
	if (ic)
		*ic = p;
	return 0;
}

int zkp_groth16_vk_copy(zkp_groth16_vk *dst, const zkp_groth16_vk *src)
{
	zkp_groth16_vk v = *src;
	v.ic_alloc = malloc((src->n_ic ? src->n_ic : 1) * sizeof(*src->ic));
	if (!v.ic_alloc)
		return ZKP_ERR_NOMEM;
	if (src->n_ic)
		memcpy(v.ic_alloc, src->ic, src->n_ic * sizeof(*src->ic));
	v.ic = v.ic_alloc;
	*dst = v;
	return 0;
}

bool zkp_groth16_vk_eq(const zkp_groth16_vk *a, const zkp_groth16_vk *b)
{
	if (a->n_ic != b->n_ic || !zkp_g1_affine_eq(&a->alpha_g1, &b->alpha_g1) ||
	    !zkp_g2_affine_eq(&a->beta_g2, &b->beta_g2) ||
	    !zkp_g2_affine_eq(&a->gamma_g2, &b->gamma_g2) ||
	    !zkp_g2_affine_eq(&a->delta_g2, &b->delta_g2))
		return false;
	if (a->has_g1_extras && b->has_g1_extras &&
	    (!zkp_g1_affine_eq(&a->beta_g1, &b->beta_g1) ||
	     !zkp_g1_affine_eq(&a->delta_g1, &b->delta_g1)))
		return false;
	for (size_t i = 0; i < a->n_ic; i++)
		if (!zkp_g1_affine_eq(&a->ic[i], &b->ic[i]))
			return false;
	return true;
}

/* ---- proving key ---- */

void zkp_groth16_pk_init(zkp_groth16_pk *pk)
{
	memset(pk, 0, sizeof(*pk));
}

void zkp_groth16_pk_release(zkp_groth16_pk *pk)
{
	zkp_groth16_vk_release(&pk->vk);
	zkp_mapguard_remove(pk->mem_guard);
	if (pk->mem) {
		if (pk->mem_mapped)
			munmap(pk->mem, pk->mem_bytes);
		else
			free(pk->mem);
	}
	free(pk->source_path);
	zkp_groth16_pk_init(pk);
}

bool zkp_groth16_pk_damaged(const zkp_groth16_pk *pk)
{
	return zkp_mapguard_damaged(pk->mem_guard);
}

static size_t section_elem(enum zkp_groth16_section s)
{
	return s == ZKP_GROTH16_B_G2 ? sizeof(zkp_g2_affine) : sizeof(zkp_g1_affine);
}

size_t g16_layout(size_t off[ZKP_GROTH16_NSECTIONS], const size_t n[ZKP_GROTH16_NSECTIONS])
{
	size_t pos = 0;
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++) {
		off[s] = pos;
		pos += n[s] * section_elem(s);
		pos = (pos + G16_ALIGN - 1) & ~(size_t)(G16_ALIGN - 1);
	}
	return pos;
}

void g16_pk_bind(zkp_groth16_pk *pk, void *mem)
{
	size_t off[ZKP_GROTH16_NSECTIONS];
	g16_layout(off, pk->n);
	uint8_t *m = mem;
	pk->vk.ic = (const zkp_g1_affine *)(m + off[ZKP_GROTH16_IC]);
	pk->vk.n_ic = pk->n[ZKP_GROTH16_IC];
	pk->h = (const zkp_g1_affine *)(m + off[ZKP_GROTH16_H]);
	pk->l = (const zkp_g1_affine *)(m + off[ZKP_GROTH16_L]);
	pk->a = (const zkp_g1_affine *)(m + off[ZKP_GROTH16_A]);
	pk->b_g1 = (const zkp_g1_affine *)(m + off[ZKP_GROTH16_B_G1]);
	pk->b_g2 = (const zkp_g2_affine *)(m + off[ZKP_GROTH16_B_G2]);
}

int g16_pk_alloc_mem(zkp_groth16_pk *pk)
{
	size_t off[ZKP_GROTH16_NSECTIONS];
	size_t bytes = g16_layout(off, pk->n);
	/* The counts come from files: guard the size arithmetic. */
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++)
		if (pk->n[s] > SIZE_MAX / 4 / sizeof(zkp_g2_affine))
			return ZKP_ERR_NOMEM;
	void *mem = aligned_alloc(G16_ALIGN, bytes ? bytes : G16_ALIGN);
	if (!mem)
		return ZKP_ERR_NOMEM;
	memset(mem, 0, bytes);
	pk->mem = mem;
	pk->mem_bytes = bytes;
	pk->mem_mapped = false;
	g16_pk_bind(pk, mem);
	return 0;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

uint64_t g16_domain_for_h(uint64_t n_h)
{
	if (is_pow2(n_h + 1))
		return n_h + 1;
	if (is_pow2(n_h))
		return n_h;
	return 0;
}

int zkp_groth16_pk_alloc(zkp_groth16_pk *pk, const size_t counts[ZKP_GROTH16_NSECTIONS],
			 zkp_groth16_pk_sections *w)
{
	zkp_groth16_pk_init(pk);
	uint64_t domain = g16_domain_for_h(counts[ZKP_GROTH16_H]);
	if (counts[ZKP_GROTH16_IC] == 0 || counts[ZKP_GROTH16_B_G1] != counts[ZKP_GROTH16_B_G2] ||
	    !domain)
		return ZKP_ERR_INVAL;
	memcpy(pk->n, counts, sizeof(pk->n));
	int rc = g16_pk_alloc_mem(pk);
	if (rc)
		return rc;
	pk->h_conv = ZKP_GROTH16_H_BELLMAN;
	pk->ab_layout = ZKP_GROTH16_AB_COMPACT;
	pk->format = ZKP_GROTH16_FMT_NONE;
	pk->n_inputs = counts[ZKP_GROTH16_IC];
	pk->n_aux = counts[ZKP_GROTH16_L];
	pk->domain_size = domain;
	pk->vk.has_g1_extras = true;
	if (w) {
		w->ic = (zkp_g1_affine *)pk->vk.ic;
		w->h = (zkp_g1_affine *)pk->h;
		w->l = (zkp_g1_affine *)pk->l;
		w->a = (zkp_g1_affine *)pk->a;
		w->b_g1 = (zkp_g1_affine *)pk->b_g1;
		w->b_g2 = (zkp_g2_affine *)pk->b_g2;
	}
	return 0;
}

/* ---- shapes ---- */

static uint64_t popcount_bits(const uint64_t *bits, uint64_t nbits)
{
	uint64_t c = 0;
	if (!bits)
		return 0;
	for (uint64_t i = 0; i < nbits / 64; i++)
		c += (uint64_t)__builtin_popcountll(bits[i]);
	if (nbits % 64)
		c += (uint64_t)__builtin_popcountll(bits[nbits / 64] &
						    ((UINT64_C(1) << (nbits % 64)) - 1));
	return c;
}

void zkp_groth16_shape_from_pce(zkp_groth16_shape *ret, const zkp_pce_dims *dims,
				const uint64_t *a_aux, const uint64_t *b_input,
				const uint64_t *b_aux)
{
	ret->n_inputs = dims->n_inputs;
	ret->n_aux = dims->n_aux;
	ret->domain_size = UINT64_C(1) << dims->domain_log2;
	ret->a_aux_ones = popcount_bits(a_aux, dims->n_aux);
	ret->b_input_ones = popcount_bits(b_input, dims->n_inputs);
	ret->b_aux_ones = popcount_bits(b_aux, dims->n_aux);
}

#define NAME_OR_KEY(name) ((name) ? (name) : "key")

int g16_check_counts(const size_t n[ZKP_GROTH16_NSECTIONS], enum zkp_groth16_ab_layout layout,
		     enum zkp_groth16_h_conv conv, const zkp_groth16_shape *s,
		     const char *name, zkp_error *err)
{
	const char *nm = NAME_OR_KEY(name);
	if (n[ZKP_GROTH16_IC] != s->n_inputs)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: section ic has %zu points, the circuit has %llu inputs "
				     "(ONE included)",
				     nm, n[ZKP_GROTH16_IC], (unsigned long long)s->n_inputs);
	bool h_ok = n[ZKP_GROTH16_H] == s->domain_size ||
		    (conv == ZKP_GROTH16_H_BELLMAN && n[ZKP_GROTH16_H] + 1 == s->domain_size);
	if (!h_ok)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: section h has %zu points, the circuit's domain is %llu "
				     "(expected %s%llu)",
				     nm, n[ZKP_GROTH16_H], (unsigned long long)s->domain_size,
				     conv == ZKP_GROTH16_H_BELLMAN ? "domain - 1 = " : "",
				     (unsigned long long)(conv == ZKP_GROTH16_H_BELLMAN
								  ? s->domain_size - 1
								  : s->domain_size));
	if (n[ZKP_GROTH16_L] != s->n_aux)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: section l has %zu points, the circuit has %llu aux "
				     "variables",
				     nm, n[ZKP_GROTH16_L], (unsigned long long)s->n_aux);
	uint64_t want_a, want_b;
	if (layout == ZKP_GROTH16_AB_FULL) {
		want_a = want_b = s->n_inputs + s->n_aux;
		if (n[ZKP_GROTH16_A] != want_a)
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "%s: section a has %zu points, the circuit has %llu "
					     "variables",
					     nm, n[ZKP_GROTH16_A], (unsigned long long)want_a);
	} else {
		want_a = s->n_inputs + s->a_aux_ones;
		want_b = s->b_input_ones + s->b_aux_ones;
		if (n[ZKP_GROTH16_A] != want_a)
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "%s: section a has %zu points, the circuit needs %llu "
					     "(n_inputs %llu + popcount(a_aux) %llu)",
					     nm, n[ZKP_GROTH16_A], (unsigned long long)want_a,
					     (unsigned long long)s->n_inputs,
					     (unsigned long long)s->a_aux_ones);
	}
	for (int sec = ZKP_GROTH16_B_G1; sec <= ZKP_GROTH16_B_G2; sec++) {
		if (n[sec] == want_b)
			continue;
		if (layout == ZKP_GROTH16_AB_FULL)
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "%s: section %s has %zu points, the circuit has %llu "
					     "variables",
					     nm, section_names[sec], n[sec], (unsigned long long)want_b);
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: section %s has %zu points, the circuit needs %llu "
				     "(popcount(b_input) %llu + popcount(b_aux) %llu)",
				     nm, section_names[sec], n[sec], (unsigned long long)want_b,
				     (unsigned long long)s->b_input_ones,
				     (unsigned long long)s->b_aux_ones);
	}
	return 0;
}

int zkp_groth16_pk_check_shape(const zkp_groth16_pk *pk, const zkp_groth16_shape *s,
			       const char *name, zkp_error *err)
{
	return g16_check_counts(pk->n, pk->ab_layout, pk->h_conv, s,
				name ? name : pk->source_path, err);
}
