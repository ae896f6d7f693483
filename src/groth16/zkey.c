/*
 * snarkjs .zkey, Groth16 (docs/formats.md, '.zkey (Groth16)'):
 * "zkey", u32 version 1, u32 section count, then sections (u32 id, u64
 * length, body) in any order, found by id. All integers little-endian;
 * points are affine x || y with each coordinate as 48 little-endian bytes of
 * its Montgomery form (x 2^384 mod q), G2 as x.c0 || x.c1 || y.c0 || y.c1,
 * infinity as all zeros: byte for byte our own zkp_g1_affine/zkp_g2_affine
 * on a little-endian host, so decoding is a range check, a curve check and
 * the subgroup check.
 *
 * Sections: 1 protocol, 2 header (primes, N vars, P public, domain n, and
 * alpha_1, beta_1, beta_2, gamma_2, delta_1, delta_2), 3 IC (P + 1), 4
 * coefficients (left in the file, location recorded), 5 A (N), 6 B1 (N),
 * 7 B2 (N, G2), 8 C (N - P - 1: the L query), 9 H (n), 10 contributions
 * (ignored).
 */
#include <stdio.h>
#include <string.h>

#include "groth16_int.h"

#define ZKEY_SECTIONS 10
#define ZKEY_HEADER_BYTES (4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192)

static const uint8_t BLS12_381_Q[48] = {
	/* little-endian */
	0xab, 0xaa, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xb9, 0xff, 0xff, 0x53, 0xb1,
	0xfe, 0xff, 0xab, 0x1e, 0x24, 0xf6, 0xb0, 0xf6, 0xa0, 0xd2, 0x30, 0x67,
	0xbf, 0x12, 0x85, 0xf3, 0x84, 0x4b, 0x77, 0x64, 0xd7, 0xac, 0x4b, 0x43,
	0xb6, 0xa7, 0x1b, 0x4b, 0x9a, 0xe6, 0x7f, 0x39, 0xea, 0x11, 0x01, 0x1a,
};
static const uint8_t BLS12_381_R[32] = {
	0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff,
	0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33,
	0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
};
static const uint8_t BN254_Q[32] = {
	0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71, 0x68,
	0x91, 0x6a, 0x81, 0x97, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8,
	0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30,
};

struct zkey_section {
	bool present;
	uint64_t offset; /* of the body */
	uint64_t len;
};

struct zkey {
	const struct g16_file *f;
	struct zkey_section s[ZKEY_SECTIONS + 1];
	uint32_t n_vars, n_public, domain;
};

bool g16_is_zkey(const struct g16_file *f)
{
	return f->size >= 4 && memcmp(f->data, "zkey", 4) == 0;
}

static void hex_be(char *out, size_t outlen, const uint8_t *le, size_t n)
{
	size_t k = 0;
	for (size_t i = n; i-- > 0 && k + 3 < outlen;)
		k += (size_t)snprintf(out + k, outlen - k, "%02x", le[i]);
	out[k] = 0;
}

static int scan(struct zkey *z, const struct g16_file *f, zkp_error *err)
{
	memset(z, 0, sizeof(*z));
	z->f = f;
	if (f->size < 12 || memcmp(f->data, "zkey", 4) != 0)
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%s: not a zkey file (magic at offset 0)",
				     f->path);
	uint32_t version = g16_le32(f->data + 4);
	if (version != 1)
		return zkp_error_set(err, ZKP_ERR_VERSION,
				     "%s: zkey version %u at offset 4, only 1 is supported", f->path,
				     version);
	uint32_t nsec = g16_le32(f->data + 8);
	uint64_t pos = 12;
	for (uint32_t i = 0; i < nsec; i++) {
		if (f->size - pos < 12)
			return zkp_error_set(err, ZKP_ERR_TRUNCATED,
					     "%s: section header %u of %u at offset %llu runs past the "
					     "end of the file (%zu bytes)",
					     f->path, i, nsec, (unsigned long long)pos, f->size);
		uint32_t id = g16_le32(f->data + pos);
		uint64_t len = g16_le64(f->data + pos + 4);
		uint64_t body = pos + 12;
		if (len > f->size - body)
			return zkp_error_set(err, ZKP_ERR_TRUNCATED,
					     "%s: section %u at offset %llu claims %llu bytes, the file "
					     "has %llu after it",
					     f->path, id, (unsigned long long)pos,
					     (unsigned long long)len,
					     (unsigned long long)(f->size - body));
		if (id >= 1 && id <= ZKEY_SECTIONS) {
			if (z->s[id].present)
				return zkp_error_set(err, ZKP_ERR_FORMAT,
						     "%s: section %u appears twice (again at offset "
						     "%llu)",
						     f->path, id, (unsigned long long)pos);
			z->s[id] = (struct zkey_section){ true, body, len };
		}
		pos = body + len;
	}
	return 0;
}

