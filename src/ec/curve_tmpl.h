/*
 * Group arithmetic on y^2 = x^3 + b (a = 0), written once and instantiated
 * for G1 (over Fp) and G2 (over Fp2).
 *
 * The including file defines, then includes this file:
 *   FE             the field element type (zkp_fp, zkp_fp2)
 *   FE_ADD, FE_SUB, FE_DBL, FE_NEG, FE_MUL, FE_SQR (r, a[, b]) arithmetic
 *   FE_IS_ZERO(a), FE_EQ(a, b), FE_INV(r, a)
 *   FE_ONE         the Montgomery one, an FE lvalue
 *   CURVE_B        the curve constant b in Montgomery form, an FE lvalue
 *   PT, PT_AFF, PT_XYZZ   the Jacobian, affine and XYZZ point types
 *   PN(x), PNS(x)  public names (zkp_g1_##x, zkp_g1s_##x)
 *   RHS            the name of the x^3 + b helper declared in ec_int.h
 * It defines everything in ec.h whose contract is the same for G1 and G2,
 * plus the static mul_by_x_abs() used by the subgroup checks.
 *
 * Operation counts (M multiplication, S squaring in the curve's field) are
 * from the Explicit-Formulas Database (hyperelliptic.org/EFD), "g1p" short
 * Weierstrass a = 0 entries. No addition or doubling formula uses b, so one
 * template serves both curves; b appears only in the curve-membership tests.
 */

static void fe_set_zero(FE *ret) { memset(ret, 0, sizeof(*ret)); }

/* ---- Jacobian and affine basics ---- */

void PN(set_infinity)(PT *ret)
{
	ret->x = FE_ONE;
	ret->y = FE_ONE;
	fe_set_zero(&ret->z);
}

bool PN(is_infinity)(const PT *a) { return FE_IS_ZERO(&a->z); }

bool PN(affine_is_infinity)(const PT_AFF *a)
{
	/* (0, 0) is not on the curve (b != 0), so it cannot be a real point. */
	return FE_IS_ZERO(&a->x) && FE_IS_ZERO(&a->y);
}

void PN(from_affine)(PT *ret, const PT_AFF *a)
{
	if (PN(affine_is_infinity)(a)) {
		PN(set_infinity)(ret);
		return;
	}
	ret->x = a->x;
	ret->y = a->y;
	ret->z = FE_ONE;
}

void PN(to_affine)(PT_AFF *ret, const PT *a)
{
	if (PN(is_infinity)(a)) {
		fe_set_zero(&ret->x);
		fe_set_zero(&ret->y);
		return;
	}
	FE zi, zi2, zi3;
	(void)FE_INV(&zi, &a->z); /* z != 0 */
	FE_SQR(&zi2, &zi);
	FE_MUL(&zi3, &zi2, &zi);
	FE_MUL(&ret->x, &a->x, &zi2);
	FE_MUL(&ret->y, &a->y, &zi3);
}

void PNS(to_affine)(PT_AFF *ret, const PT *a, size_t n, FE *scratch)
{
	/* Montgomery's trick over the Z coordinates: prefix products, one
	 * inversion, then walk back. 3(n-1) M + one inversion, plus 1S + 3M per
	 * point for x = X/Z^2, y = Y/Z^3. Infinity (Z = 0) is skipped in the
	 * products so it cannot spoil the others. */
	if (n == 0)
		return;
	FE acc = FE_ONE;
	for (size_t i = 0; i < n; i++) {
		scratch[i] = acc;
		if (!PN(is_infinity)(&a[i]))
			FE_MUL(&acc, &acc, &a[i].z);
	}
	FE inv;
	(void)FE_INV(&inv, &acc); /* a product of non-zeros */
	for (size_t i = n; i-- > 0;) {
		if (PN(is_infinity)(&a[i])) {
			fe_set_zero(&ret[i].x);
			fe_set_zero(&ret[i].y);
			continue;
		}
		FE zi, zi2, zi3;
		FE_MUL(&zi, &inv, &scratch[i]);
		FE_MUL(&inv, &inv, &a[i].z);
		FE_SQR(&zi2, &zi);
		FE_MUL(&zi3, &zi2, &zi);
		FE_MUL(&ret[i].x, &a[i].x, &zi2);
		FE_MUL(&ret[i].y, &a[i].y, &zi3);
	}
}

