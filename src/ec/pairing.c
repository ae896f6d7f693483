/*
 * Optimal ate pairing on BLS12-381 (docs/math.md, 'Pairing').
 *
 * Miller loop: f_{|x|,Q}(P) over the bits of |x| = 0xd201000000010000 below
 * the top one (63 doublings, 5 additions), then conjugation because x < 0
 * (1/f and conj(f) differ by a factor in Fp6 that the final exponentiation
 * removes). The point T = [k]Q runs on the twist E': y^2 = x^3 + 4 xi in
 * homogeneous projective coordinates (x = X/Z, y = Y/Z). Affine steps would
 * each need a field inversion, which costs about 570 Fp multiplications here
 * (Fermat); batch inversion across pairs only amortises that for many pairs,
 * while the projective steps below cost 21 (doubling) and 37 (addition) Fp
 * multiplications with no inversion at all. Formulas: Costello, Lange,
 * Naehrig, "Faster pairing computations on curves with high-degree twists",
 * PKC 2010, in the form of Aranha, Karabina, Longa, Gebotys, Lopez, "Faster
 * explicit formulas for computing pairings over ordinary curves",
 * Eurocrypt 2011, eqs. (10) and (13) for a = 0, re-derived below.
 *
 * Lines: on this M-type twist the line through T with slope lambda, times
 * w^3, evaluated at P is (lambda x_T - y_T) + (-lambda x_P) v + y_P v w
 * (docs/math.md, 'Pairing'), so only the Fp2 slots c0.c0, c0.c1, c1.c1
 * are non-zero (zkp_fp12_mul_by_014). Any factor in Fp2 may scale a line,
 * since the final exponentiation maps Fp6 (and so Fp2) to 1. Each line is
 * kept as three Fp2 coefficients (l0, l1, l2) that do not depend on P:
 *   line(P) = l0 + (l1 x_P) v + (l2 y_P) v w,
 * which is what zkp_g2_prepare stores; evaluating costs 4 Fp multiplications.
 *
 * Cost for one pair, in Fp multiplications (Fp2 mul 3, Fp2 sqr 2):
 *   62 Fp12 squarings x 36 (the first is skipped: f = 1)       2232
 *   67 sparse line multiplications x 39 (the first line is f)  2613
 *   63 doubling steps x 21 + 5 addition steps x 37              1508
 *   68 line evaluations x 4                                       272
 *   total                                                        6625
 * Each further live pair adds 63 x 21 + 5 x 37 + 68 x (39 + 4) = 4432, each
 * prepared one 68 x (39 + 4) = 2924.
 *
 * Final exponentiation:
 *   easy part: Fp12 inversion (97 + one Fp inversion), 2 multiplications,
 *   one p^2-Frobenius (21)                                        226
 *   hard part: 5 exponentiations by |x| x 1404 (63 cyclotomic
 *   squarings x 18 + 5 multiplications x 54), 7 multiplications,
 *   1 cyclotomic squaring, 2 Frobenius maps                      7458
 *   total                                                        7684
 */
#include <string.h>

#include "zkpd/pairing.h"

/* Homogeneous projective point on E'; (X : Y : Z) is (X/Z, Y/Z). */
struct proj {
	zkp_fp2 x, y, z;
};

/* ret = 3a */
static void fp2_triple(zkp_fp2 *ret, const zkp_fp2 *a)
{
	zkp_fp2 t;
	zkp_fp2_dbl(&t, a);
	zkp_fp2_add(ret, &t, a);
}

/*
 * T <- 2T, and the tangent line at T.
 *
 * Tangent slope lambda = 3x^2/(2y) = 3X^2/(2YZ). The line above times
 * 2YZ^2 has l0 = 3X^3 - 2Y^2 Z, and the curve equation Y^2 Z = X^3 + b' Z^3
 * (b' = 4 xi) turns 3X^3 into 3Y^2 Z - 3b' Z^3, so after dividing by Z
 * (and negating, both Fp2 factors):
 *   l0 = 3b' Z^2 - Y^2,  l1 = 3X^2,  l2 = -2YZ.
 * Doubling (ALGLK eq. 10, scaled by 4 to avoid halving, which projective
 * coordinates allow):
 *   X3 = 2XY (Y^2 - 9b' Z^2)
 *   Y3 = (Y^2 + 9b' Z^2)^2 - 108 b'^2 Z^4
 *   Z3 = 8 Y^3 Z
 * 6 Fp2 squarings + 3 multiplications = 21 Fp multiplications.
 */
