/*
 * Decoding key points, in parallel. Each point is decoded without the
 * subgroup check (ec.h's _unchecked decoders: canonical, flags, on the
 * curve), then checked with the endomorphism test, which is the whole cost:
 * about 1,000 Fp multiplications for G1 and 1,600 for G2 (ec.h).
 */
#include <stdatomic.h>
#include <string.h>

#include "groth16_int.h"

size_t g16_enc_bytes(enum g16_enc enc)
{
	return enc == G16_G2_ZCASH || enc == G16_G2_MONT ? ZKP_G2_UNCOMPRESSED_BYTES
							 : ZKP_G1_UNCOMPRESSED_BYTES;
}

/* A 48-byte little-endian Montgomery limb vector, refused when >= p (each
 * field element has exactly one Montgomery representative below p). */
static int fp_from_mont_le(zkp_fp *ret, const uint8_t in[ZKP_FP_BYTES])
{
	for (int i = 0; i < ZKP_FP_LIMBS; i++)
		ret->l[i] = g16_le64(in + 8 * i);
	for (int i = ZKP_FP_LIMBS - 1; i >= 0; i--) {
		if (ret->l[i] < ZKP_FP_MODULUS[i])
			return 0;
		if (ret->l[i] > ZKP_FP_MODULUS[i])
			return ZKP_ERR_NOT_CANONICAL;
	}
	return ZKP_ERR_NOT_CANONICAL; /* equal to p */
}

int g16_decode_one(void *dst, const uint8_t *src, enum g16_enc enc, bool subgroup)
{
	int rc;
	switch (enc) {
	case G16_G1_ZCASH: {
		zkp_g1_affine *p = dst;
		rc = zkp_g1_deserialize_unchecked(p, src);
		if (!rc && subgroup && !zkp_g1_affine_in_subgroup(p))
			rc = ZKP_ERR_NOT_IN_SUBGROUP;
		return rc;
	}
	case G16_G2_ZCASH: {
		zkp_g2_affine *p = dst;
		rc = zkp_g2_deserialize_unchecked(p, src);
		if (!rc && subgroup && !zkp_g2_affine_in_subgroup(p))
			rc = ZKP_ERR_NOT_IN_SUBGROUP;
		return rc;
	}
	case G16_G1_MONT: {
		/* All-zero bytes are infinity, which is also (0, 0) here, and
		 * affine_is_on_curve accepts exactly that for infinity. */
		zkp_g1_affine *p = dst;
		if (fp_from_mont_le(&p->x, src) || fp_from_mont_le(&p->y, src + ZKP_FP_BYTES))
			return ZKP_ERR_NOT_CANONICAL;
		if (!zkp_g1_affine_is_on_curve(p))
			return ZKP_ERR_NOT_ON_CURVE;
		if (subgroup && !zkp_g1_affine_in_subgroup(p))
			return ZKP_ERR_NOT_IN_SUBGROUP;
		return 0;
	}
	case G16_G2_MONT: {
		zkp_g2_affine *p = dst;
		if (fp_from_mont_le(&p->x.c0, src) ||
		    fp_from_mont_le(&p->x.c1, src + ZKP_FP_BYTES) ||
		    fp_from_mont_le(&p->y.c0, src + 2 * ZKP_FP_BYTES) ||
		    fp_from_mont_le(&p->y.c1, src + 3 * ZKP_FP_BYTES))
			return ZKP_ERR_NOT_CANONICAL;
		if (!zkp_g2_affine_is_on_curve(p))
			return ZKP_ERR_NOT_ON_CURVE;
		if (subgroup && !zkp_g2_affine_in_subgroup(p))
			return ZKP_ERR_NOT_IN_SUBGROUP;
		return 0;
	}
	}
	return ZKP_ERR_INVAL;
}

struct decode_job {
	uint8_t *dst;
	const uint8_t *src;
	size_t dst_size, src_size;
	enum g16_enc enc;
	bool subgroup;
	_Atomic size_t first_bad;
};

static void decode_chunk(void *arg, size_t begin, size_t end)
{
	struct decode_job *j = arg;
	/* Once a lower index failed, the rest of the work is moot. */
	if (atomic_load_explicit(&j->first_bad, memory_order_relaxed) < begin)
		return;
	for (size_t i = begin; i < end; i++) {
		if (g16_decode_one(j->dst + i * j->dst_size, j->src + i * j->src_size, j->enc,
				   j->subgroup)) {
			size_t cur = atomic_load(&j->first_bad);
			while (i < cur && !atomic_compare_exchange_weak(&j->first_bad, &cur, i))
				;
			return;
		}
	}
}

int g16_decode_points(void *dst, const uint8_t *src, size_t n, enum g16_enc enc,
		      bool subgroup, zkp_pool *pool, const char *path, const char *section,
		      uint64_t file_offset, zkp_error *err)
{
	struct decode_job j = {
		.dst = dst,
		.src = src,
		.dst_size = (enc == G16_G2_ZCASH || enc == G16_G2_MONT) ? sizeof(zkp_g2_affine)
									 : sizeof(zkp_g1_affine),
		.src_size = g16_enc_bytes(enc),
		.enc = enc,
		.subgroup = subgroup,
	};
	atomic_init(&j.first_bad, SIZE_MAX);
	zkp_pool_run(pool, n, 256, decode_chunk, &j);
	size_t bad = atomic_load(&j.first_bad);
	if (bad == SIZE_MAX)
		return 0;
	/* Decode the culprit again for its code (chunks only record where). */
	zkp_g2_affine tmp;
	int rc = g16_decode_one(&tmp, src + bad * j.src_size, enc, subgroup);
	if (!rc)
		rc = ZKP_ERR_FORMAT;
	return zkp_error_set(err, rc, "%s: section %s: point %zu at offset %llu: %s", path,
			     section, bad, (unsigned long long)(file_offset + bad * j.src_size),
			     zkp_strerror(rc));
}
