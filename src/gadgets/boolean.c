/*
 * Booleans, as bellpepper-core's gadgets/boolean.rs builds them. Each
 * allocating primitive adds one aux variable and one row:
 *   alloc      (ONE - v) * v       = 0
 *   xor        (2a) * b            = a + b - c
 *   and        a * b               = c
 *   and_not    a * (ONE - b)       = c
 *   nor        (ONE - a) * (ONE - b) = c
 *   ch         (b - c) * a         = ch - c          (b, c, a as Booleans)
 *   maj        (2bc - b - c) * a   = bc - maj        (maj allocated before bc)
 * Constants fold without rows, and NOT operands are rewritten as in the
 * Rust code, since each rewrite changes the terms of the rows.
 */
#include "zkpd/gadgets.h"

static inline bool witness(const zkp_cs *cs) { return cs->mode == ZKP_CS_WITNESS; }

void zkp_lc_add_bool(zkp_cs *cs, zkp_lc *lc, const zkp_bool *b, const zkp_fr *coeff)
{
	switch (b->kind) {
	case ZKP_BOOL_CONST:
		if (b->value)
			zkp_lc_add(cs, lc, ZKP_CS_ONE, coeff);
		break;
	case ZKP_BOOL_IS:
		zkp_lc_add(cs, lc, b->var, coeff);
		break;
	default:
		zkp_lc_add(cs, lc, ZKP_CS_ONE, coeff);
		zkp_lc_sub(cs, lc, b->var, coeff);
		break;
	}
}

zkp_bool zkp_bool_alloc(zkp_cs *cs, bool value)
{
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1];
	zkp_var v = zkp_cs_alloc_bit(cs, witness(cs) && value);
	if (zkp_cs_rows(cs)) {
		zkp_lc_add(cs, a, ZKP_CS_ONE, NULL);
		zkp_lc_sub(cs, a, v, NULL);
		zkp_lc_add(cs, b, v, NULL);
	}
	zkp_cs_enforce_scratch(cs);
	return (zkp_bool){ .var = v, .kind = ZKP_BOOL_IS, .value = witness(cs) && value };
}

/* The four allocating two-operand primitives on bit variables x and y;
 * nx / ny select ONE - x / ONE - y in A / B. */
static zkp_bool alloc_and(zkp_cs *cs, zkp_var x, bool xv, bool nx, zkp_var y, bool yv, bool ny)
{
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	bool value = (nx ? !xv : xv) && (ny ? !yv : yv);
	zkp_var r = zkp_cs_alloc_bit(cs, value);
	if (zkp_cs_rows(cs)) {
		if (nx) {
			zkp_lc_add(cs, a, ZKP_CS_ONE, NULL);
			zkp_lc_sub(cs, a, x, NULL);
		} else {
			zkp_lc_add(cs, a, x, NULL);
		}
		if (ny) {
			zkp_lc_add(cs, b, ZKP_CS_ONE, NULL);
			zkp_lc_sub(cs, b, y, NULL);
		} else {
			zkp_lc_add(cs, b, y, NULL);
		}
		zkp_lc_add(cs, c, r, NULL);
	}
	zkp_cs_enforce_scratch(cs);
	return (zkp_bool){ .var = r, .kind = ZKP_BOOL_IS, .value = value };
}

static zkp_bool alloc_xor(zkp_cs *cs, zkp_var x, bool xv, zkp_var y, bool yv)
{
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	bool value = xv != yv;
	zkp_var r = zkp_cs_alloc_bit(cs, value);
	if (zkp_cs_rows(cs)) {
		zkp_lc_add(cs, a, x, zkp_cs_pow2(1));
		zkp_lc_add(cs, b, y, NULL);
		zkp_lc_add(cs, c, x, NULL);
		zkp_lc_add(cs, c, y, NULL);
		zkp_lc_sub(cs, c, r, NULL);
	}
	zkp_cs_enforce_scratch(cs);
	return (zkp_bool){ .var = r, .kind = ZKP_BOOL_IS, .value = value };
}

/* The underlying variable's value of a non-constant Boolean. */
static inline bool var_value(zkp_bool b) { return b.kind == ZKP_BOOL_NOT ? !b.value : b.value; }

zkp_bool zkp_bool_xor(zkp_cs *cs, zkp_bool a, zkp_bool b)
{
	if (a.kind == ZKP_BOOL_CONST && !a.value)
		return b;
	if (b.kind == ZKP_BOOL_CONST && !b.value)
		return a;
	if (a.kind == ZKP_BOOL_CONST)
		return zkp_bool_not(b);
	if (b.kind == ZKP_BOOL_CONST)
		return zkp_bool_not(a);
	if (a.kind != b.kind) {
		/* Is/Not: xor(is, the Not's variable), negated; the Is operand
		 * comes first in the row whichever side it was on. */
		zkp_bool is = a.kind == ZKP_BOOL_IS ? a : b, not = a.kind == ZKP_BOOL_IS ? b : a;
		return zkp_bool_not(alloc_xor(cs, is.var, var_value(is), not.var, var_value(not)));
	}
	/* Is/Is, or Not/Not on the underlying variables. */
	return alloc_xor(cs, a.var, var_value(a), b.var, var_value(b));
}