static int need(const struct zkey *z, unsigned id, uint64_t len, const char *what,
		zkp_error *err)
{
	const struct zkey_section *s = &z->s[id];
	if (!s->present)
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%s: section %u (%s) is missing",
				     z->f->path, id, what);
	if (s->len != len)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: section %u (%s) at offset %llu has %llu bytes, expected "
				     "%llu",
				     z->f->path, id, what, (unsigned long long)s->offset,
				     (unsigned long long)s->len, (unsigned long long)len);
	return 0;
}

/* Sections 1 and 2: protocol, primes, sizes; the vk's fixed points. */
static int read_header(struct zkey *z, zkp_groth16_vk *vk, unsigned flags, zkp_error *err)
{
	const struct g16_file *f = z->f;
	int rc = need(z, 1, 4, "protocol", err);
	if (rc)
		return rc;
	uint32_t proto = g16_le32(f->data + z->s[1].offset);
	if (proto != 1) {
		const char *pname = proto == 2 ? "plonk" : proto == 10 ? "fflonk" : "unknown";
		return zkp_error_set(err, ZKP_ERR_UNSUPPORTED,
				     "%s: section 1: protocol %u (%s), only groth16 (1) is supported",
				     f->path, proto, pname);
	}
	const struct zkey_section *h = &z->s[2];
	if (!h->present)
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%s: section 2 (header) is missing",
				     f->path);
	const uint8_t *p = f->data + h->offset;
	/* The primes come first: a key over another curve is named as such
	 * rather than refused for its header size. */
	if (h->len < 4)
		goto short_header;
	uint32_t n8q = g16_le32(p);
	if (h->len < 4 + (uint64_t)n8q)
		goto short_header;
	if (n8q != 48 || memcmp(p + 4, BLS12_381_Q, 48) != 0) {
		char hex[2 * 64 + 1] = "";
		size_t n = n8q < 64 ? n8q : 64;
		hex_be(hex, sizeof(hex), p + 4, n);
		const char *curve = (n8q == 32 && memcmp(p + 4, BN254_Q, 32) == 0)
					    ? "BN254 (bn128)"
					    : "an unknown curve";
		return zkp_error_set(err, ZKP_ERR_WRONG_PRIME,
				     "%s: section 2 at offset %llu: base field prime 0x%s is %s, "
				     "expected BLS12-381",
				     f->path, (unsigned long long)h->offset, hex, curve);
	}
	rc = need(z, 2, ZKEY_HEADER_BYTES, "header", err);
	if (rc)
		return rc;
	p += 52;
	if (g16_le32(p) != 32 || memcmp(p + 4, BLS12_381_R, 32) != 0)
		return zkp_error_set(err, ZKP_ERR_WRONG_PRIME,
				     "%s: section 2 at offset %llu: scalar field is not BLS12-381's r",
				     f->path, (unsigned long long)(h->offset + 52));
	p += 36;
	z->n_vars = g16_le32(p);
	z->n_public = g16_le32(p + 4);
	z->domain = g16_le32(p + 8);
	p += 12;
	if (z->n_vars < z->n_public + 1 || !z->domain || (z->domain & (z->domain - 1)))
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: section 2: inconsistent sizes (nVars %u, nPublic %u, "
				     "domain %u)",
				     f->path, z->n_vars, z->n_public, z->domain);
	static const struct {
		const char *name;
		bool g2;
	} pts[6] = { { "alpha_1", false }, { "beta_1", false },  { "beta_2", true },
		     { "gamma_2", true },  { "delta_1", false }, { "delta_2", true } };
	void *dst[6] = { &vk->alpha_g1, &vk->beta_g1, &vk->beta_g2,
			 &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2 };
	bool subgroup = !(flags & ZKP_GROTH16_SKIP_SUBGROUP);
	for (int i = 0; i < 6; i++) {
		uint64_t off = (uint64_t)(p - f->data);
		rc = g16_decode_one(dst[i], p, pts[i].g2 ? G16_G2_MONT : G16_G1_MONT, subgroup);
		if (rc)
			return zkp_error_set(err, rc, "%s: section 2: %s at offset %llu: %s",
					     f->path, pts[i].name, (unsigned long long)off,
					     zkp_strerror(rc));
		p += pts[i].g2 ? 192 : 96;
	}
	vk->has_g1_extras = true;
	return 0;
short_header:
	return zkp_error_set(err, ZKP_ERR_FORMAT,
			     "%s: section 2 (header) at offset %llu is too short (%llu bytes)",
			     f->path, (unsigned long long)h->offset, (unsigned long long)h->len);
}