bool PN(eq)(const PT *a, const PT *b)
{
	bool ia = PN(is_infinity)(a), ib = PN(is_infinity)(b);
	if (ia || ib)
		return ia && ib;
	/* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3 */
	FE z1z1, z2z2, l, r;
	FE_SQR(&z1z1, &a->z);
	FE_SQR(&z2z2, &b->z);
	FE_MUL(&l, &a->x, &z2z2);
	FE_MUL(&r, &b->x, &z1z1);
	if (!FE_EQ(&l, &r))
		return false;
	FE_MUL(&l, &a->y, &b->z);
	FE_MUL(&l, &l, &z2z2);
	FE_MUL(&r, &b->y, &a->z);
	FE_MUL(&r, &r, &z1z1);
	return FE_EQ(&l, &r);
}

bool PN(affine_eq)(const PT_AFF *a, const PT_AFF *b)
{
	return FE_EQ(&a->x, &b->x) && FE_EQ(&a->y, &b->y);
}

void PN(neg)(PT *ret, const PT *a)
{
	ret->x = a->x;
	FE_NEG(&ret->y, &a->y);
	ret->z = a->z;
}

void PN(affine_neg)(PT_AFF *ret, const PT_AFF *a)
{
	/* -(0, 0) = (0, 0): infinity stays infinity. */
	ret->x = a->x;
	FE_NEG(&ret->y, &a->y);
}

/* ---- Jacobian arithmetic ---- */

void PN(dbl)(PT *ret, const PT *a)
{
	/* dbl-2009-l, 2M + 5S:
	 *   A = X1^2, B = Y1^2, C = B^2, D = 2((X1 + B)^2 - A - C), E = 3A,
	 *   F = E^2, X3 = F - 2D, Y3 = E(D - X3) - 8C, Z3 = 2 Y1 Z1.
	 * Infinity (Z1 = 0) gives Z3 = 0, so it needs no branch; so does a
	 * point of order 2 (Y1 = 0). */
	FE A, B, C, D, E, t;
	PT out;
	FE_SQR(&A, &a->x);
	FE_SQR(&B, &a->y);
	FE_SQR(&C, &B);
	FE_ADD(&D, &a->x, &B);
	FE_SQR(&D, &D);
	FE_SUB(&D, &D, &A);
	FE_SUB(&D, &D, &C);
	FE_DBL(&D, &D);
	FE_DBL(&E, &A);
	FE_ADD(&E, &E, &A);
	FE_MUL(&t, &a->y, &a->z);
	FE_DBL(&out.z, &t);
	FE_SQR(&out.x, &E);
	FE_SUB(&out.x, &out.x, &D);
	FE_SUB(&out.x, &out.x, &D);
	FE_SUB(&t, &D, &out.x);
	FE_MUL(&t, &t, &E);
	FE_DBL(&C, &C);
	FE_DBL(&C, &C);
	FE_DBL(&C, &C);
	FE_SUB(&out.y, &t, &C);
	*ret = out;
}

