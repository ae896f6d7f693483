/*
 * Fixed-base batch multiplication on the CPU (include/zkpd/fixed_base.h):
 * fixed_base_tmpl.h instantiated for G1 and G2.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "zkpd/error.h"
#include "zkpd/fixed_base.h"

/* Points per affine conversion (one inversion each). */
#define FB_CHUNK 1024

/* Byte w of the canonical scalar limbs k. */
static unsigned fb_digit(const uint64_t k[ZKP_FR_LIMBS], unsigned w)
{
	return (unsigned)(k[w / 8] >> (8 * (w % 8))) & 0xff;
}

#define PT zkp_g1
#define PT_AFF zkp_g1_affine
#define FE zkp_fp
#define PN(x) zkp_g1_##x
#define PNS(x) zkp_g1s_##x
#define GEN ZKP_G1_GENERATOR
#define FB_NAME(x) zkp_fixed_base_g1##x
#include "fixed_base_tmpl.h"
#undef PT
#undef PT_AFF
#undef FE
#undef PN
#undef PNS
#undef GEN
#undef FB_NAME

#define PT zkp_g2
#define PT_AFF zkp_g2_affine
#define FE zkp_fp2
#define PN(x) zkp_g2_##x
#define PNS(x) zkp_g2s_##x
#define GEN ZKP_G2_GENERATOR
#define FB_NAME(x) zkp_fixed_base_g2##x
#include "fixed_base_tmpl.h"
