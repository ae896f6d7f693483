/*
 * Generic Montgomery arithmetic over N 64-bit limbs, private to ff/.
 *
 * Every function is static inline with N a compile-time constant at each call
 * site, so the compiler unrolls the loops into straight-line code.
 *
 * Preconditions shared by all functions: inputs are < q, q's top limb is below
 * 2^63 - 1 (both BLS12-381 moduli have spare bits: p < 2^381, r < 2^255), which
 * lets sums of two reduced values fit in N limbs and lets the CIOS loop drop
 * its carry word (the "no-carry" variant: Koç, Acar, Kaliski, "Analyzing and
 * comparing Montgomery multiplication algorithms", 1996, with the carry
 * elimination from the gnark-crypto write-up).
 */
#ifndef ZKPD_FF_MONT_INT_H
#define ZKPD_FF_MONT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 u128;

#define MONT_UNROLL _Pragma("GCC unroll 16")

/*
 * Carry chains. On x86-64 the _addcarry/_subborrow intrinsics (plain ADC/SBB,
 * every x86-64 CPU has them) let the compiler keep the chain in the carry
 * flag; 128-bit arithmetic makes GCC materialise each carry in a register,
 * which tripled the cost of an Fp addition. Elsewhere the overflow builtins.
 */
#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t mont_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	unsigned long long r;
	*carry = _addcarry_u64((unsigned char)*carry, a, b, &r);
	return r;
}

static inline uint64_t mont_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	unsigned long long r;
	*borrow = _subborrow_u64((unsigned char)*borrow, a, b, &r);
	return r;
}
#else
static inline uint64_t mont_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	uint64_t r;
	uint64_t c1 = __builtin_add_overflow(a, b, &r);
	uint64_t c2 = __builtin_add_overflow(r, *carry, &r);
	*carry = c1 | c2;
	return r;
}

static inline uint64_t mont_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	uint64_t r;
	uint64_t b1 = __builtin_sub_overflow(a, b, &r);
	uint64_t b2 = __builtin_sub_overflow(r, *borrow, &r);
	*borrow = b1 | b2;
	return r;
}
#endif

/* ret = a - b over N limbs; returns the borrow (0 or 1). */
static inline uint64_t mont_sub_n(uint64_t *ret, const uint64_t *a,
				  const uint64_t *b, const int n)
{
	uint64_t borrow = 0;
	MONT_UNROLL
	for (int i = 0; i < n; i++)
		ret[i] = mont_sbb(a[i], b[i], &borrow);
	return borrow;
}

/* ret = a + b over N limbs; returns the carry. */
static inline uint64_t mont_add_n(uint64_t *ret, const uint64_t *a,
				  const uint64_t *b, const int n)
{
	uint64_t carry = 0;
	MONT_UNROLL
	for (int i = 0; i < n; i++)
		ret[i] = mont_adc(a[i], b[i], &carry);
	return carry;
}

/* a >= b as N-limb integers. */
static inline bool mont_geq(const uint64_t *a, const uint64_t *b, const int n)
{
	for (int i = n - 1; i >= 0; i--) {
		if (a[i] != b[i])
			return a[i] > b[i];
	}
	return true;
}

/* ret = t - q if t >= q else t, for t < 2q. Branch-free select. */
static inline void mont_reduce_once(uint64_t *ret, const uint64_t *t,
				    const uint64_t *q, const int n)
{
	uint64_t s[8];
	uint64_t borrow = mont_sub_n(s, t, q, n);
	uint64_t keep_t = (uint64_t)0 - borrow; /* all ones when t < q */
	MONT_UNROLL
	for (int i = 0; i < n; i++)
		ret[i] = (t[i] & keep_t) | (s[i] & ~keep_t);
}

static inline void mont_add(uint64_t *ret, const uint64_t *a,
			    const uint64_t *b, const uint64_t *q, const int n)
{
	uint64_t t[8];
	mont_add_n(t, a, b, n); /* no carry out: a + b < 2q < 2^(64n) */
	mont_reduce_once(ret, t, q, n);
}

static inline void mont_sub(uint64_t *ret, const uint64_t *a,
			    const uint64_t *b, const uint64_t *q, const int n)
{
	uint64_t t[8], qm[8];
	uint64_t mask = (uint64_t)0 - mont_sub_n(t, a, b, n);
	MONT_UNROLL
	for (int i = 0; i < n; i++)
		qm[i] = q[i] & mask;
	mont_add_n(ret, t, qm, n);
}