void PN(add)(PT *ret, const PT *a, const PT *b)
{
	/* add-2007-bl, 11M + 5S:
	 *   Z1Z1 = Z1^2, Z2Z2 = Z2^2, U1 = X1 Z2Z2, U2 = X2 Z1Z1,
	 *   S1 = Y1 Z2 Z2Z2, S2 = Y2 Z1 Z1Z1, H = U2 - U1, I = (2H)^2, J = H I,
	 *   r = 2(S2 - S1), V = U1 I, X3 = r^2 - J - 2V,
	 *   Y3 = r(V - X3) - 2 S1 J, Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H.
	 * H = 0 means equal x: the formula degenerates, so P = Q is sent to
	 * doubling and P = -Q gives infinity. */
	if (PN(is_infinity)(a)) {
		*ret = *b;
		return;
	}
	if (PN(is_infinity)(b)) {
		*ret = *a;
		return;
	}
	FE z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t;
	PT out;
	FE_SQR(&z1z1, &a->z);
	FE_SQR(&z2z2, &b->z);
	FE_MUL(&u1, &a->x, &z2z2);
	FE_MUL(&u2, &b->x, &z1z1);
	FE_MUL(&s1, &a->y, &b->z);
	FE_MUL(&s1, &s1, &z2z2);
	FE_MUL(&s2, &b->y, &a->z);
	FE_MUL(&s2, &s2, &z1z1);
	FE_SUB(&h, &u2, &u1);
	FE_SUB(&r, &s2, &s1);
	if (FE_IS_ZERO(&h)) {
		if (FE_IS_ZERO(&r))
			PN(dbl)(ret, a);
		else
			PN(set_infinity)(ret);
		return;
	}
	FE_DBL(&r, &r);
	FE_DBL(&i, &h);
	FE_SQR(&i, &i);
	FE_MUL(&j, &h, &i);
	FE_MUL(&v, &u1, &i);
	FE_ADD(&t, &a->z, &b->z);
	FE_SQR(&t, &t);
	FE_SUB(&t, &t, &z1z1);
	FE_SUB(&t, &t, &z2z2);
	FE_MUL(&out.z, &t, &h);
	FE_SQR(&out.x, &r);
	FE_SUB(&out.x, &out.x, &j);
	FE_SUB(&out.x, &out.x, &v);
	FE_SUB(&out.x, &out.x, &v);
	FE_SUB(&t, &v, &out.x);
	FE_MUL(&t, &t, &r);
	FE_MUL(&s1, &s1, &j);
	FE_DBL(&s1, &s1);
	FE_SUB(&out.y, &t, &s1);
	*ret = out;
}

void PN(add_affine)(PT *ret, const PT *a, const PT_AFF *b)
{
	/* madd-2007-bl (Z2 = 1), 7M + 4S:
	 *   Z1Z1 = Z1^2, U2 = X2 Z1Z1, S2 = Y2 Z1 Z1Z1, H = U2 - X1, HH = H^2,
	 *   I = 4 HH, J = H I, r = 2(S2 - Y1), V = X1 I, X3 = r^2 - J - 2V,
	 *   Y3 = r(V - X3) - 2 Y1 J, Z3 = (Z1 + H)^2 - Z1Z1 - HH. */
	if (PN(affine_is_infinity)(b)) {
		*ret = *a;
		return;
	}
	if (PN(is_infinity)(a)) {
		PN(from_affine)(ret, b);
		return;
	}
	FE z1z1, u2, s2, h, hh, i, j, r, v, t;
	PT out;
	FE_SQR(&z1z1, &a->z);
	FE_MUL(&u2, &b->x, &z1z1);
	FE_MUL(&s2, &b->y, &a->z);
	FE_MUL(&s2, &s2, &z1z1);
	FE_SUB(&h, &u2, &a->x);
	FE_SUB(&r, &s2, &a->y);
	if (FE_IS_ZERO(&h)) {
		if (FE_IS_ZERO(&r))
			PN(dbl)(ret, a);
		else
			PN(set_infinity)(ret);
		return;
	}
	FE_SQR(&hh, &h);
	FE_DBL(&i, &hh);
	FE_DBL(&i, &i);
	FE_MUL(&j, &h, &i);
	FE_DBL(&r, &r);
	FE_MUL(&v, &a->x, &i);
	FE_ADD(&t, &a->z, &h);
	FE_SQR(&t, &t);
	FE_SUB(&t, &t, &z1z1);
	FE_SUB(&out.z, &t, &hh);
	FE_SQR(&out.x, &r);
	FE_SUB(&out.x, &out.x, &j);
	FE_SUB(&out.x, &out.x, &v);
	FE_SUB(&out.x, &out.x, &v);
	FE_SUB(&t, &v, &out.x);
	FE_MUL(&t, &t, &r);
	FE_MUL(&u2, &a->y, &j);
	FE_DBL(&u2, &u2);
	FE_SUB(&out.y, &t, &u2);
	*ret = out;
}