static void dbl_step(zkp_fp2 ell[3], struct proj *t)
{
	zkp_fp2 xx, b, c, e, f, h, s;
	zkp_fp2_sqr(&xx, &t->x);           /* X^2 */
	zkp_fp2_sqr(&b, &t->y);            /* B = Y^2 */
	zkp_fp2_sqr(&c, &t->z);            /* C = Z^2 */
	zkp_fp2_mul_by_xi(&e, &c);         /* xi Z^2 */
	zkp_fp2_dbl(&e, &e);
	zkp_fp2_dbl(&e, &e);
	fp2_triple(&e, &e);                /* E = 3b' Z^2 = 12 xi Z^2 */
	fp2_triple(&f, &e);                /* F = 9b' Z^2 */
	zkp_fp2_add(&h, &t->y, &t->z);
	zkp_fp2_sqr(&h, &h);
	zkp_fp2_sub(&h, &h, &b);
	zkp_fp2_sub(&h, &h, &c);           /* H = 2YZ */

	zkp_fp2_sub(&ell[0], &e, &b);
	fp2_triple(&ell[1], &xx);
	zkp_fp2_neg(&ell[2], &h);

	zkp_fp2_mul(&s, &t->x, &t->y);
	zkp_fp2_sub(&c, &b, &f);
	zkp_fp2_mul(&s, &s, &c);
	zkp_fp2_dbl(&t->x, &s);            /* X3 = 2XY(B - F) */

	zkp_fp2_mul(&t->z, &b, &h);
	zkp_fp2_dbl(&t->z, &t->z);
	zkp_fp2_dbl(&t->z, &t->z);         /* Z3 = 4 B H = 8 Y^3 Z */

	zkp_fp2_add(&s, &b, &f);
	zkp_fp2_sqr(&s, &s);               /* (B + F)^2 */
	zkp_fp2_sqr(&e, &e);               /* E^2 = 9 b'^2 Z^4 */
	zkp_fp2_dbl(&e, &e);
	zkp_fp2_dbl(&e, &e);
	fp2_triple(&e, &e);                /* 12 E^2 = 108 b'^2 Z^4 */
	zkp_fp2_sub(&t->y, &s, &e);
}

/*
 * T <- T + Q for affine Q, and the line through T and Q.
 *
 * theta = Y - y2 Z, L = X - x2 Z, so lambda = theta / L. The line above
 * through Q times -L:
 *   l0 = theta x2 - L y2,  l1 = -theta,  l2 = L.
 * Addition (ALGLK eq. 13): with C = theta^2, D = L^2, E = L^3,
 * F = Z C, G = X D, H = E + F - 2G:
 *   X3 = L H,  Y3 = theta (G - H) - Y E,  Z3 = Z E
 * (X3/Z3 = lambda^2 - x_T - x2 and Y3/Z3 = lambda (x_T - x3) - y_T).
 * 11 Fp2 multiplications + 2 squarings = 37 Fp multiplications.
 * T = +-Q never happens for Q in G2: T = [k]Q with 1 < k < |x| < r.
 */
static void add_step(zkp_fp2 ell[3], struct proj *t, const zkp_g2_affine *q)
{
	zkp_fp2 theta, l, c, d, e, f, g, h, s;
	zkp_fp2_mul(&s, &q->y, &t->z);
	zkp_fp2_sub(&theta, &t->y, &s);
	zkp_fp2_mul(&s, &q->x, &t->z);
	zkp_fp2_sub(&l, &t->x, &s);

	zkp_fp2_mul(&ell[0], &theta, &q->x);
	zkp_fp2_mul(&s, &l, &q->y);
	zkp_fp2_sub(&ell[0], &ell[0], &s);
	zkp_fp2_neg(&ell[1], &theta);
	ell[2] = l;

	zkp_fp2_sqr(&c, &theta);
	zkp_fp2_sqr(&d, &l);
	zkp_fp2_mul(&e, &l, &d);
	zkp_fp2_mul(&f, &t->z, &c);
	zkp_fp2_mul(&g, &t->x, &d);
	zkp_fp2_add(&h, &e, &f);
	zkp_fp2_sub(&h, &h, &g);
	zkp_fp2_sub(&h, &h, &g);

	zkp_fp2_mul(&t->x, &l, &h);
	zkp_fp2_sub(&s, &g, &h);
	zkp_fp2_mul(&s, &s, &theta);
	zkp_fp2_mul(&g, &t->y, &e);
	zkp_fp2_sub(&t->y, &s, &g);
	zkp_fp2_mul(&t->z, &t->z, &e);
}

