/*
 * Group-law and scalar-multiplication tests shared by test_g1.c and
 * test_g2.c. The including file defines:
 *   FE, FE_ADD, FE_MUL, FE_SQR, FE_EQ, FE_IS_ZERO, FE_SQRT  field ops
 *   PT, PT_AFF, PT_XYZZ, PN(x), PNS(x)  the group under test (zkp_g1_##x)
 *   GEN            the generator (affine)
 *   rand_fe(FE *)  a uniformly random field element
 *   rhs(FE *, const FE *)  x^3 + b
 * and lists GROUP_TESTS in its cmocka table. Random inputs come from
 * tu_rand64(), so a failure replays with the printed seed.
 */

static const uint64_t R_LIMBS[4] = {
	0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48,
};

/* r - 1, r, r + 1 */
static const uint64_t R_MINUS_1[4] = {
	0xffffffff00000000, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48,
};
static const uint64_t R_PLUS_1[4] = {
	0xffffffff00000002, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48,
};

static bool limbs_geq(const uint64_t *a, const uint64_t *b, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (a[i] != b[i])
			return a[i] > b[i];
	return true;
}

static void rand_scalar(uint64_t k[4])
{
	do {
		for (int i = 0; i < 4; i++)
			k[i] = tu_rand64();
		k[3] &= 0x7fffffffffffffffULL;
	} while (limbs_geq(k, R_LIMBS, 4));
}

/* The obvious reference: right-to-left double-and-add over every bit. */
static void ref_mul(PT *ret, const PT *a, const uint64_t *k, size_t nlimbs)
{
	PT acc, base = *a;
	PN(set_infinity)(&acc);
	for (size_t i = 0; i < nlimbs; i++) {
		for (int b = 0; b < 64; b++) {
			if ((k[i] >> b) & 1)
				PN(add)(&acc, &acc, &base);
			PN(dbl)(&base, &base);
		}
	}
	*ret = acc;
}

/* Same point, other Jacobian representative: (l^2 X, l^3 Y, l Z). */
static void rescale(PT *p)
{
	FE l, l2, l3;
	do
		rand_fe(&l);
	while (FE_IS_ZERO(&l));
	FE_SQR(&l2, &l);
	FE_MUL(&l3, &l2, &l);
	FE_MUL(&p->x, &p->x, &l2);
	FE_MUL(&p->y, &p->y, &l3);
	FE_MUL(&p->z, &p->z, &l);
}

/* [k]G for a random k, by the reference method; optionally returns k. */
static void rand_point_k(PT *p, uint64_t k[4])
{
	PT g;
	PN(from_affine)(&g, &GEN);
	rand_scalar(k);
	ref_mul(p, &g, k, 4);
	rescale(p);
}

static void rand_point(PT *p)
{
	uint64_t k[4];
	rand_point_k(p, k);
}

/* A random point of the whole curve (almost surely outside the subgroup). */
static void rand_curve_point(PT_AFF *p)
{
	FE r;
	do {
		rand_fe(&p->x);
		rhs(&r, &p->x);
	} while (FE_SQRT(&p->y, &r) != 0);
}

static void infinity(PT *p) { PN(set_infinity)(p); }

static void test_generator(void **state)
{
	(void)state;
	PT g, t;
	PN(from_affine)(&g, &GEN);
	assert_true(PN(affine_is_on_curve)(&GEN));
	assert_true(PN(is_on_curve)(&g));
	assert_false(PN(is_infinity)(&g));
	assert_true(PN(in_subgroup)(&g));
	PN(mul)(&t, &g, R_LIMBS, 4);
	assert_true(PN(is_infinity)(&t));
	ref_mul(&t, &g, R_LIMBS, 4);
	assert_true(PN(is_infinity)(&t));
}