/* ---- curve membership ---- */

void RHS(FE *ret, const FE *x)
{
	FE t;
	FE_SQR(&t, x);
	FE_MUL(&t, &t, x);
	FE_ADD(ret, &t, &CURVE_B);
}

bool PN(affine_is_on_curve)(const PT_AFF *a)
{
	if (PN(affine_is_infinity)(a))
		return true;
	FE l, r;
	FE_SQR(&l, &a->y);
	RHS(&r, &a->x);
	return FE_EQ(&l, &r);
}

bool PN(is_on_curve)(const PT *a)
{
	if (PN(is_infinity)(a))
		return true;
	/* Y^2 = X^3 + b Z^6 */
	FE l, r, z6;
	FE_SQR(&l, &a->y);
	FE_SQR(&z6, &a->z);
	FE_MUL(&r, &z6, &a->z);
	FE_SQR(&z6, &r);
	FE_MUL(&z6, &z6, &CURVE_B);
	FE_SQR(&r, &a->x);
	FE_MUL(&r, &r, &a->x);
	FE_ADD(&r, &r, &z6);
	return FE_EQ(&l, &r);
}

/* ---- XYZZ ---- */

static bool xyzz_is_infinity(const PT_XYZZ *a) { return FE_IS_ZERO(&a->zz); }

void PN(xyzz_set_infinity)(PT_XYZZ *ret)
{
	ret->x = FE_ONE;
	ret->y = FE_ONE;
	fe_set_zero(&ret->zz);
	fe_set_zero(&ret->zzz);
}

void PN(xyzz_from_affine)(PT_XYZZ *ret, const PT_AFF *a)
{
	if (PN(affine_is_infinity)(a)) {
		PN(xyzz_set_infinity)(ret);
		return;
	}
	ret->x = a->x;
	ret->y = a->y;
	ret->zz = FE_ONE;
	ret->zzz = FE_ONE;
}

void PN(from_xyzz)(PT *ret, const PT_XYZZ *a)
{
	/* With ZZ = z^2, ZZZ = z^3 take Z = ZZZ (= z^3): then X = x Z^2 =
	 * X_xyzz ZZ^2 and Y = y Z^3 = Y_xyzz ZZZ^2. 2M + 2S, no inversion. */
	if (xyzz_is_infinity(a)) {
		PN(set_infinity)(ret);
		return;
	}
	FE t;
	PT out;
	FE_SQR(&t, &a->zz);
	FE_MUL(&out.x, &a->x, &t);
	FE_SQR(&t, &a->zzz);
	FE_MUL(&out.y, &a->y, &t);
	out.z = a->zzz;
	*ret = out;
}

void PN(xyzz_dbl)(PT_XYZZ *ret, const PT_XYZZ *a)
{
	/* dbl-2008-s-1 with a = 0, 6M + 3S:
	 *   U = 2 Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2,
	 *   X3 = M^2 - 2S, Y3 = M(S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1.
	 * Infinity (ZZ1 = 0) stays infinity through ZZ3 = V ZZ1. */
	FE u, v, w, s, m, t;
	PT_XYZZ out;
	FE_DBL(&u, &a->y);
	FE_SQR(&v, &u);
	FE_MUL(&w, &u, &v);
	FE_MUL(&s, &a->x, &v);
	FE_SQR(&m, &a->x);
	FE_DBL(&t, &m);
	FE_ADD(&m, &m, &t);
	FE_MUL(&out.zz, &v, &a->zz);
	FE_MUL(&out.zzz, &w, &a->zzz);
	FE_SQR(&out.x, &m);
	FE_SUB(&out.x, &out.x, &s);
	FE_SUB(&out.x, &out.x, &s);
	FE_SUB(&t, &s, &out.x);
	FE_MUL(&t, &t, &m);
	FE_MUL(&w, &w, &a->y);
	FE_SUB(&out.y, &t, &w);
	*ret = out;
}