/* f <- f * line(P), line(P) = l0 + (l1 x_P) v + (l2 y_P) v w. When f is
 * still 1 the product is the line itself. */
static void ell_eval(zkp_fp12 *f, bool *f_is_one, const zkp_fp2 ell[3], const zkp_g1_affine *p)
{
	zkp_fp2 c1, c4;
	zkp_fp2_mul_fp(&c1, &ell[1], &p->x);
	zkp_fp2_mul_fp(&c4, &ell[2], &p->y);
	if (*f_is_one) {
		zkp_fp12_set_zero(f);
		f->c0.c0 = ell[0];
		f->c0.c1 = c1;
		f->c1.c1 = c4;
		*f_is_one = false;
		return;
	}
	zkp_fp12_mul_by_014(f, f, &ell[0], &c1, &c4);
}

void zkp_g2_prepare(zkp_g2_prepared *ret, const zkp_g2_affine *q)
{
	memset(ret, 0, sizeof(*ret));
	if (zkp_g2_affine_is_infinity(q)) {
		ret->infinity = true;
		return;
	}
	struct proj t = { q->x, q->y, ZKP_FP2_ONE };
	size_t line = 0;
	for (int bit = 62; bit >= 0; bit--) {
		dbl_step(ret->ell[line++], &t);
		if ((ZKP_BLS_X_ABS >> bit) & 1)
			add_step(ret->ell[line++], &t, q);
	}
}

/* One shared squaring chain over at most ZKP_MILLER_CHUNK live pairs
 * (p[live[j]], q[live[j]]), none at infinity, and m prepared pairs. The
 * result is not yet conjugated. */
static void miller_chunk(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q,
			 const size_t *live, size_t nl, const zkp_g1_affine *pp,
			 const zkp_g2_prepared *qp, size_t m)
{
	struct proj t[ZKP_MILLER_CHUNK];
	zkp_fp2 ell[3];
	zkp_fp12 f;
	bool f_is_one = true;

	for (size_t j = 0; j < nl; j++) {
		t[j].x = q[live[j]].x;
		t[j].y = q[live[j]].y;
		t[j].z = ZKP_FP2_ONE;
	}
	zkp_fp12_set_one(&f);
	size_t line = 0;
	for (int bit = 62; bit >= 0; bit--) {
		if (!f_is_one)
			zkp_fp12_sqr(&f, &f);
		for (size_t j = 0; j < nl; j++) {
			dbl_step(ell, &t[j]);
			ell_eval(&f, &f_is_one, ell, &p[live[j]]);
		}
		for (size_t k = 0; k < m; k++) {
			if (!qp[k].infinity && !zkp_g1_affine_is_infinity(&pp[k]))
				ell_eval(&f, &f_is_one, qp[k].ell[line], &pp[k]);
		}
		line++;
		if (!((ZKP_BLS_X_ABS >> bit) & 1))
			continue;
		for (size_t j = 0; j < nl; j++) {
			add_step(ell, &t[j], &q[live[j]]);
			ell_eval(&f, &f_is_one, ell, &p[live[j]]);
		}
		for (size_t k = 0; k < m; k++) {
			if (!qp[k].infinity && !zkp_g1_affine_is_infinity(&pp[k]))
				ell_eval(&f, &f_is_one, qp[k].ell[line], &pp[k]);
		}
		line++;
	}
	*ret = f;
}