static void test_infinity_basics(void **state)
{
	(void)state;
	PT o, p, t;
	PT_AFF oa, pa;
	infinity(&o);
	assert_true(PN(is_infinity)(&o));
	assert_true(PN(is_on_curve)(&o));
	assert_true(PN(in_subgroup)(&o));
	PN(to_affine)(&oa, &o);
	assert_true(PN(affine_is_infinity)(&oa));
	assert_true(FE_IS_ZERO(&oa.x) && FE_IS_ZERO(&oa.y));
	assert_true(PN(affine_is_on_curve)(&oa));
	assert_true(PN(affine_in_subgroup)(&oa));
	PN(from_affine)(&t, &oa);
	assert_true(PN(is_infinity)(&t));
	PN(affine_neg)(&pa, &oa);
	assert_true(PN(affine_is_infinity)(&pa));
	PN(neg)(&t, &o);
	assert_true(PN(is_infinity)(&t));
	PN(dbl)(&t, &o);
	assert_true(PN(is_infinity)(&t));
	PN(add)(&t, &o, &o);
	assert_true(PN(is_infinity)(&t));
	PN(add_affine)(&t, &o, &oa);
	assert_true(PN(is_infinity)(&t));

	rand_point(&p);
	assert_false(PN(eq)(&p, &o));
	assert_false(PN(eq)(&o, &p));
	assert_true(PN(eq)(&o, &o));
	PN(to_affine)(&pa, &p);
	PN(add)(&t, &p, &o);
	assert_true(PN(eq)(&t, &p));
	PN(add)(&t, &o, &p);
	assert_true(PN(eq)(&t, &p));
	PN(add_affine)(&t, &p, &oa);
	assert_true(PN(eq)(&t, &p));
	PN(add_affine)(&t, &o, &pa);
	assert_true(PN(eq)(&t, &p));
	PN(mul)(&t, &o, R_MINUS_1, 4);
	assert_true(PN(is_infinity)(&t));
}

static void test_group_laws(void **state)
{
	(void)state;
	for (int it = 0; it < 8; it++) {
		PT p, q, r, s, t, u, np;
		PT_AFF qa, pa, npa;
		rand_point(&p);
		rand_point(&q);
		rand_point(&r);
		assert_true(PN(is_on_curve)(&p));

		/* associativity, commutativity */
		PN(add)(&s, &p, &q);
		PN(add)(&s, &s, &r);
		PN(add)(&t, &q, &r);
		PN(add)(&t, &p, &t);
		assert_true(PN(eq)(&s, &t));
		assert_true(PN(is_on_curve)(&s));
		PN(add)(&s, &p, &q);
		PN(add)(&t, &q, &p);
		assert_true(PN(eq)(&s, &t));

		/* inverse */
		PN(neg)(&np, &p);
		assert_true(PN(is_on_curve)(&np));
		assert_false(PN(eq)(&np, &p));
		PN(add)(&t, &p, &np);
		assert_true(PN(is_infinity)(&t));
		PN(add)(&t, &np, &p);
		assert_true(PN(is_infinity)(&t));

		/* P + P = dbl(P), also with another representative of P */
		PN(dbl)(&s, &p);
		PN(add)(&t, &p, &p);
		assert_true(PN(eq)(&s, &t));
		u = p;
		rescale(&u);
		assert_true(PN(eq)(&u, &p));
		PN(add)(&t, &p, &u);
		assert_true(PN(eq)(&s, &t));
		PN(neg)(&u, &u);
		PN(add)(&t, &p, &u);
		assert_true(PN(is_infinity)(&t));
		/* 2P + P = P + 2P = 3P = dbl(P) + P by another order */
		PN(add)(&t, &s, &p);
		PN(add)(&u, &p, &s);
		assert_true(PN(eq)(&t, &u));
		PN(dbl)(&u, &s);
		PN(add)(&u, &u, &np);
		assert_true(PN(eq)(&t, &u));

		/* mixed add against full add, including the P = Q / P = -Q
		 * cases */
		PN(to_affine)(&qa, &q);
		PN(to_affine)(&pa, &p);
		assert_true(PN(affine_is_on_curve)(&qa));
		PN(add)(&s, &p, &q);
		PN(add_affine)(&t, &p, &qa);
		assert_true(PN(eq)(&s, &t));
		PN(add_affine)(&t, &p, &pa);
		PN(dbl)(&s, &p);
		assert_true(PN(eq)(&s, &t));
		PN(affine_neg)(&npa, &pa);
		PN(add_affine)(&t, &p, &npa);
		assert_true(PN(is_infinity)(&t));

		/* to_affine/from_affine round trip and affine equality */
		PN(from_affine)(&t, &pa);
		assert_true(PN(eq)(&t, &p));
		PN(to_affine)(&npa, &t);
		assert_true(PN(affine_eq)(&npa, &pa));
		assert_false(PN(affine_eq)(&pa, &qa));

		/* outputs aliasing inputs */
		s = p;
		PN(add)(&s, &s, &q);
		PN(add)(&t, &p, &q);
		assert_true(PN(eq)(&s, &t));
		s = q;
		PN(add)(&s, &p, &s);
		assert_true(PN(eq)(&s, &t));
		s = p;
		PN(add)(&s, &s, &s);
		PN(dbl)(&t, &p);
		assert_true(PN(eq)(&s, &t));
		s = p;
		PN(dbl)(&s, &s);
		assert_true(PN(eq)(&s, &t));
		s = p;
		PN(add_affine)(&s, &s, &qa);
		PN(add)(&t, &p, &q);
		assert_true(PN(eq)(&s, &t));
		s = p;
		PN(neg)(&s, &s);
		assert_true(PN(eq)(&s, &np));
	}
}