/* mdbl-2008-s-1 (ZZ1 = ZZZ1 = 1), 4M + 3S: dbl-2008-s-1 with ZZ3 = V,
 * ZZZ3 = W. */
static void xyzz_dbl_affine(PT_XYZZ *ret, const PT_AFF *a)
{
	FE u, v, w, s, m, t;
	PT_XYZZ out;
	FE_DBL(&u, &a->y);
	FE_SQR(&v, &u);
	FE_MUL(&w, &u, &v);
	FE_MUL(&s, &a->x, &v);
	FE_SQR(&m, &a->x);
	FE_DBL(&t, &m);
	FE_ADD(&m, &m, &t);
	out.zz = v;
	out.zzz = w;
	FE_SQR(&out.x, &m);
	FE_SUB(&out.x, &out.x, &s);
	FE_SUB(&out.x, &out.x, &s);
	FE_SUB(&t, &s, &out.x);
	FE_MUL(&t, &t, &m);
	FE_MUL(&w, &w, &a->y);
	FE_SUB(&out.y, &t, &w);
	*ret = out;
}

void PN(xyzz_add)(PT_XYZZ *ret, const PT_XYZZ *a, const PT_XYZZ *b)
{
	/* add-2008-s, 12M + 2S:
	 *   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1,
	 *   R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP,
	 *   X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - S1 PPP,
	 *   ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP.
	 * P = 0: doubling when R = 0, infinity otherwise. */
	if (xyzz_is_infinity(a)) {
		*ret = *b;
		return;
	}
	if (xyzz_is_infinity(b)) {
		*ret = *a;
		return;
	}
	FE u1, u2, s1, s2, p, r, pp, ppp, q, t;
	PT_XYZZ out;
	FE_MUL(&u1, &a->x, &b->zz);
	FE_MUL(&u2, &b->x, &a->zz);
	FE_MUL(&s1, &a->y, &b->zzz);
	FE_MUL(&s2, &b->y, &a->zzz);
	FE_SUB(&p, &u2, &u1);
	FE_SUB(&r, &s2, &s1);
	if (FE_IS_ZERO(&p)) {
		if (FE_IS_ZERO(&r))
			PN(xyzz_dbl)(ret, a);
		else
			PN(xyzz_set_infinity)(ret);
		return;
	}
	FE_SQR(&pp, &p);
	FE_MUL(&ppp, &p, &pp);
	FE_MUL(&q, &u1, &pp);
	FE_MUL(&out.zz, &a->zz, &b->zz);
	FE_MUL(&out.zz, &out.zz, &pp);
	FE_MUL(&out.zzz, &a->zzz, &b->zzz);
	FE_MUL(&out.zzz, &out.zzz, &ppp);
	FE_SQR(&out.x, &r);
	FE_SUB(&out.x, &out.x, &ppp);
	FE_SUB(&out.x, &out.x, &q);
	FE_SUB(&out.x, &out.x, &q);
	FE_SUB(&t, &q, &out.x);
	FE_MUL(&t, &t, &r);
	FE_MUL(&s1, &s1, &ppp);
	FE_SUB(&out.y, &t, &s1);
	*ret = out;
}

