/*
 * ZCash point encodings (docs/math.md, 'Point encodings'), written once
 * and instantiated for G1 and G2 by encode.c.
 *
 * The including file defines, then includes this file (which undefines them):
 *   FE, FE_BYTES      the coordinate field type and its encoded size
 *   FE_FROM_BE(r, in) decoder of FE_BYTES big-endian bytes; non-zero for a
 *                     value >= p (G2: x.c1 then x.c0)
 *   FE_TO_BE(out, a)  the matching encoder
 *   FE_SQR, FE_EQ, FE_NEG, FE_SQRT, FE_IS_LEXI_LARGEST   field operations
 *   PT_AFF, PN(x)     the affine type and public names (zkp_g1_##x)
 *   LN(x)             names of this file's statics (g1_##x)
 *   RHS               the x^3 + b helper from ec_int.h
 *
 * Byte 0 carries three flags above the coordinate's top bits, which are free
 * because p < 2^381.
 */

#define ENC_COMPRESSED 0x80
#define ENC_INFINITY 0x40
#define ENC_SORT 0x20
#define ENC_FLAGS (ENC_COMPRESSED | ENC_INFINITY | ENC_SORT)

void PN(compress)(uint8_t out[FE_BYTES], const PT_AFF *a)
{
	if (PN(affine_is_infinity)(a)) {
		memset(out, 0, FE_BYTES);
		out[0] = ENC_COMPRESSED | ENC_INFINITY;
		return;
	}
	FE_TO_BE(out, &a->x);
	out[0] |= ENC_COMPRESSED;
	if (FE_IS_LEXI_LARGEST(&a->y))
		out[0] |= ENC_SORT;
}

void PN(serialize)(uint8_t out[2 * FE_BYTES], const PT_AFF *a)
{
	if (PN(affine_is_infinity)(a)) {
		memset(out, 0, 2 * FE_BYTES);
		out[0] = ENC_INFINITY;
		return;
	}
	FE_TO_BE(out, &a->x);
	FE_TO_BE(out + FE_BYTES, &a->y);
}

/* The strict decoder behind all four public ones. Each test below refuses
 * one rule, in the order ec.h documents, so an encoding that breaks several
 * rules reports the first. */
static int LN(decode)(PT_AFF *ret, const uint8_t *in, bool compressed, bool check)
{
	const size_t len = compressed ? FE_BYTES : 2 * FE_BYTES;
	const uint8_t flags = in[0] & ENC_FLAGS;

	if (!(flags & ENC_COMPRESSED) != !compressed)
		return ZKP_ERR_BAD_FLAGS;
	if (flags & ENC_INFINITY) {
		/* Every other bit, the sort flag included, must be zero. */
		uint8_t acc = in[0] & (uint8_t)~(ENC_COMPRESSED | ENC_INFINITY);
		for (size_t i = 1; i < len; i++)
			acc |= in[i];
		if (acc)
			return ZKP_ERR_BAD_INFINITY;
		memset(ret, 0, sizeof(*ret));
		return 0;
	}
	if (!compressed && (flags & ENC_SORT))
		return ZKP_ERR_SORT_FLAG_UNCOMPRESSED;

	PT_AFF p;
	uint8_t buf[FE_BYTES];
	memcpy(buf, in, FE_BYTES);
	buf[0] &= (uint8_t)~ENC_FLAGS;
	if (FE_FROM_BE(&p.x, buf))
		return ZKP_ERR_NOT_CANONICAL;
	if (compressed) {
		FE rhs;
		RHS(&rhs, &p.x);
		if (FE_SQRT(&p.y, &rhs))
			return ZKP_ERR_X_NOT_ON_CURVE;
		/* b != 0 and neither curve has 2-torsion, so y != 0 and the
		 * two roots differ in the sort order. */
		if (FE_IS_LEXI_LARGEST(&p.y) != !!(flags & ENC_SORT))
			FE_NEG(&p.y, &p.y);
	} else {
		if (FE_FROM_BE(&p.y, in + FE_BYTES))
			return ZKP_ERR_NOT_CANONICAL;
		/* Not affine_is_on_curve(): that one accepts (0, 0) as
		 * infinity, which must not slip in as a flagless encoding. */
		FE l, r;
		FE_SQR(&l, &p.y);
		RHS(&r, &p.x);
		if (!FE_EQ(&l, &r))
			return ZKP_ERR_NOT_ON_CURVE;
	}
	if (check && !PN(affine_in_subgroup)(&p))
		return ZKP_ERR_NOT_IN_SUBGROUP;
	*ret = p;
	return 0;
}

int PN(uncompress)(PT_AFF *ret, const uint8_t in[FE_BYTES])
{
	return LN(decode)(ret, in, true, true);
}

int PN(deserialize)(PT_AFF *ret, const uint8_t in[2 * FE_BYTES])
{
	return LN(decode)(ret, in, false, true);
}

int PN(uncompress_unchecked)(PT_AFF *ret, const uint8_t in[FE_BYTES])
{
	return LN(decode)(ret, in, true, false);
}

int PN(deserialize_unchecked)(PT_AFF *ret, const uint8_t in[2 * FE_BYTES])
{
	return LN(decode)(ret, in, false, false);
}

int PN(affine_from_bytes)(PT_AFF *ret, const uint8_t *in, size_t len)
{
	if (len == FE_BYTES)
		return LN(decode)(ret, in, true, true);
	if (len == 2 * FE_BYTES)
		return LN(decode)(ret, in, false, true);
	return ZKP_ERR_BAD_LENGTH;
}

#undef ENC_COMPRESSED
#undef ENC_INFINITY
#undef ENC_SORT
#undef ENC_FLAGS
#undef FE
#undef FE_BYTES
#undef FE_FROM_BE
#undef FE_TO_BE
#undef FE_SQR
#undef FE_EQ
#undef FE_NEG
#undef FE_SQRT
#undef FE_IS_LEXI_LARGEST
#undef PT_AFF
#undef PN
#undef LN
#undef RHS