static void test_off_curve_detected(void **state)
{
	(void)state;
	PT p;
	PT_AFF a;
	rand_point(&p);
	PN(to_affine)(&a, &p);
	FE_ADD(&p.y, &p.y, &p.x); /* y + x: off the curve (x != 0 almost surely) */
	assert_false(PN(is_on_curve)(&p));
	FE_ADD(&a.y, &a.y, &a.x);
	assert_false(PN(affine_is_on_curve)(&a));
}

static void xyzz_from_jacobian_ref(PT_XYZZ *ret, const PT *a)
{
	/* Only through affine, so the check does not reuse from_xyzz. */
	PT_AFF t;
	PN(to_affine)(&t, a);
	PN(xyzz_from_affine)(ret, &t);
}

static void test_xyzz(void **state)
{
	(void)state;
	/* Accumulate random affine points (and their negatives) in XYZZ and in
	 * Jacobian; compare. */
	enum { N = 12 };
	PT pts[N], acc, t, s;
	PT_AFF aff[N];
	PT_XYZZ xacc, x1, x2, x3;
	for (int i = 0; i < N; i++) {
		rand_point(&pts[i]);
		PN(to_affine)(&aff[i], &pts[i]);
	}
	PN(set_infinity)(&acc);
	PN(xyzz_set_infinity)(&xacc);
	PN(from_xyzz)(&t, &xacc);
	assert_true(PN(is_infinity)(&t));
	for (int i = 0; i < N; i++) {
		if (i % 3 == 2) {
			PN(xyzz_sub_affine)(&xacc, &xacc, &aff[i]);
			PN(neg)(&s, &pts[i]);
			PN(add)(&acc, &acc, &s);
		} else {
			PN(xyzz_add_affine)(&xacc, &xacc, &aff[i]);
			PN(add)(&acc, &acc, &pts[i]);
		}
		PN(from_xyzz)(&t, &xacc);
		assert_true(PN(eq)(&t, &acc));
		assert_true(PN(is_on_curve)(&t));
	}

	/* full XYZZ add and dbl against Jacobian */
	for (int i = 0; i + 1 < N; i += 2) {
		PN(xyzz_from_affine)(&x1, &aff[i]);
		PN(xyzz_add_affine)(&x1, &x1, &aff[i + 1]); /* non-trivial ZZ */
		PN(add)(&s, &pts[i], &pts[i + 1]);
		PN(xyzz_dbl)(&x2, &x1);
		PN(dbl)(&t, &s);
		PN(from_xyzz)(&acc, &x2);
		assert_true(PN(eq)(&acc, &t));
		PN(xyzz_add)(&x3, &x1, &x2); /* 3(P_i + P_i+1) */
		PN(add)(&t, &t, &s);
		PN(from_xyzz)(&acc, &x3);
		assert_true(PN(eq)(&acc, &t));
		/* P + P through add (different representatives) and P + (-P) */
		xyzz_from_jacobian_ref(&x3, &s);
		PN(xyzz_add)(&x3, &x1, &x3);
		PN(from_xyzz)(&acc, &x3);
		PN(dbl)(&t, &s);
		assert_true(PN(eq)(&acc, &t));
		PN(neg)(&t, &s);
		xyzz_from_jacobian_ref(&x3, &t);
		PN(xyzz_add)(&x3, &x1, &x3);
		PN(from_xyzz)(&acc, &x3);
		assert_true(PN(is_infinity)(&acc));
		/* infinity operands of the full add */
		PN(xyzz_set_infinity)(&x3);
		PN(xyzz_add)(&x2, &x1, &x3);
		PN(from_xyzz)(&acc, &x2);
		assert_true(PN(eq)(&acc, &s));
		PN(xyzz_add)(&x2, &x3, &x1);
		PN(from_xyzz)(&acc, &x2);
		assert_true(PN(eq)(&acc, &s));
		PN(xyzz_dbl)(&x2, &x3);
		PN(from_xyzz)(&acc, &x2);
		assert_true(PN(is_infinity)(&acc));
	}

	/* mixed add of a point to itself (mdbl) and to its negative, with
	 * ZZ = 1 and with ZZ != 1 */
	PN(xyzz_from_affine)(&x1, &aff[0]);
	PN(xyzz_add_affine)(&x2, &x1, &aff[0]);
	PN(dbl)(&t, &pts[0]);
	PN(from_xyzz)(&acc, &x2);
	assert_true(PN(eq)(&acc, &t));
	PN(xyzz_sub_affine)(&x2, &x1, &aff[0]);
	PN(from_xyzz)(&acc, &x2);
	assert_true(PN(is_infinity)(&acc));
	PN(xyzz_add_affine)(&x1, &x1, &aff[1]);
	PN(add)(&s, &pts[0], &pts[1]);
	PT_AFF sa;
	PN(to_affine)(&sa, &s);
	PN(xyzz_add_affine)(&x2, &x1, &sa);
	PN(dbl)(&t, &s);
	PN(from_xyzz)(&acc, &x2);
	assert_true(PN(eq)(&acc, &t));
	PN(xyzz_sub_affine)(&x2, &x1, &sa);
	PN(from_xyzz)(&acc, &x2);
	assert_true(PN(is_infinity)(&acc));
	/* affine infinity operand */
	PT_AFF oa;
	memset(&oa, 0, sizeof(oa));
	PN(xyzz_add_affine)(&x2, &x1, &oa);
	PN(from_xyzz)(&acc, &x2);
	assert_true(PN(eq)(&acc, &s));
	PN(xyzz_sub_affine)(&x2, &x1, &oa);
	PN(from_xyzz)(&acc, &x2);
	assert_true(PN(eq)(&acc, &s));
	PN(xyzz_from_affine)(&x2, &oa);
	PN(from_xyzz)(&acc, &x2);
	assert_true(PN(is_infinity)(&acc));
	PN(xyzz_add_affine)(&x2, &x2, &sa);
	PN(from_xyzz)(&acc, &x2);
	assert_true(PN(eq)(&acc, &s));
}