void PN(xyzz_add_affine)(PT_XYZZ *ret, const PT_XYZZ *a, const PT_AFF *b)
{
	/* madd-2008-s (ZZ2 = ZZZ2 = 1), 8M + 2S:
	 *   U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1, PP = P^2,
	 *   PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q,
	 *   Y3 = R(Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
	 * P = 0: mdbl-2008-s-1 of the affine point when R = 0, else infinity. */
	if (PN(affine_is_infinity)(b)) {
		*ret = *a;
		return;
	}
	if (xyzz_is_infinity(a)) {
		PN(xyzz_from_affine)(ret, b);
		return;
	}
	FE u2, s2, p, r, pp, ppp, q, t;
	PT_XYZZ out;
	FE_MUL(&u2, &b->x, &a->zz);
	FE_MUL(&s2, &b->y, &a->zzz);
	FE_SUB(&p, &u2, &a->x);
	FE_SUB(&r, &s2, &a->y);
	if (FE_IS_ZERO(&p)) {
		if (FE_IS_ZERO(&r))
			xyzz_dbl_affine(ret, b);
		else
			PN(xyzz_set_infinity)(ret);
		return;
	}
	FE_SQR(&pp, &p);
	FE_MUL(&ppp, &p, &pp);
	FE_MUL(&q, &a->x, &pp);
	FE_MUL(&out.zz, &a->zz, &pp);
	FE_MUL(&out.zzz, &a->zzz, &ppp);
	FE_SQR(&out.x, &r);
	FE_SUB(&out.x, &out.x, &ppp);
	FE_SUB(&out.x, &out.x, &q);
	FE_SUB(&out.x, &out.x, &q);
	FE_SUB(&t, &q, &out.x);
	FE_MUL(&t, &t, &r);
	FE_MUL(&u2, &a->y, &ppp);
	FE_SUB(&out.y, &t, &u2);
	*ret = out;
}

void PN(xyzz_sub_affine)(PT_XYZZ *ret, const PT_XYZZ *a, const PT_AFF *b)
{
	PT_AFF nb;
	PN(affine_neg)(&nb, b);
	PN(xyzz_add_affine)(ret, a, &nb);
}

/* ---- scalar multiplication ---- */

void PN(mul)(PT *ret, const PT *a, const uint64_t *k, size_t nlimbs)
{
	/* Width-5 wNAF, left to right. The scalar is recoded in chunks of up to
	 * EC_WNAF_CHUNK_LIMBS limbs from the top; each chunk is folded in by
	 * Horner's rule, acc = acc 2^(64 limbs) + chunk, where a chunk's carry
	 * digit (at 2^(64 limbs)) is added before the first doubling. */
	while (nlimbs && !k[nlimbs - 1])
		nlimbs--;
	if (!nlimbs || PN(is_infinity)(a)) {
		PN(set_infinity)(ret);
		return;
	}
	PT tbl[1 << (EC_WNAF_W - 2)], twice, acc, t;
	tbl[0] = *a; /* tbl[i] = (2i + 1) a */
	PN(dbl)(&twice, a);
	for (size_t i = 1; i < sizeof(tbl) / sizeof(tbl[0]); i++)
		PN(add)(&tbl[i], &tbl[i - 1], &twice);

	PN(set_infinity)(&acc);
	bool started = false;
	size_t top = nlimbs;
	size_t lo = top - ((top - 1) % EC_WNAF_CHUNK_LIMBS + 1);
	for (;;) {
		int8_t dig[EC_WNAF_MAX_DIGITS];
		size_t cb = 64 * (top - lo);
		size_t len = ec_wnaf(dig, k + lo, top - lo, EC_WNAF_W);
		for (size_t j = cb + 1; j-- > 0;) {
			if (started && j != cb)
				PN(dbl)(&acc, &acc);
			int d = j < len ? dig[j] : 0;
			if (d > 0) {
				PN(add)(&acc, &acc, &tbl[d >> 1]);
				started = true;
			} else if (d < 0) {
				PN(neg)(&t, &tbl[(-d) >> 1]);
				PN(add)(&acc, &acc, &t);
				started = true;
			}
		}
		if (lo == 0)
			break;
		top = lo;
		lo -= EC_WNAF_CHUNK_LIMBS;
	}
	*ret = acc;
}

