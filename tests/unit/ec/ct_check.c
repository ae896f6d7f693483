/*
 * Constant-time check under valgrind's memcheck (the ctgrind method): the
 * secret scalar is marked undefined, so memcheck reports every branch and
 * every memory address that depends on it ("Conditional jump or move
 * depends on uninitialised value", "Use of uninitialised value of size
 * 8"). Run as
 *   valgrind --error-exitcode=3 ct_check ct      must pass: the prover's
 *                                                 blinding path
 *   valgrind --error-exitcode=3 ct_check wnaf    must fail: the variable-
 *                                                 time multiplication, to
 *                                                 show the check can fail
 * What "ct" covers is what the prover does with r and s: zkp_fr_mul (r s),
 * zkp_g1_mul_fr_ct and zkp_g2_mul_fr_ct. Outside valgrind the marks do
 * nothing and it only computes.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "zkpd/ec.h"
#include "zkpd/ff.h"

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "ct") && strcmp(argv[1], "wnaf"))) {
		fprintf(stderr, "usage: ct_check ct|wnaf\n");
		return 2;
	}
	bool ct = !strcmp(argv[1], "ct");
	zkp_fr r, s, rs;
	uint64_t w[8] = { 0x243f6a8885a308d3, 0x13198a2e03707344, 0xa4093822299f31d0,
			  0x082efa98ec4e6c89, 0x452821e638d01377, 0xbe5466cf34e90c6c,
			  0xc0ac29b7c97c50dd, 0x3f84d5b5b5470917 };
	zkp_fr_from_wide(&r, w);
	w[0] ^= 0x9216d5d98979fb1b;
	zkp_fr_from_wide(&s, w);
	VALGRIND_MAKE_MEM_UNDEFINED(&r, sizeof(r));
	VALGRIND_MAKE_MEM_UNDEFINED(&s, sizeof(s));

	zkp_g1 g1, o1;
	zkp_g2 g2, o2;
	const zkp_g1_affine a1 = ZKP_G1_GENERATOR;
	const zkp_g2_affine a2 = ZKP_G2_GENERATOR;
	zkp_g1_from_affine(&g1, &a1);
	zkp_g2_from_affine(&g2, &a2);
	zkp_fr_mul(&rs, &r, &s);
	if (ct) {
		zkp_g1_mul_fr_ct(&o1, &g1, &r);
		zkp_g1_mul_fr_ct(&o1, &o1, &rs);
		zkp_g2_mul_fr_ct(&o2, &g2, &s);
	} else {
		zkp_g1_mul_fr(&o1, &g1, &r);
		zkp_g2_mul_fr(&o2, &g2, &s);
	}
	/* The results are public (they become the proof): defined again, so
	 * printing them is not itself reported. */
	VALGRIND_MAKE_MEM_DEFINED(&o1, sizeof(o1));
	VALGRIND_MAKE_MEM_DEFINED(&o2, sizeof(o2));
	zkp_g1_affine x1;
	zkp_g1_to_affine(&x1, &o1);
	printf("%s: %016llx\n", argv[1], (unsigned long long)x1.x.l[0]);
	return 0;
}