static void test_batch_to_affine(void **state)
{
	(void)state;
	enum { N = 17 };
	PT pts[N];
	PT_AFF batch[N], single;
	FE scratch[N];
	for (int i = 0; i < N; i++) {
		if (i % 5 == 0)
			infinity(&pts[i]);
		else
			rand_point(&pts[i]);
	}
	PNS(to_affine)(batch, pts, N, scratch);
	for (int i = 0; i < N; i++) {
		PN(to_affine)(&single, &pts[i]);
		assert_true(PN(affine_eq)(&batch[i], &single));
		assert_int_equal(PN(affine_is_infinity)(&batch[i]), i % 5 == 0);
	}
	PNS(to_affine)(batch, pts + 1, 1, scratch);
	PN(to_affine)(&single, &pts[1]);
	assert_true(PN(affine_eq)(&batch[0], &single));
	PNS(to_affine)(batch, pts, 1, scratch); /* only infinity */
	assert_true(PN(affine_is_infinity)(&batch[0]));
	PNS(to_affine)(batch, pts, 0, scratch);
}

static void check_mul(const PT *p, const uint64_t *k, size_t n)
{
	PT a, b;
	PN(mul)(&a, p, k, n);
	ref_mul(&b, p, k, n);
	assert_true(PN(eq)(&a, &b));
	/* aliasing */
	a = *p;
	PN(mul)(&a, &a, k, n);
	assert_true(PN(eq)(&a, &b));
}