void PN(mul_fr)(PT *ret, const PT *a, const zkp_fr *k)
{
	uint64_t l[ZKP_FR_LIMBS];
	zkp_fr_to_limbs(l, k);
	PN(mul)(ret, a, l, ZKP_FR_LIMBS);
}

/* ---- constant-time scalar multiplication ----
 *
 * For secret scalars (the prover's blinding r and s). Nothing the scalar
 * decides is a branch or a memory address: a fixed 4-bit window over all
 * 256 bits (64 windows, 252 doublings and 63 additions whatever k is), the
 * table entry picked by a masked scan of all 16, and the complete addition
 * and doubling formulas of Renes, Costello and Batina (ePrint 2015/1060,
 * algorithms 7 and 9 for a = 0; 12M + 2 m_3b and 6M + 2S + 1 m_3b) in
 * homogeneous projective coordinates, which have no exceptional case: the
 * point at infinity (0 : 1 : 0), equal and opposite points all take the
 * same path. Field arithmetic is branch-free (mont_int.h's masked final
 * subtractions). */

struct PN(proj) {
	FE x, y, z;
};

static void PN(proj_add)(struct PN(proj) *r, const struct PN(proj) *p,
			 const struct PN(proj) *q, const FE *b3)
{
	FE t0, t1, t2, t3, t4, x3, y3, z3;
	FE_MUL(&t0, &p->x, &q->x);
	FE_MUL(&t1, &p->y, &q->y);
	FE_MUL(&t2, &p->z, &q->z);
	FE_ADD(&t3, &p->x, &p->y);
	FE_ADD(&t4, &q->x, &q->y);
	FE_MUL(&t3, &t3, &t4);
	FE_ADD(&t4, &t0, &t1);
	FE_SUB(&t3, &t3, &t4);
	FE_ADD(&t4, &p->y, &p->z);
	FE_ADD(&x3, &q->y, &q->z);
	FE_MUL(&t4, &t4, &x3);
	FE_ADD(&x3, &t1, &t2);
	FE_SUB(&t4, &t4, &x3);
	FE_ADD(&x3, &p->x, &p->z);
	FE_ADD(&y3, &q->x, &q->z);
	FE_MUL(&x3, &x3, &y3);
	FE_ADD(&y3, &t0, &t2);
	FE_SUB(&y3, &x3, &y3);
	FE_ADD(&x3, &t0, &t0);
	FE_ADD(&t0, &x3, &t0);
	FE_MUL(&t2, b3, &t2);
	FE_ADD(&z3, &t1, &t2);
	FE_SUB(&t1, &t1, &t2);
	FE_MUL(&y3, b3, &y3);
	FE_MUL(&x3, &t4, &y3);
	FE_MUL(&t2, &t3, &t1);
	FE_SUB(&x3, &t2, &x3);
	FE_MUL(&y3, &y3, &t0);
	FE_MUL(&t1, &t1, &z3);
	FE_ADD(&y3, &t1, &y3);
	FE_MUL(&t0, &t0, &t3);
	FE_MUL(&z3, &z3, &t4);
	FE_ADD(&z3, &z3, &t0);
	r->x = x3;
	r->y = y3;
	r->z = z3;
}

static void PN(proj_dbl)(struct PN(proj) *r, const struct PN(proj) *p, const FE *b3)
{
	FE t0, t1, t2, x3, y3, z3;
	FE_SQR(&t0, &p->y);
	FE_ADD(&z3, &t0, &t0);
	FE_ADD(&z3, &z3, &z3);
	FE_ADD(&z3, &z3, &z3);
	FE_MUL(&t1, &p->y, &p->z);
	FE_SQR(&t2, &p->z);
	FE_MUL(&t2, b3, &t2);
	FE_MUL(&x3, &t2, &z3);
	FE_ADD(&y3, &t0, &t2);
	FE_MUL(&z3, &t1, &z3);
	FE_ADD(&t1, &t2, &t2);
	FE_ADD(&t2, &t1, &t2);
	FE_SUB(&t0, &t0, &t2);
	FE_MUL(&y3, &t0, &y3);
	FE_ADD(&y3, &x3, &y3);
	FE_MUL(&t1, &p->x, &p->y);
	FE_MUL(&x3, &t0, &t1);
	FE_ADD(&x3, &x3, &x3);
	r->x = x3;
	r->y = y3;
	r->z = z3;
}

