/*
 * The 192-byte proof encoding: A || B || C, compressed ZCash points
 * (docs/formats.md, 'Groth16 proofs').
 */
#include <stdio.h>

#include "groth16_int.h"

void zkp_groth16_proof_to_bytes(uint8_t out[ZKP_GROTH16_PROOF_BYTES],
				const zkp_groth16_proof *proof)
{
	zkp_g1_compress(out, &proof->a);
	zkp_g2_compress(out + ZKP_G1_COMPRESSED_BYTES, &proof->b);
	zkp_g1_compress(out + ZKP_G1_COMPRESSED_BYTES + ZKP_G2_COMPRESSED_BYTES, &proof->c);
}

static int decode_proof(zkp_groth16_proof *proof, const uint8_t *in, size_t index,
			bool indexed, zkp_error *err)
{
	char where[48] = "";
	if (indexed)
		snprintf(where, sizeof(where), "proof %zu: ", index);
	const size_t ob = ZKP_G1_COMPRESSED_BYTES, oc = ob + ZKP_G2_COMPRESSED_BYTES;
	int rc = zkp_g1_uncompress(&proof->a, in);
	if (rc)
		return zkp_error_set(err, rc, "%sA (bytes 0-47): %s", where, zkp_strerror(rc));
	rc = zkp_g2_uncompress(&proof->b, in + ob);
	if (rc)
		return zkp_error_set(err, rc, "%sB (bytes 48-143): %s", where, zkp_strerror(rc));
	rc = zkp_g1_uncompress(&proof->c, in + oc);
	if (rc)
		return zkp_error_set(err, rc, "%sC (bytes 144-191): %s", where, zkp_strerror(rc));
	/* bellman refuses the identity in proofs; an honest prover never
	 * produces it (A = alpha + ... + r delta with random r). */
	if (zkp_g1_affine_is_infinity(&proof->a))
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%sA is the point at infinity", where);
	if (zkp_g2_affine_is_infinity(&proof->b))
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%sB is the point at infinity", where);
	if (zkp_g1_affine_is_infinity(&proof->c))
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%sC is the point at infinity", where);
	return 0;
}

int zkp_groth16_proof_from_bytes(zkp_groth16_proof *proof,
				 const uint8_t in[ZKP_GROTH16_PROOF_BYTES], zkp_error *err)
{
	return decode_proof(proof, in, 0, false, err);
}

int zkp_groth16_proofs_from_bytes(zkp_groth16_proof *proofs, size_t m, const uint8_t *in,
				  size_t len, zkp_error *err)
{
	if (m > SIZE_MAX / ZKP_GROTH16_PROOF_BYTES || len != m * ZKP_GROTH16_PROOF_BYTES)
		return zkp_error_set(err, ZKP_ERR_BAD_LENGTH,
				     "%zu bytes of proofs, expected %zu x %d", len, m,
				     ZKP_GROTH16_PROOF_BYTES);
	for (size_t i = 0; i < m; i++) {
		int rc = decode_proof(&proofs[i], in + i * ZKP_GROTH16_PROOF_BYTES, i, true, err);
		if (rc)
			return rc;
	}
	return 0;
}
