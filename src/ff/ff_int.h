/*
 * Private declarations shared by the ff/ sources.
 */
#ifndef ZKPD_FF_INT_H
#define ZKPD_FF_INT_H

#include <stdbool.h>
#include "zkpd/ff.h"

/* True when multiplication goes through the MULX/ADX assembly. Set once by
 * ff_dispatch_init() (a constructor) and by zkp_ff_force_portable(). */
extern bool ff_use_mulx;

/* Assembly kernels (ff/mont_x86_64.c), present when ZKPD_FF_ASM is defined. */
void ff_mulx_fp_mul(uint64_t ret[6], const uint64_t a[6], const uint64_t b[6]);
void ff_mulx_fp_sqr(uint64_t ret[6], const uint64_t a[6]);
void ff_mulx_fr_mul(uint64_t ret[4], const uint64_t a[4], const uint64_t b[4]);

#endif
