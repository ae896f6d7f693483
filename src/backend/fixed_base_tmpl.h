/*
 * Fixed-base batch multiplication for one group (include/zkpd/fixed_base.h),
 * written once and instantiated for G1 and G2 by src/backend/fixed_base.c.
 *
 * The including file defines, then includes this file:
 *   PT, PT_AFF, FE   the group's Jacobian and affine types, its field
 *   PN(x), PNS(x)    the group's functions (zkp_g1_##x, zkp_g1s_##x)
 *   GEN              the generator (an affine lvalue)
 *   FB_NAME(x)       the public names (zkp_fixed_base_g1##x)
 */

PT_AFF *FB_NAME(_table)(void)
{
	PT_AFF *t = malloc(ZKP_FB_TABLE_POINTS * sizeof(*t));
	PT *j = malloc(ZKP_FB_TABLE_POINTS * sizeof(*j));
	FE *scratch = malloc(ZKP_FB_TABLE_POINTS * sizeof(*scratch));
	if (!t || !j || !scratch) {
		free(t);
		t = NULL;
		goto out;
	}
	PT base;
	PN(from_affine)(&base, &GEN);
	for (size_t w = 0; w < ZKP_FB_WINDOWS; w++) {
		PT *row = j + w * ZKP_FB_DIGITS;
		row[0] = base;
		for (size_t d = 1; d < ZKP_FB_DIGITS; d++)
			PN(add)(&row[d], &row[d - 1], &base);
		for (int k = 0; k < ZKP_FB_BITS; k++)
			PN(dbl)(&base, &base);
	}
	PNS(to_affine)(t, j, ZKP_FB_TABLE_POINTS, scratch);
out:
	free(j);
	free(scratch);
	return t;
}

struct FB_NAME(_ctx) {
	const PT_AFF *table;
	const zkp_fr *scalars;
	PT_AFF *out;
	size_t n;
	atomic_bool failed;
};

/* Chunks [begin, end) of FB_CHUNK points: each point by at most 32 mixed
 * additions into a Jacobian accumulator, then the chunk to affine with one
 * inversion. */
static void FB_NAME(_task)(void *arg, size_t begin, size_t end)
{
	struct FB_NAME(_ctx) *c = arg;
	PT *jac = malloc(FB_CHUNK * sizeof(*jac));
	FE *scr = malloc(FB_CHUNK * sizeof(*scr));
	if (!jac || !scr) {
		atomic_store(&c->failed, true);
		goto out;
	}
	for (size_t c0 = begin * FB_CHUNK; c0 < end * FB_CHUNK && c0 < c->n; c0 += FB_CHUNK) {
		size_t cnt = c->n - c0 < FB_CHUNK ? c->n - c0 : FB_CHUNK;
		for (size_t i = 0; i < cnt; i++) {
			uint64_t k[ZKP_FR_LIMBS];
			zkp_fr_to_limbs(k, &c->scalars[c0 + i]);
			PN(set_infinity)(&jac[i]);
			for (unsigned w = 0; w < ZKP_FB_WINDOWS; w++) {
				unsigned d = fb_digit(k, w);
				if (d)
					PN(add_affine)(&jac[i], &jac[i],
						       &c->table[w * ZKP_FB_DIGITS + d - 1]);
			}
		}
		PNS(to_affine)(c->out + c0, jac, cnt, scr);
	}
out:
	free(jac);
	free(scr);
}

int FB_NAME(s)(PT_AFF *out, const PT_AFF *table, const zkp_fr *scalars, size_t n, zkp_pool *pool)
{
	struct FB_NAME(_ctx) c = { table, scalars, out, n, false };
	if (n)
		zkp_pool_run(pool, (n + FB_CHUNK - 1) / FB_CHUNK, 1, FB_NAME(_task), &c);
	return atomic_load(&c.failed) ? ZKP_ERR_NOMEM : 0;
}