int g16_zkey_parse_vk(zkp_groth16_vk *vk, const struct g16_file *f, unsigned flags,
		      zkp_error *err)
{
	struct zkey z;
	zkp_groth16_vk v;
	zkp_groth16_vk_init(&v);
	zkp_g1_affine *ic;
	int rc = scan(&z, f, err);
	if (!rc)
		rc = read_header(&z, &v, flags, err);
	if (!rc)
		rc = need(&z, 3, ((uint64_t)z.n_public + 1) * 96, "IC", err);
	if (!rc) {
		rc = zkp_groth16_vk_alloc_ic(&v, (size_t)z.n_public + 1, &ic);
		if (rc)
			zkp_error_set(err, rc, "%s: no memory for IC", f->path);
	}
	if (!rc)
		rc = g16_decode_points(ic, f->data + z.s[3].offset, (size_t)z.n_public + 1,
				       G16_G1_MONT, !(flags & ZKP_GROTH16_SKIP_SUBGROUP), NULL,
				       f->path, "3 (IC)", z.s[3].offset, err);
	if (rc)
		zkp_groth16_vk_release(&v);
	else
		*vk = v;
	return rc;
}

int g16_zkey_parse(zkp_groth16_pk *pk, const struct g16_file *f, unsigned flags,
		   zkp_pool *pool, const zkp_groth16_shape *expect, zkp_error *err)
{
	struct zkey z;
	int rc = scan(&z, f, err);
	if (!rc)
		rc = read_header(&z, &pk->vk, flags, err);
	if (rc)
		return rc;

	uint64_t N = z.n_vars, P = z.n_public, n = z.domain;
	size_t counts[ZKP_GROTH16_NSECTIONS];
	counts[ZKP_GROTH16_IC] = (size_t)(P + 1);
	counts[ZKP_GROTH16_H] = (size_t)n;
	counts[ZKP_GROTH16_L] = (size_t)(N - P - 1);
	counts[ZKP_GROTH16_A] = (size_t)N;
	counts[ZKP_GROTH16_B_G1] = (size_t)N;
	counts[ZKP_GROTH16_B_G2] = (size_t)N;
	/* Which zkey section holds each of our sections. */
	static const unsigned id_of[ZKP_GROTH16_NSECTIONS] = { 3, 9, 8, 5, 6, 7 };
	static const char *const what[ZKP_GROTH16_NSECTIONS] = {
		"3 (IC)", "9 (H)", "8 (C)", "5 (A)", "6 (B1)", "7 (B2)",
	};
	static const char *const short_name[ZKP_GROTH16_NSECTIONS] = {
		"IC", "H", "C", "A", "B1", "B2",
	};
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++) {
		rc = need(&z, id_of[s], counts[s] * (s == ZKP_GROTH16_B_G2 ? 192u : 96u),
			  short_name[s], err);
		if (rc)
			return rc;
	}
	if (z.s[4].present) {
		const struct zkey_section *c = &z.s[4];
		uint64_t count = c->len >= 4 ? g16_le32(f->data + c->offset) : 0;
		if (c->len < 4 || c->len != 4 + 44 * count)
			return zkp_error_set(err, ZKP_ERR_FORMAT,
					     "%s: section 4 (coefficients) at offset %llu has %llu "
					     "bytes, which is not 4 + 44 * its count",
					     f->path, (unsigned long long)c->offset,
					     (unsigned long long)c->len);
		pk->zkey_coeffs_offset = c->offset;
		pk->zkey_coeffs_bytes = c->len;
		pk->zkey_coeffs_count = count;
	} else {
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: section 4 (coefficients) is missing", f->path);
	}
	if (expect) {
		rc = g16_check_counts(counts, ZKP_GROTH16_AB_FULL, ZKP_GROTH16_H_SNARKJS, expect,
				      f->path, err);
		if (rc)
			return rc;
	}

	memcpy(pk->n, counts, sizeof(pk->n));
	/* The vk's fixed points were decoded into pk->vk; keep them across the
	 * allocation, which rebinds vk.ic. */
	rc = g16_pk_alloc_mem(pk);
	if (rc)
		return zkp_error_set(err, rc, "%s: no memory for the key's points", f->path);
	pk->format = ZKP_GROTH16_FMT_ZKEY;
	pk->h_conv = ZKP_GROTH16_H_SNARKJS;
	pk->ab_layout = ZKP_GROTH16_AB_FULL;
	pk->n_inputs = P + 1;
	pk->n_aux = N - P - 1;
	pk->domain_size = n;
	bool subgroup = !(flags & ZKP_GROTH16_SKIP_SUBGROUP);
	pk->subgroup_checked = subgroup;
	void *dst[ZKP_GROTH16_NSECTIONS] = {
		(void *)pk->vk.ic, (void *)pk->h, (void *)pk->l,
		(void *)pk->a,     (void *)pk->b_g1, (void *)pk->b_g2,
	};
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++) {
		const struct zkey_section *sec = &z.s[id_of[s]];
		rc = g16_decode_points(dst[s], f->data + sec->offset, counts[s],
				       s == ZKP_GROTH16_B_G2 ? G16_G2_MONT : G16_G1_MONT, subgroup,
				       pool, f->path, what[s], sec->offset, err);
		if (rc)
			return rc;
	}
	return 0;
}
