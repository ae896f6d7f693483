/*
 * Point decoders (include/zkpd/ec.h). Byte 0 picks G1 or G2 (bit 0) and
 * the rest is handed to zkp_g{1,2}_affine_from_bytes, which picks the form
 * by length. When the length is one of the two forms, the unchecked decoder
 * runs too: it may accept only what the checked one refuses as
 * ZKP_ERR_NOT_IN_SUBGROUP, and both give the same point. A point that
 * decodes re-encodes to the same bytes in its form, and its other form
 * decodes back to it.
 */
#include <string.h>

#include "fuzz.h"
#include "zkpd/ec.h"
#include "zkpd/error.h"

static void g1(const uint8_t *in, size_t n)
{
	zkp_g1_affine p, q;
	uint8_t c[ZKP_G1_COMPRESSED_BYTES], u[ZKP_G1_UNCOMPRESSED_BYTES];

	int rc = zkp_g1_affine_from_bytes(&p, in, n);
	if (n != ZKP_G1_COMPRESSED_BYTES && n != ZKP_G1_UNCOMPRESSED_BYTES) {
		FUZZ_CHECK(rc == ZKP_ERR_BAD_LENGTH);
		return;
	}
	int rc_u = n == ZKP_G1_COMPRESSED_BYTES ? zkp_g1_uncompress_unchecked(&q, in)
						 : zkp_g1_deserialize_unchecked(&q, in);
	FUZZ_CHECK(rc_u == rc || (rc == ZKP_ERR_NOT_IN_SUBGROUP && rc_u == 0));
	if (rc_u)
		return;
	FUZZ_CHECK(zkp_g1_affine_is_on_curve(&q));
	if (rc == 0)
		FUZZ_CHECK(zkp_g1_affine_eq(&p, &q) && zkp_g1_affine_in_subgroup(&p));
	zkp_g1_compress(c, &q);
	zkp_g1_serialize(u, &q);
	FUZZ_CHECK(memcmp(n == sizeof(c) ? c : u, in, n) == 0);
	if (n == sizeof(c))
		FUZZ_CHECK(zkp_g1_deserialize_unchecked(&p, u) == 0);
	else
		FUZZ_CHECK(zkp_g1_uncompress_unchecked(&p, c) == 0);
	FUZZ_CHECK(zkp_g1_affine_eq(&p, &q));
}

static void g2(const uint8_t *in, size_t n)
{
	zkp_g2_affine p, q;
	uint8_t c[ZKP_G2_COMPRESSED_BYTES], u[ZKP_G2_UNCOMPRESSED_BYTES];

	int rc = zkp_g2_affine_from_bytes(&p, in, n);
	if (n != ZKP_G2_COMPRESSED_BYTES && n != ZKP_G2_UNCOMPRESSED_BYTES) {
		FUZZ_CHECK(rc == ZKP_ERR_BAD_LENGTH);
		return;
	}
	int rc_u = n == ZKP_G2_COMPRESSED_BYTES ? zkp_g2_uncompress_unchecked(&q, in)
						 : zkp_g2_deserialize_unchecked(&q, in);
	FUZZ_CHECK(rc_u == rc || (rc == ZKP_ERR_NOT_IN_SUBGROUP && rc_u == 0));
	if (rc_u)
		return;
	FUZZ_CHECK(zkp_g2_affine_is_on_curve(&q));
	if (rc == 0)
		FUZZ_CHECK(zkp_g2_affine_eq(&p, &q) && zkp_g2_affine_in_subgroup(&p));
	zkp_g2_compress(c, &q);
	zkp_g2_serialize(u, &q);
	FUZZ_CHECK(memcmp(n == sizeof(c) ? c : u, in, n) == 0);
	if (n == sizeof(c))
		FUZZ_CHECK(zkp_g2_deserialize_unchecked(&p, u) == 0);
	else
		FUZZ_CHECK(zkp_g2_uncompress_unchecked(&p, c) == 0);
	FUZZ_CHECK(zkp_g2_affine_eq(&p, &q));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		g2(data + 1, size - 1);
	else
		g1(data + 1, size - 1);
	return 0;
}
