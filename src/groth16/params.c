/*
 * bellman/bellperson .params and .vk (docs/formats.md, 'bellman .params and
 * .vk'):
 * no header. The vk: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1,
 * delta_g2, then u32 big-endian ic count and ic; a .params continues with
 * h, l, a, b_g1, b_g2, each a u32 big-endian count and its points. All
 * points are uncompressed ZCash encodings. Anything after b_g2 (Zcash's MPC
 * trailer) is ignored, as bellman does.
 */
#include <stdlib.h>
#include <string.h>

#include "groth16_int.h"

#define VK_FIXED_BYTES (3 * ZKP_G1_UNCOMPRESSED_BYTES + 3 * ZKP_G2_UNCOMPRESSED_BYTES)

static const struct {
	const char *name;
	size_t offset;
	bool g2;
} vk_fixed[6] = {
	{ "alpha_g1", 0, false },   { "beta_g1", 96, false },   { "beta_g2", 192, true },
	{ "gamma_g2", 384, true }, { "delta_g1", 576, false }, { "delta_g2", 672, true },
};

static int decode_vk_fixed(zkp_groth16_vk *vk, const uint8_t *data, const char *name,
			   unsigned flags, zkp_error *err)
{
	void *dst[6] = { &vk->alpha_g1, &vk->beta_g1, &vk->beta_g2,
			 &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2 };
	bool subgroup = !(flags & ZKP_GROTH16_SKIP_SUBGROUP);
	for (int i = 0; i < 6; i++) {
		int rc = g16_decode_one(dst[i], data + vk_fixed[i].offset,
					vk_fixed[i].g2 ? G16_G2_ZCASH : G16_G1_ZCASH, subgroup);
		if (rc)
			return zkp_error_set(err, rc, "%s: section vk: %s at offset %zu: %s", name,
					     vk_fixed[i].name, vk_fixed[i].offset, zkp_strerror(rc));
	}
	vk->has_g1_extras = true;
	return 0;
}

/* The counts and point offsets of a .params, walked before anything is
 * decoded so the shape check and the allocation come first. */
struct params_layout {
	size_t n[ZKP_GROTH16_NSECTIONS];
	size_t off[ZKP_GROTH16_NSECTIONS]; /* of the first point */
	size_t end;                        /* end of b_g2 */
};

static int walk_sections(struct params_layout *lay, const uint8_t *data, size_t size,
			 int nsections, const char *name, zkp_error *err)
{
	size_t pos = VK_FIXED_BYTES;
	if (size < VK_FIXED_BYTES)
		return zkp_error_set(err, ZKP_ERR_TRUNCATED,
				     "%s: section vk: file has %zu bytes, the fixed verifying-key "
				     "points need %d",
				     name, size, VK_FIXED_BYTES);
	for (int s = 0; s < nsections; s++) {
		const char *sec = zkp_groth16_section_name(s);
		if (size - pos < 4)
			return zkp_error_set(err, ZKP_ERR_TRUNCATED,
					     "%s: section %s: count at offset %zu runs past the end "
					     "of the file (%zu bytes)",
					     name, sec, pos, size);
		size_t count = g16_be32(data + pos);
		size_t psize = s == ZKP_GROTH16_B_G2 ? ZKP_G2_UNCOMPRESSED_BYTES
						     : ZKP_G1_UNCOMPRESSED_BYTES;
		pos += 4;
		size_t avail = (size - pos) / psize;
		if (count > avail)
			return zkp_error_set(err, ZKP_ERR_TRUNCATED,
					     "%s: section %s: %zu points of %zu bytes from offset %zu, "
					     "but the file (%zu bytes) ends in point %zu at offset %zu",
					     name, sec, count, psize, pos, size, avail,
					     pos + avail * psize);
		lay->n[s] = count;
		lay->off[s] = pos;
		pos += count * psize;
	}
	lay->end = pos;
	if (lay->n[ZKP_GROTH16_IC] == 0)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: section ic: count 0 at offset %d (ic holds at least ONE)",
				     name, VK_FIXED_BYTES);
	return 0;
}