zkp_bool zkp_bool_and(zkp_cs *cs, zkp_bool a, zkp_bool b)
{
	if ((a.kind == ZKP_BOOL_CONST && !a.value) || (b.kind == ZKP_BOOL_CONST && !b.value))
		return zkp_bool_const(false);
	if (a.kind == ZKP_BOOL_CONST)
		return b;
	if (b.kind == ZKP_BOOL_CONST)
		return a;
	if (a.kind == ZKP_BOOL_IS && b.kind == ZKP_BOOL_NOT)
		return alloc_and(cs, a.var, var_value(a), false, b.var, var_value(b), true);
	if (a.kind == ZKP_BOOL_NOT && b.kind == ZKP_BOOL_IS)
		return alloc_and(cs, b.var, var_value(b), false, a.var, var_value(a), true);
	if (a.kind == ZKP_BOOL_NOT)
		return alloc_and(cs, a.var, var_value(a), true, b.var, var_value(b), true);
	return alloc_and(cs, a.var, var_value(a), false, b.var, var_value(b), false);
}

zkp_bool zkp_bool_sha256_ch(zkp_cs *cs, zkp_bool a, zkp_bool b, zkp_bool c)
{
	bool value = (a.value && b.value) != (!a.value && c.value);
	bool ac = a.kind == ZKP_BOOL_CONST, bc = b.kind == ZKP_BOOL_CONST,
	     cc = c.kind == ZKP_BOOL_CONST;

	if (ac && bc && cc)
		return zkp_bool_const(value);
	if (ac && !a.value)
		return c;
	if (bc && !b.value)
		return zkp_bool_and(cs, zkp_bool_not(a), c);
	if (cc && !c.value)
		return zkp_bool_and(cs, a, b);
	if (cc)
		return zkp_bool_not(zkp_bool_and(cs, a, zkp_bool_not(b)));
	if (bc)
		return zkp_bool_not(zkp_bool_and(cs, zkp_bool_not(a), zkp_bool_not(c)));

	zkp_lc *A = &cs->lc[0], *B = &cs->lc[1], *C = &cs->lc[2];
	zkp_var ch = zkp_cs_alloc_bit(cs, value);
	if (zkp_cs_rows(cs)) {
		zkp_fr minus_one;
		zkp_fr_neg(&minus_one, zkp_cs_pow2(0));
		zkp_lc_add_bool(cs, A, &b, NULL);
		zkp_lc_add_bool(cs, A, &c, &minus_one);
		zkp_lc_add_bool(cs, B, &a, NULL);
		zkp_lc_add(cs, C, ch, NULL);
		zkp_lc_add_bool(cs, C, &c, &minus_one);
	}
	zkp_cs_enforce_scratch(cs);
	return (zkp_bool){ .var = ch, .kind = ZKP_BOOL_IS, .value = value };
}

zkp_bool zkp_bool_sha256_maj(zkp_cs *cs, zkp_bool a, zkp_bool b, zkp_bool c)
{
	bool value = ((a.value && b.value) != (a.value && c.value)) != (b.value && c.value);
	bool ac = a.kind == ZKP_BOOL_CONST, bc = b.kind == ZKP_BOOL_CONST,
	     cc = c.kind == ZKP_BOOL_CONST;

	if (ac && bc && cc)
		return zkp_bool_const(value);
	if (ac && !a.value)
		return zkp_bool_and(cs, b, c);
	if (bc && !b.value)
		return zkp_bool_and(cs, a, c);
	if (cc && !c.value)
		return zkp_bool_and(cs, a, b);
	if (cc)
		return zkp_bool_not(zkp_bool_and(cs, zkp_bool_not(a), zkp_bool_not(b)));
	if (bc)
		return zkp_bool_not(zkp_bool_and(cs, zkp_bool_not(a), zkp_bool_not(c)));
	if (ac)
		return zkp_bool_not(zkp_bool_and(cs, zkp_bool_not(b), zkp_bool_not(c)));

	/* maj is allocated before bc, but bc's row comes first. */
	zkp_var maj = zkp_cs_alloc_bit(cs, value);
	zkp_bool and_bc = zkp_bool_and(cs, b, c);
	zkp_lc *A = &cs->lc[0], *B = &cs->lc[1], *C = &cs->lc[2];
	if (zkp_cs_rows(cs)) {
		zkp_fr minus_one;
		zkp_fr_neg(&minus_one, zkp_cs_pow2(0));
		zkp_lc_add_bool(cs, A, &and_bc, NULL);
		zkp_lc_add_bool(cs, A, &and_bc, NULL);
		zkp_lc_add_bool(cs, A, &b, &minus_one);
		zkp_lc_add_bool(cs, A, &c, &minus_one);
		zkp_lc_add_bool(cs, B, &a, NULL);
		zkp_lc_add_bool(cs, C, &and_bc, NULL);
		zkp_lc_sub(cs, C, maj, NULL);
	}
	zkp_cs_enforce_scratch(cs);
	return (zkp_bool){ .var = maj, .kind = ZKP_BOOL_IS, .value = value };
}