/* ret = tbl[idx] for idx < 16, reading every entry. */
static void PN(proj_lookup)(struct PN(proj) *ret, const struct PN(proj) tbl[16], uint64_t idx)
{
	uint64_t *out = (uint64_t *)ret;
	const size_t words = sizeof(*ret) / sizeof(uint64_t);
	memset(ret, 0, sizeof(*ret));
	for (uint64_t j = 0; j < 16; j++) {
		/* all ones when j == idx: (j ^ idx) - 1 borrows only from 0 */
		uint64_t mask = (uint64_t)0 - (((j ^ idx) - 1) >> 63);
		const uint64_t *in = (const uint64_t *)&tbl[j];
		for (size_t w = 0; w < words; w++)
			out[w] |= in[w] & mask;
	}
}

void PN(mul_fr_ct)(PT *ret, const PT *a, const zkp_fr *k)
{
	_Static_assert(sizeof(struct PN(proj)) % sizeof(uint64_t) == 0, "limb-sized point");
	FE b3;
	FE_ADD(&b3, &CURVE_B, &CURVE_B);
	FE_ADD(&b3, &b3, &CURVE_B);
	/* Jacobian (X, Y, Z) is the projective (X Z : Y : Z^3); infinity,
	 * Z = 0, becomes (0 : Y : 0), a valid projective infinity. */
	struct PN(proj) tbl[16], acc, t;
	FE z2;
	FE_SQR(&z2, &a->z);
	FE_MUL(&tbl[1].x, &a->x, &a->z);
	tbl[1].y = a->y;
	FE_MUL(&tbl[1].z, &z2, &a->z);
	fe_set_zero(&tbl[0].x);
	tbl[0].y = FE_ONE;
	fe_set_zero(&tbl[0].z);
	for (int i = 2; i < 16; i++)
		PN(proj_add)(&tbl[i], &tbl[i - 1], &tbl[1], &b3);

	uint64_t l[ZKP_FR_LIMBS];
	zkp_fr_to_limbs(l, k);
	PN(proj_lookup)(&acc, tbl, l[ZKP_FR_LIMBS - 1] >> 60);
	for (int win = 62; win >= 0; win--) {
		for (int d = 0; d < 4; d++)
			PN(proj_dbl)(&acc, &acc, &b3);
		uint64_t idx = (l[win / 16] >> (4 * (win % 16))) & 15;
		PN(proj_lookup)(&t, tbl, idx);
		PN(proj_add)(&acc, &acc, &t, &b3);
	}
	/* back to Jacobian: (X Z, Y Z^2, Z) */
	FE_SQR(&z2, &acc.z);
	FE_MUL(&ret->x, &acc.x, &acc.z);
	FE_MUL(&ret->y, &acc.y, &z2);
	ret->z = acc.z; /* Z = 0 (k = 0, or a at infinity) is infinity, whatever X, Y */
	memset(l, 0, sizeof(l));
}

/* ret = [|x|] a, |x| = 0xd201000000010000 (bits 63, 62, 60, 57, 48, 16):
 * plain double-and-add, 63 doublings and 5 additions, which no window
 * method beats for a weight-6 exponent. */
static void mul_by_x_abs(PT *ret, const PT *a)
{
	PT acc = *a;
	for (int i = 62; i >= 0; i--) {
		PN(dbl)(&acc, &acc);
		if ((ZKP_BLS_X_ABS >> i) & 1)
			PN(add)(&acc, &acc, a);
	}
	*ret = acc;
}