int zkp_groth16_vk_from_bellman(zkp_groth16_vk *vk, const uint8_t *data, size_t len,
				const char *name, unsigned flags, zkp_error *err)
{
	zkp_groth16_vk v;
	zkp_groth16_vk_init(&v);
	zkp_g1_affine *ic;
	struct params_layout lay;
	int rc = walk_sections(&lay, data, len, 1, name, err);
	if (rc)
		goto out;
	rc = decode_vk_fixed(&v, data, name, flags, err);
	if (rc)
		goto out;
	rc = zkp_groth16_vk_alloc_ic(&v, lay.n[ZKP_GROTH16_IC], &ic);
	if (rc) {
		zkp_error_set(err, rc, "%s: no memory for %zu ic points", name,
			      lay.n[ZKP_GROTH16_IC]);
		goto out;
	}
	rc = g16_decode_points(ic, data + lay.off[ZKP_GROTH16_IC], lay.n[ZKP_GROTH16_IC],
			       G16_G1_ZCASH, !(flags & ZKP_GROTH16_SKIP_SUBGROUP), NULL, name, "ic",
			       lay.off[ZKP_GROTH16_IC], err);
out:
	if (rc)
		zkp_groth16_vk_release(&v);
	else
		*vk = v;
	return rc;
}

int g16_params_parse(zkp_groth16_pk *pk, const struct g16_file *f, unsigned flags,
		     zkp_pool *pool, const zkp_groth16_shape *expect, zkp_error *err)
{
	struct params_layout lay;
	int rc = walk_sections(&lay, f->data, f->size, ZKP_GROTH16_NSECTIONS, f->path, err);
	if (rc)
		return rc;
	uint64_t domain = g16_domain_for_h(lay.n[ZKP_GROTH16_H]);
	if (!domain)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: section h: %zu points at offset %zu fit no power-of-two "
				     "domain (bellman writes domain - 1)",
				     f->path, lay.n[ZKP_GROTH16_H], lay.off[ZKP_GROTH16_H] - 4);
	if (lay.n[ZKP_GROTH16_B_G1] != lay.n[ZKP_GROTH16_B_G2])
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: section b_g2 has %zu points at offset %zu, b_g1 has %zu",
				     f->path, lay.n[ZKP_GROTH16_B_G2], lay.off[ZKP_GROTH16_B_G2] - 4,
				     lay.n[ZKP_GROTH16_B_G1]);
	if (expect) {
		rc = g16_check_counts(lay.n, ZKP_GROTH16_AB_COMPACT, ZKP_GROTH16_H_BELLMAN, expect,
				      f->path, err);
		if (rc)
			return rc;
	}

	memcpy(pk->n, lay.n, sizeof(pk->n));
	rc = g16_pk_alloc_mem(pk);
	if (rc)
		return zkp_error_set(err, rc, "%s: no memory for the key's points", f->path);
	pk->format = ZKP_GROTH16_FMT_PARAMS;
	pk->h_conv = ZKP_GROTH16_H_BELLMAN;
	pk->ab_layout = ZKP_GROTH16_AB_COMPACT;
	pk->n_inputs = lay.n[ZKP_GROTH16_IC];
	pk->n_aux = lay.n[ZKP_GROTH16_L];
	pk->domain_size = domain;
	bool subgroup = !(flags & ZKP_GROTH16_SKIP_SUBGROUP);
	pk->subgroup_checked = subgroup;

	rc = decode_vk_fixed(&pk->vk, f->data, f->path, flags, err);
	if (rc)
		return rc;
	void *dst[ZKP_GROTH16_NSECTIONS] = {
		(void *)pk->vk.ic, (void *)pk->h, (void *)pk->l,
		(void *)pk->a,     (void *)pk->b_g1, (void *)pk->b_g2,
	};
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++) {
		rc = g16_decode_points(dst[s], f->data + lay.off[s], lay.n[s],
				       s == ZKP_GROTH16_B_G2 ? G16_G2_ZCASH : G16_G1_ZCASH,
				       subgroup, pool, f->path, zkp_groth16_section_name(s),
				       lay.off[s], err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- writers ---- */

static void put_be32(uint8_t out[4], uint32_t v)
{
	out[0] = (uint8_t)(v >> 24);
	out[1] = (uint8_t)(v >> 16);
	out[2] = (uint8_t)(v >> 8);
	out[3] = (uint8_t)v;
}

static int write_g1s(struct g16_writer *w, const zkp_g1_affine *p, size_t n, zkp_error *err)
{
	uint8_t buf[64 * ZKP_G1_UNCOMPRESSED_BYTES];
	uint8_t cnt[4];
	if (n > UINT32_MAX)
		return zkp_error_set(err, ZKP_ERR_RANGE, "%s: %zu points do not fit a u32 count",
				     w->path, n);
	put_be32(cnt, (uint32_t)n);
	int rc = g16_writer_write(w, cnt, 4, err);
	for (size_t i = 0; !rc && i < n; i += 64) {
		size_t k = n - i < 64 ? n - i : 64;
		for (size_t j = 0; j < k; j++)
			zkp_g1_serialize(buf + j * ZKP_G1_UNCOMPRESSED_BYTES, &p[i + j]);
		rc = g16_writer_write(w, buf, k * ZKP_G1_UNCOMPRESSED_BYTES, err);
	}
	return rc;
}

static int write_g2s(struct g16_writer *w, const zkp_g2_affine *p, size_t n, zkp_error *err)
{
	uint8_t buf[32 * ZKP_G2_UNCOMPRESSED_BYTES];
	uint8_t cnt[4];
	if (n > UINT32_MAX)
		return zkp_error_set(err, ZKP_ERR_RANGE, "%s: %zu points do not fit a u32 count",
				     w->path, n);
	put_be32(cnt, (uint32_t)n);
	int rc = g16_writer_write(w, cnt, 4, err);
	for (size_t i = 0; !rc && i < n; i += 32) {
		size_t k = n - i < 32 ? n - i : 32;
		for (size_t j = 0; j < k; j++)
			zkp_g2_serialize(buf + j * ZKP_G2_UNCOMPRESSED_BYTES, &p[i + j]);
		rc = g16_writer_write(w, buf, k * ZKP_G2_UNCOMPRESSED_BYTES, err);
	}
	return rc;
}

static int write_vk(struct g16_writer *w, const zkp_groth16_vk *vk, zkp_error *err)
{
	uint8_t fixed[VK_FIXED_BYTES];
	zkp_g1_serialize(fixed + 0, &vk->alpha_g1);
	zkp_g1_serialize(fixed + 96, &vk->beta_g1);
	zkp_g2_serialize(fixed + 192, &vk->beta_g2);
	zkp_g2_serialize(fixed + 384, &vk->gamma_g2);
	zkp_g1_serialize(fixed + 576, &vk->delta_g1);
	zkp_g2_serialize(fixed + 672, &vk->delta_g2);
	int rc = g16_writer_write(w, fixed, sizeof(fixed), err);
	return rc ? rc : write_g1s(w, vk->ic, vk->n_ic, err);
}

int zkp_groth16_vk_write_bellman(const zkp_groth16_vk *vk, const char *path, zkp_error *err)
{
	if (!vk->has_g1_extras)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%s: a bellman .vk needs beta_g1 and delta_g1, which this "
				     "key does not have",
				     path);
	struct g16_writer w;
	int rc = g16_writer_open(&w, path, err);
	if (rc)
		return rc;
	rc = write_vk(&w, vk, err);
	if (!rc)
		rc = g16_writer_commit(&w, err);
	g16_writer_abort(&w);
	return rc;
}

int zkp_groth16_pk_write_params(const zkp_groth16_pk *pk, const char *path, zkp_error *err)
{
	if (pk->h_conv != ZKP_GROTH16_H_BELLMAN || pk->ab_layout != ZKP_GROTH16_AB_COMPACT ||
	    !pk->vk.has_g1_extras)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%s: only bellman-convention keys (compact A/B, h over "
				     "tau^i Z(tau)) can be written as .params",
				     path);
	struct g16_writer w;
	int rc = g16_writer_open(&w, path, err);
	if (rc)
		return rc;
	rc = write_vk(&w, &pk->vk, err);
	if (!rc)
		rc = write_g1s(&w, pk->h, pk->n[ZKP_GROTH16_H], err);
	if (!rc)
		rc = write_g1s(&w, pk->l, pk->n[ZKP_GROTH16_L], err);
	if (!rc)
		rc = write_g1s(&w, pk->a, pk->n[ZKP_GROTH16_A], err);
	if (!rc)
		rc = write_g1s(&w, pk->b_g1, pk->n[ZKP_GROTH16_B_G1], err);
	if (!rc)
		rc = write_g2s(&w, pk->b_g2, pk->n[ZKP_GROTH16_B_G2], err);
	if (!rc)
		rc = g16_writer_commit(&w, err);
	g16_writer_abort(&w);
	return rc;
}