void zkp_miller_loop_mixed(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q,
			   size_t n, const zkp_g1_affine *pp, const zkp_g2_prepared *qp,
			   size_t m)
{
	/* The prepared pairs ride along with the first chunk of live ones. */
	zkp_fp12 f, g;
	size_t i = 0;
	bool first = true;
	do {
		size_t live[ZKP_MILLER_CHUNK];
		size_t nl = 0;
		for (; i < n && nl < ZKP_MILLER_CHUNK; i++) {
			if (!zkp_g1_affine_is_infinity(&p[i]) && !zkp_g2_affine_is_infinity(&q[i]))
				live[nl++] = i;
		}
		if (first) {
			miller_chunk(&f, p, q, live, nl, pp, qp, m);
			first = false;
		} else if (nl > 0) {
			miller_chunk(&g, p, q, live, nl, NULL, NULL, 0);
			zkp_fp12_mul(&f, &f, &g);
		}
	} while (i < n);
	zkp_fp12_conjugate(ret, &f);
}

void zkp_miller_loop(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q,
		     size_t n)
{
	zkp_miller_loop_mixed(ret, p, q, n, NULL, NULL, 0);
}

void zkp_miller_loop_prepared(zkp_fp12 *ret, const zkp_g1_affine *p,
			      const zkp_g2_prepared *q, size_t n)
{
	zkp_miller_loop_mixed(ret, NULL, NULL, 0, p, q, n);
}

/* ret = a^x = conj(a^|x|) for cyclotomic a (x < 0, and 1/a = conj(a)). */
static void cyc_exp_x(zkp_fp12 *ret, const zkp_fp12 *a)
{
	zkp_fp12_cyclotomic_exp_x(ret, a);
	zkp_fp12_conjugate(ret, ret);
}

void zkp_final_exp(zkp_fp12 *ret, const zkp_fp12 *f)
{
	zkp_fp12 m, a, b, c, t;

	/* Easy part: m = f^((p^6 - 1)(p^2 + 1)), after which m is cyclotomic. */
	if (zkp_fp12_inv(&t, f) != 0) {
		zkp_fp12_set_zero(ret);
		return;
	}
	zkp_fp12_conjugate(&m, f);
	zkp_fp12_mul(&m, &m, &t);        /* f^(p^6 - 1) */
	zkp_fp12_frobenius(&t, &m, 2);
	zkp_fp12_mul(&m, &t, &m);        /* m^(p^2 + 1) */

	/* Hard part: m^(3d), d = (p^4 - p^2 + 1)/r, through
	 * 3d = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3 (Hayashida-Hayasaka-Teruya,
	 * ePrint 2020/875; docs/math.md, 'Pairing'). */
	cyc_exp_x(&a, &m);
	zkp_fp12_conjugate(&t, &m);
	zkp_fp12_mul(&a, &a, &t);        /* a = m^(x - 1) */
	cyc_exp_x(&b, &a);
	zkp_fp12_conjugate(&t, &a);
	zkp_fp12_mul(&a, &b, &t);        /* a = m^((x - 1)^2) */
	cyc_exp_x(&b, &a);
	zkp_fp12_frobenius(&t, &a, 1);
	zkp_fp12_mul(&b, &b, &t);        /* b = a^(x + p) */
	zkp_fp12_cyclotomic_exp_x(&c, &b);
	zkp_fp12_cyclotomic_exp_x(&c, &c); /* b^(x^2): the two conjugations cancel */
	zkp_fp12_frobenius(&t, &b, 2);
	zkp_fp12_mul(&c, &c, &t);
	zkp_fp12_conjugate(&t, &b);
	zkp_fp12_mul(&c, &c, &t);        /* c = b^(x^2 + p^2 - 1) */
	zkp_fp12_cyclotomic_sqr(&t, &m);
	zkp_fp12_mul(&t, &t, &m);
	zkp_fp12_mul(ret, &c, &t);       /* c m^3 = m^(3d) */
}

void zkp_pairing(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q)
{
	zkp_fp12 f;
	zkp_miller_loop(&f, p, q, 1);
	zkp_final_exp(ret, &f);
}

bool zkp_pairing_check_mixed(const zkp_g1_affine *p, const zkp_g2_affine *q, size_t n,
			     const zkp_g1_affine *pp, const zkp_g2_prepared *qp, size_t m)
{
	zkp_fp12 f;
	zkp_miller_loop_mixed(&f, p, q, n, pp, qp, m);
	zkp_final_exp(&f, &f);
	return zkp_fp12_is_one(&f);
}

bool zkp_pairing_check(const zkp_g1_affine *p, const zkp_g2_affine *q, size_t n)
{
	return zkp_pairing_check_mixed(p, q, n, NULL, NULL, 0);
}