static inline void mont_neg(uint64_t *ret, const uint64_t *a,
			    const uint64_t *q, const int n)
{
	uint64_t nz = 0;
	MONT_UNROLL
	for (int i = 0; i < n; i++)
		nz |= a[i];
	uint64_t mask = (uint64_t)0 - (uint64_t)(nz != 0);
	uint64_t t[8];
	mont_sub_n(t, q, a, n);
	MONT_UNROLL
	for (int i = 0; i < n; i++)
		ret[i] = t[i] & mask;
}

/*
 * ret = a * b * 2^(-64n) mod q, CIOS without the carry word.
 * Cost: 2n^2 + n 64x64 multiplications.
 */
static inline void mont_mul(uint64_t *ret, const uint64_t *a, const uint64_t *b,
			    const uint64_t *q, uint64_t qinv, const int n)
{
	uint64_t t[8] = { 0 };
	MONT_UNROLL
	for (int i = 0; i < n; i++) {
		u128 p = (u128)a[0] * b[i] + t[0];
		uint64_t A = (uint64_t)(p >> 64);
		t[0] = (uint64_t)p;
		uint64_t m = t[0] * qinv;
		u128 r = (u128)m * q[0] + t[0];
		uint64_t C = (uint64_t)(r >> 64);
		MONT_UNROLL
		for (int j = 1; j < n; j++) {
			p = (u128)a[j] * b[i] + t[j] + A;
			A = (uint64_t)(p >> 64);
			r = (u128)m * q[j] + (uint64_t)p + C;
			C = (uint64_t)(r >> 64);
			t[j - 1] = (uint64_t)r;
		}
		t[n - 1] = C + A;
	}
	mont_reduce_once(ret, t, q, n);
}

/* Montgomery reduction of a 2n-limb value T < q * 2^(64n):
 * ret = T * 2^(-64n) mod q. */
static inline void mont_redc(uint64_t *ret, const uint64_t *T,
			     const uint64_t *q, uint64_t qinv, const int n)
{
	uint64_t t[16];
	MONT_UNROLL
	for (int i = 0; i < 2 * n; i++)
		t[i] = T[i];
	uint64_t top_carry = 0;
	MONT_UNROLL
	for (int i = 0; i < n; i++) {
		uint64_t m = t[i] * qinv;
		uint64_t c = 0;
		MONT_UNROLL
		for (int j = 0; j < n; j++) {
			u128 s = (u128)m * q[j] + t[i + j] + c;
			t[i + j] = (uint64_t)s;
			c = (uint64_t)(s >> 64);
		}
		/* propagate into t[i+n] with the running top carry */
		u128 s = (u128)t[i + n] + c + top_carry;
		t[i + n] = (uint64_t)s;
		top_carry = (uint64_t)(s >> 64);
	}
	/* T < q*2^(64n) gives a result < 2q, which fits in n limbs because q
	 * has a spare bit, so top_carry is 0 here. */
	mont_reduce_once(ret, t + n, q, n);
}

/* ret = a^2 * 2^(-64n) mod q: schoolbook square (off-diagonal products
 * computed once and doubled), then one reduction. n(n+1)/2 + n^2 products. */
static inline void mont_sqr(uint64_t *ret, const uint64_t *a, const uint64_t *q,
			    uint64_t qinv, const int n)
{
	uint64_t T[16] = { 0 };
	MONT_UNROLL
	for (int i = 0; i < n; i++) {
		uint64_t c = 0;
		MONT_UNROLL
		for (int j = i + 1; j < n; j++) {
			u128 s = (u128)a[i] * a[j] + T[i + j] + c;
			T[i + j] = (uint64_t)s;
			c = (uint64_t)(s >> 64);
		}
		T[i + n] = c;
	}
	/* double the off-diagonal sum */
	uint64_t top = 0;
	MONT_UNROLL
	for (int i = 0; i < 2 * n; i++) {
		uint64_t v = T[i];
		T[i] = (v << 1) | top;
		top = v >> 63;
	}
	/* add the diagonal squares */
	uint64_t c = 0;
	MONT_UNROLL
	for (int i = 0; i < n; i++) {
		u128 d = (u128)a[i] * a[i];
		u128 s = (u128)T[2 * i] + (uint64_t)d + c;
		T[2 * i] = (uint64_t)s;
		s = (u128)T[2 * i + 1] + (uint64_t)(d >> 64) + (uint64_t)(s >> 64);
		T[2 * i + 1] = (uint64_t)s;
		c = (uint64_t)(s >> 64);
	}
	mont_redc(ret, T, q, qinv, n);
}

#endif
