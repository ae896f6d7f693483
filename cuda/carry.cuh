/*
 * 32-bit carry chains for the field arithmetic of ff.cuh: on the device,
 * PTX's add/sub/mad instructions that read and write the condition code's
 * carry flag (add.cc, addc, sub.cc, subc, mad.lo.cc, madc.hi ...); on the
 * host, the same instructions emulated one for one over an explicit flag,
 * so the host tests run the very sequence of operations the device runs.
 *
 * Semantics (PTX ISA, "Extended-Precision Integer Arithmetic"), for 32-bit
 * a, b, c and the carry flag CF:
 *   add_cc(a, b)       = a + b,                CF := carry out
 *   addc[_cc](a, b)    = a + b + CF,           [CF := carry out]
 *   sub_cc(a, b)       = a - b,                CF := borrow out
 *   subc[_cc](a, b)    = a - (b + CF),         [CF := borrow out]
 *   mad_lo_cc(a, b, c) = lo32(a b) + c,        CF := carry out
 *   mad_hi_cc(a, b, c) = hi32(a b) + c,        CF := carry out
 *   madc_lo[_cc], madc_hi[_cc](a, b, c)
 *                      = lo32/hi32(a b) + c + CF, [CF := carry out]
 *
 * Contract of a chain:
 *  - a carry_chain object is one chain: its first operation is one that
 *    only writes CF (add_cc, sub_cc, mad_lo_cc, mad_hi_cc), later ones
 *    read the CF the previous one wrote; the object holds the flag on the
 *    host, on the device the flag is the hardware's;
 *  - nothing that writes CF may run between two operations of a chain on
 *    the device. Code between them is plain C++, which nvcc lowers to PTX
 *    without the carry flag (ptxas turns the chain into predicate carries
 *    and keeps its order, the statements being asm volatile); keep it to
 *    register moves and plain multiplications;
 *  - chains do not nest or interleave: finish one before starting another;
 *  - a chain is all additions (add/addc/mad) or all subtractions
 *    (sub/subc): a borrow is read only by subc, a carry only by addc and
 *    madc. The hardware computes a - b as a + ~b + 1 and keeps the carry
 *    of that sum, the complement of the borrow: on an H200, addc(0, 0)
 *    right after sub.cc(0, 0) read 1 where PTX's borrow is 0. The field
 *    arithmetic reads a subtraction's borrow with subc(0, 0) (all ones
 *    after a borrow), which the emulation and the device agree on.
 */
#ifndef ZKPD_CUDA_CARRY_CUH
#define ZKPD_CUDA_CARRY_CUH

#include <stdint.h>

#ifdef __CUDACC__
#define ZKP_CC_HD __host__ __device__ __forceinline__
#else
#define ZKP_CC_HD inline
#endif

#ifdef __CUDA_ARCH__
#define ZKP_CC_OP2(name, ptx)                                                          \
	ZKP_CC_HD uint32_t name(uint32_t a, uint32_t b)                                \
	{                                                                              \
		uint32_t d;                                                            \
		asm volatile(ptx " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));           \
		return d;                                                              \
	}
#define ZKP_CC_OP3(name, ptx)                                                          \
	ZKP_CC_HD uint32_t name(uint32_t a, uint32_t b, uint32_t c)                    \
	{                                                                              \
		uint32_t d;                                                            \
		asm volatile(ptx " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); \
		return d;                                                              \
	}
#else
/* Host: the sum as a 64-bit value; bit 32 is the carry out. A borrow is
 * the sign of the 64-bit difference. */
#define ZKP_CC_OP2(name, ptx) ZKP_CC_HD uint32_t name(uint32_t a, uint32_t b);
#define ZKP_CC_OP3(name, ptx) ZKP_CC_HD uint32_t name(uint32_t a, uint32_t b, uint32_t c);
#endif

struct carry_chain {
	uint32_t cf = 0; /* the host's flag; unused (and optimised out) on the device */
	ZKP_CC_OP2(add_cc, "add.cc.u32")
	ZKP_CC_OP2(addc_cc, "addc.cc.u32")
	ZKP_CC_OP2(addc, "addc.u32")
	ZKP_CC_OP2(sub_cc, "sub.cc.u32")
	ZKP_CC_OP2(subc_cc, "subc.cc.u32")
	ZKP_CC_OP2(subc, "subc.u32")
	ZKP_CC_OP3(mad_lo_cc, "mad.lo.cc.u32")
	ZKP_CC_OP3(mad_hi_cc, "mad.hi.cc.u32")
	ZKP_CC_OP3(madc_lo_cc, "madc.lo.cc.u32")
	ZKP_CC_OP3(madc_hi_cc, "madc.hi.cc.u32")
	ZKP_CC_OP3(madc_lo, "madc.lo.u32")
	ZKP_CC_OP3(madc_hi, "madc.hi.u32")
};

#undef ZKP_CC_OP2
#undef ZKP_CC_OP3

#ifndef __CUDA_ARCH__
ZKP_CC_HD uint32_t carry_chain::add_cc(uint32_t a, uint32_t b)
{
	uint64_t s = (uint64_t)a + b;
	cf = (uint32_t)(s >> 32);
	return (uint32_t)s;
}

ZKP_CC_HD uint32_t carry_chain::addc_cc(uint32_t a, uint32_t b)
{
	uint64_t s = (uint64_t)a + b + cf;
	cf = (uint32_t)(s >> 32);
	return (uint32_t)s;
}

ZKP_CC_HD uint32_t carry_chain::addc(uint32_t a, uint32_t b)
{
	return a + b + cf;
}

ZKP_CC_HD uint32_t carry_chain::sub_cc(uint32_t a, uint32_t b)
{
	uint64_t d = (uint64_t)a - b;
	cf = (uint32_t)(d >> 63);
	return (uint32_t)d;
}

ZKP_CC_HD uint32_t carry_chain::subc_cc(uint32_t a, uint32_t b)
{
	uint64_t d = (uint64_t)a - b - cf;
	cf = (uint32_t)(d >> 63);
	return (uint32_t)d;
}

ZKP_CC_HD uint32_t carry_chain::subc(uint32_t a, uint32_t b)
{
	return a - b - cf;
}

ZKP_CC_HD uint32_t carry_chain::mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
	return add_cc((uint32_t)((uint64_t)a * b), c);
}

ZKP_CC_HD uint32_t carry_chain::mad_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
	return add_cc((uint32_t)(((uint64_t)a * b) >> 32), c);
}

ZKP_CC_HD uint32_t carry_chain::madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
	return addc_cc((uint32_t)((uint64_t)a * b), c);
}

ZKP_CC_HD uint32_t carry_chain::madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
	return addc_cc((uint32_t)(((uint64_t)a * b) >> 32), c);
}

ZKP_CC_HD uint32_t carry_chain::madc_lo(uint32_t a, uint32_t b, uint32_t c)
{
	return addc((uint32_t)((uint64_t)a * b), c);
}

ZKP_CC_HD uint32_t carry_chain::madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
	return addc((uint32_t)(((uint64_t)a * b) >> 32), c);
}
#endif

/* hi32(a b) and lo32(a b) without the carry flag. */
ZKP_CC_HD uint32_t mul_hi32(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
	return __umulhi(a, b);
#else
	return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

ZKP_CC_HD uint32_t mul_lo32(uint32_t a, uint32_t b)
{
	return a * b;
}

#endif
