/*
 * Helpers shared by the groth16 tests: keys and proofs made directly from
 * known toxic waste, without a prover.
 *
 * With secrets alpha, beta, gamma, delta and ic_i = [u_i]G1, a proof
 * A = [a]G1, B = [b]G2, C = [c]G1 for public inputs x satisfies the
 * verification equation e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta)
 * exactly when, in the exponent,
 *     a b = alpha beta + (u_0 + sum x_i u_i) gamma + c delta,
 * so for random a and b, c = (a b - alpha beta - gamma (u_0 + sum x_i u_i)) / delta.
 */
#ifndef ZKPD_G16_TEST_H
#define ZKPD_G16_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef G16T_CLOCK
#define G16T_CLOCK CLOCK_MONOTONIC
#endif

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/groth16.h"

/* One temporary directory per test program: made by g16t_setup_tmp (a
 * cmocka group setup), removed with its contents by g16t_teardown_tmp. */
static char g16t_tmpdir[64];

static inline void g16t_tmp_path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", g16t_tmpdir, name);
}

static inline int g16t_setup_tmp(void **state)
{
	(void)state;
	snprintf(g16t_tmpdir, sizeof(g16t_tmpdir), "/tmp/zkpd-g16-XXXXXX");
	return mkdtemp(g16t_tmpdir) ? 0 : -1;
}

static inline int g16t_teardown_tmp(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g16t_tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static inline void g16t_g1(zkp_g1_affine *r, const zkp_fr *k)
{
	zkp_g1 g;
	zkp_g1_from_affine(&g, &ZKP_G1_GENERATOR);
	zkp_g1_mul_fr(&g, &g, k);
	zkp_g1_to_affine(r, &g);
}

static inline void g16t_g2(zkp_g2_affine *r, const zkp_fr *k)
{
	zkp_g2 g;
	zkp_g2_from_affine(&g, &ZKP_G2_GENERATOR);
	zkp_g2_mul_fr(&g, &g, k);
	zkp_g2_to_affine(r, &g);
}

struct g16t_setup {
	zkp_fr alpha, beta, gamma, delta;
	zkp_fr *u; /* n_ic */
	size_t n_ic;
	zkp_groth16_vk vk;
};

static inline void g16t_setup_new(struct g16t_setup *s, size_t n_public)
{
	memset(s, 0, sizeof(*s));
	tu_rand_fr(&s->alpha);
	tu_rand_fr(&s->beta);
	tu_rand_fr(&s->gamma);
	tu_rand_fr(&s->delta);
	s->n_ic = n_public + 1;
	s->u = malloc(s->n_ic * sizeof(*s->u));
	zkp_groth16_vk_init(&s->vk);
	zkp_g1_affine *ic;
	if (!s->u || zkp_groth16_vk_alloc_ic(&s->vk, s->n_ic, &ic)) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < s->n_ic; i++) {
		tu_rand_fr(&s->u[i]);
		g16t_g1(&ic[i], &s->u[i]);
	}
	g16t_g1(&s->vk.alpha_g1, &s->alpha);
	g16t_g1(&s->vk.beta_g1, &s->beta);
	g16t_g1(&s->vk.delta_g1, &s->delta);
	g16t_g2(&s->vk.beta_g2, &s->beta);
	g16t_g2(&s->vk.gamma_g2, &s->gamma);
	g16t_g2(&s->vk.delta_g2, &s->delta);
	s->vk.has_g1_extras = true;
}

static inline void g16t_setup_free(struct g16t_setup *s)
{
	free(s->u);
	zkp_groth16_vk_release(&s->vk);
}

static inline void g16t_prove(zkp_groth16_proof *p, const struct g16t_setup *s, const zkp_fr *x)
{
	zkp_fr a, b, c, t, l = s->u[0];
	tu_rand_fr(&a);
	tu_rand_fr(&b);
	for (size_t i = 1; i < s->n_ic; i++) {
		zkp_fr_mul(&t, &x[i - 1], &s->u[i]);
		zkp_fr_add(&l, &l, &t);
	}
	zkp_fr_mul(&c, &a, &b);
	zkp_fr_mul(&t, &s->alpha, &s->beta);
	zkp_fr_sub(&c, &c, &t);
	zkp_fr_mul(&t, &s->gamma, &l);
	zkp_fr_sub(&c, &c, &t);
	zkp_fr_inv(&t, &s->delta);
	zkp_fr_mul(&c, &c, &t);
	g16t_g1(&p->a, &a);
	g16t_g2(&p->b, &b);
	g16t_g1(&p->c, &c);
}

static inline double g16t_now(void)
{
	struct timespec ts;
	clock_gettime(G16T_CLOCK, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void g16t_vector_path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", ZKPD_VECTORS_DIR, name);
}

#endif
