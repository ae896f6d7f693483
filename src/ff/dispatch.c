/*
 * Choice between the portable and the MULX/ADX multiplication, made once at
 * load time from CPUID.
 */
#include "ff_int.h"

bool ff_use_mulx;

bool zkp_ff_have_mulx(void)
{
#if defined(ZKPD_FF_ASM) && defined(__x86_64__)
	return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
#else
	return false;
#endif
}

__attribute__((constructor)) static void ff_dispatch_init(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
#endif
	ff_use_mulx = zkp_ff_have_mulx();
}

bool zkp_ff_force_portable(bool on)
{
	bool was = !ff_use_mulx;
	ff_use_mulx = on ? false : zkp_ff_have_mulx();
	return was;
}

const char *zkp_ff_backend(void)
{
	return ff_use_mulx ? "mulx-adx" : "portable";
}

#ifndef ZKPD_FF_ASM
/* Without the assembly these exist only so callers link; ff.h says they may
 * be called only when zkp_ff_have_mulx() is true, which it never is here. */
void zkp_fp_mul_mulx(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b)
{
	zkp_fp_mul_portable(ret, a, b);
}

void zkp_fp_sqr_mulx(zkp_fp *ret, const zkp_fp *a)
{
	zkp_fp_sqr_portable(ret, a);
}

void zkp_fr_mul_mulx(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b)
{
	zkp_fr_mul_portable(ret, a, b);
}
#endif