static void test_mul_vs_reference(void **state)
{
	(void)state;
	PT p, np, t;
	uint64_t k[9];
	rand_point(&p);
	PN(neg)(&np, &p);

	for (int it = 0; it < 6; it++) {
		rand_scalar(k);
		check_mul(&p, k, 4);
	}
	/* short, long and unreduced scalars: the wNAF chunking works on any
	 * length, and the point need not be in the subgroup */
	for (size_t n = 1; n <= 9; n += (n < 3 ? 1 : 3)) {
		for (size_t i = 0; i < n; i++)
			k[i] = tu_rand64();
		check_mul(&p, k, n);
		for (size_t i = 0; i < n; i++)
			k[i] = ~(uint64_t)0; /* carries through every chunk */
		check_mul(&p, k, n);
	}
	memset(k, 0, sizeof(k));
	k[4] = 1; /* 2^256: a chunk boundary, leading zero limbs below */
	check_mul(&p, k, 5);
	k[0] = 0x8000000000000000ULL;
	k[4] = 0x8000000000000000ULL;
	check_mul(&p, k, 9);
	PT_AFF c;
	rand_curve_point(&c);
	PN(from_affine)(&t, &c);
	for (int i = 0; i < 4; i++)
		k[i] = tu_rand64();
	check_mul(&t, k, 4);

	/* 0, 1, 2, r - 1, r, r + 1, and zero-length and zero-padded scalars */
	memset(k, 0, sizeof(k));
	PN(mul)(&t, &p, k, 4);
	assert_true(PN(is_infinity)(&t));
	PN(mul)(&t, &p, k, 0);
	assert_true(PN(is_infinity)(&t));
	k[0] = 1;
	PN(mul)(&t, &p, k, 9);
	assert_true(PN(eq)(&t, &p));
	k[0] = 2;
	PN(mul)(&t, &p, k, 1);
	PT d;
	PN(dbl)(&d, &p);
	assert_true(PN(eq)(&t, &d));
	PN(mul)(&t, &p, R_MINUS_1, 4);
	assert_true(PN(eq)(&t, &np));
	PN(mul)(&t, &p, R_LIMBS, 4);
	assert_true(PN(is_infinity)(&t));
	PN(mul)(&t, &p, R_PLUS_1, 4);
	assert_true(PN(eq)(&t, &p));
	for (uint64_t s = 0; s < 40; s++) {
		/* small scalars against repeated addition */
		PT acc;
		infinity(&acc);
		for (uint64_t i = 0; i < s; i++)
			PN(add)(&acc, &acc, &p);
		PN(mul)(&t, &p, &s, 1);
		assert_true(PN(eq)(&t, &acc));
	}
}

static void fr_from_u64s(zkp_fr *ret, const uint64_t k[4])
{
	assert_int_equal(zkp_fr_from_limbs(ret, k), 0);
}

static void test_mul_fr(void **state)
{
	(void)state;
	PT p, t, u;
	uint64_t a[4], b[4], ab[4];
	zkp_fr fa, fb, fab;
	rand_point(&p);
	for (int it = 0; it < 3; it++) {
		rand_scalar(a);
		rand_scalar(b);
		fr_from_u64s(&fa, a);
		fr_from_u64s(&fb, b);
		zkp_fr_mul(&fab, &fa, &fb);
		zkp_fr_to_limbs(ab, &fab);
		/* [a]([b]P) = [ab mod r]P = [b]([a]P) */
		PN(mul_fr)(&t, &p, &fb);
		PN(mul_fr)(&t, &t, &fa);
		PN(mul)(&u, &p, ab, 4);
		assert_true(PN(eq)(&t, &u));
		PN(mul)(&t, &p, a, 4);
		PN(mul)(&t, &t, b, 4);
		assert_true(PN(eq)(&t, &u));
		/* [a]P + [b]P = [a + b]P */
		zkp_fr_add(&fab, &fa, &fb);
		PN(mul_fr)(&u, &p, &fab);
		PN(mul_fr)(&t, &p, &fa);
		PT v;
		PN(mul_fr)(&v, &p, &fb);
		PN(add)(&t, &t, &v);
		assert_true(PN(eq)(&t, &u));
	}
	zkp_fr z;
	zkp_fr_set_zero(&z);
	PN(mul_fr)(&t, &p, &z);
	assert_true(PN(is_infinity)(&t));
	zkp_fr_set_one(&z);
	PN(mul_fr)(&t, &p, &z);
	assert_true(PN(eq)(&t, &p));
	zkp_fr_neg(&z, &z); /* r - 1 */
	PN(mul_fr)(&t, &p, &z);
	PN(neg)(&u, &p);
	assert_true(PN(eq)(&t, &u));
}

/* The constant-time multiplication equals the wNAF one: random scalars and
 * points (rescaled Jacobian inputs), small scalars through every window
 * value, 0, r - 1, and the point at infinity. */
static void test_mul_fr_ct(void **state)
{
	(void)state;
	PT p, t, u, inf;
	zkp_fr k;
	for (int it = 0; it < 24; it++) {
		uint64_t a[4];
		rand_point(&p);
		if (it & 1)
			rescale(&p);
		rand_scalar(a);
		fr_from_u64s(&k, a);
		PN(mul_fr_ct)(&t, &p, &k);
		PN(mul_fr)(&u, &p, &k);
		assert_true(PN(eq)(&t, &u));
	}
	for (uint64_t v = 0; v < 40; v++) {
		zkp_fr_set_u64(&k, v);
		PN(mul_fr_ct)(&t, &p, &k);
		PN(mul_fr)(&u, &p, &k);
		assert_true(PN(eq)(&t, &u));
		assert_true(PN(is_infinity)(&t) == (v == 0));
	}
	zkp_fr_set_one(&k);
	zkp_fr_neg(&k, &k); /* r - 1 */
	PN(mul_fr_ct)(&t, &p, &k);
	PN(neg)(&u, &p);
	assert_true(PN(eq)(&t, &u));
	PN(set_infinity)(&inf);
	PN(mul_fr_ct)(&t, &inf, &k);
	assert_true(PN(is_infinity)(&t));
	/* the output may alias the input */
	t = p;
	PN(mul_fr_ct)(&t, &t, &k);
	assert_true(PN(eq)(&t, &u));
}

static void test_subgroup_random(void **state)
{
	(void)state;
	for (int it = 0; it < 6; it++) {
		PT p, t;
		PT_AFF a, c;
		rand_point(&p);
		assert_true(PN(in_subgroup)(&p));
		PN(to_affine)(&a, &p);
		assert_true(PN(affine_in_subgroup)(&a));
		PN(mul)(&t, &p, R_LIMBS, 4);
		assert_true(PN(is_infinity)(&t));

		/* random points of the whole curve: outside G1/G2 both by the
		 * fast test and by [r]P != O */
		rand_curve_point(&c);
		assert_true(PN(affine_is_on_curve)(&c));
		assert_false(PN(affine_in_subgroup)(&c));
		PN(from_affine)(&t, &c);
		rescale(&t);
		assert_false(PN(in_subgroup)(&t));
		PN(mul)(&t, &t, R_LIMBS, 4);
		assert_false(PN(is_infinity)(&t));
		/* and a subgroup point plus such a point */
		PN(add_affine)(&t, &p, &c);
		assert_false(PN(in_subgroup)(&t));
	}
}

#define GROUP_TESTS                                                            \
	cmocka_unit_test(test_generator), cmocka_unit_test(test_infinity_basics), \
		cmocka_unit_test(test_group_laws),                             \
		cmocka_unit_test(test_off_curve_detected),                     \
		cmocka_unit_test(test_xyzz),                                   \
		cmocka_unit_test(test_batch_to_affine),                        \
		cmocka_unit_test(test_mul_vs_reference),                       \
		cmocka_unit_test(test_mul_fr),                                 \
		cmocka_unit_test(test_mul_fr_ct),                              \
		cmocka_unit_test(test_subgroup_random)
