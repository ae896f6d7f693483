/*
 * One prime field's operations, written once and instantiated for Fp and Fr.
 *
 * The including file defines, then includes this file:
 *   F          the element type (zkp_fp, zkp_fr)
 *   FN(x)      the public name of operation x (zkp_fp_##x)
 *   FNS(x)     the public name of batch operation x (zkp_fps_##x)
 *   N          limb count
 *   MOD        the modulus limbs (uint64_t[N])
 *   QINV       -MOD^-1 mod 2^64
 *   R2         R^2 mod MOD as plain limbs (to-Montgomery factor)
 *   R3         R^3 mod MOD as plain limbs (inversion's correction)
 *   ONE        R mod MOD as an F (Montgomery one)
 *   MUL(r,a,b) the multiplication used by everything here
 *   SQR(r,a)   the squaring used by everything here
 * It defines everything in ff.h that has the same contract for both fields.
 */

void FN(set_zero)(F *ret) { memset(ret, 0, sizeof(*ret)); }
void FN(set_one)(F *ret) { *ret = ONE; }

void FN(set_u64)(F *ret, uint64_t v)
{
	F t = { { 0 } };
	t.l[0] = v;
	/* v < 2^64 < MOD, so mont_mul(v, R^2) gives v*R reduced. */
	mont_mul(ret->l, t.l, R2, MOD, QINV, N);
}

bool FN(is_zero)(const F *a)
{
	uint64_t acc = 0;
	for (int i = 0; i < N; i++)
		acc |= a->l[i];
	return acc == 0;
}

bool FN(eq)(const F *a, const F *b) { return memcmp(a, b, sizeof(*a)) == 0; }
bool FN(is_one)(const F *a) { return FN(eq)(a, &ONE); }

void FN(add)(F *ret, const F *a, const F *b) { mont_add(ret->l, a->l, b->l, MOD, N); }
void FN(sub)(F *ret, const F *a, const F *b) { mont_sub(ret->l, a->l, b->l, MOD, N); }
void FN(neg)(F *ret, const F *a) { mont_neg(ret->l, a->l, MOD, N); }
void FN(dbl)(F *ret, const F *a) { mont_add(ret->l, a->l, a->l, MOD, N); }

void FN(pow)(F *ret, const F *a, const uint64_t *e, size_t nlimbs)
{
	/* Left-to-right square and multiply; leading zero bits cost nothing. */
	F acc = ONE, base = *a;
	bool started = false;
	for (size_t i = nlimbs; i-- > 0;) {
		for (int bit = 63; bit >= 0; bit--) {
			if (started)
				SQR(&acc, &acc);
			if ((e[i] >> bit) & 1) {
				if (started)
					MUL(&acc, &acc, &base);
				else
					acc = base;
				started = true;
			}
		}
	}
	*ret = acc;
}

/* Exponents derived from the modulus at call time: a few limb operations,
 * cheaper than keeping another table of hand-copied constants in sync. */
static void mod_minus_small(uint64_t e[N], uint64_t k)
{
	uint64_t s[N] = { 0 };
	s[0] = k;
	mont_sub_n(e, MOD, s, N);
}

static void shr_limbs(uint64_t e[N], unsigned k)
{
	for (int i = 0; i < N; i++) {
		uint64_t hi = (i + 1 < N) ? e[i + 1] : 0;
		e[i] = (e[i] >> k) | (k ? hi << (64 - k) : 0);
	}
}

/* x <- x / 2 mod MOD for x < MOD: add MOD when odd (the sum stays below
 * 2^(64N) thanks to the spare bit), then shift. */
static inline void halve_mod(uint64_t x[N])
{
	uint64_t mask = (uint64_t)0 - (x[0] & 1), m[N];
	for (int i = 0; i < N; i++)
		m[i] = MOD[i] & mask;
	mont_add_n(x, x, m, N);
	for (int i = 0; i < N - 1; i++)
		x[i] = (x[i] >> 1) | (x[i + 1] << 63);
	x[N - 1] >>= 1;
}

static inline bool is_one_int(const uint64_t x[N])
{
	uint64_t acc = x[0] ^ 1;
	for (int i = 1; i < N; i++)
		acc |= x[i];
	return acc == 0;
}

int FN(inv)(F *ret, const F *a)
{
	if (FN(is_zero)(a)) {
		FN(set_zero)(ret);
		return ZKP_ERR_NOT_INVERTIBLE;
	}
	/* Binary extended Euclid on the integer A = a*R mod MOD (Menezes et
	 * al., Handbook of Applied Cryptography, algorithm 14.61 specialised
	 * to an odd modulus): invariants x1*A = u, x2*A = v (mod MOD), and every
	 * step halves u or v or subtracts the smaller from the larger, so it
	 * ends within about 2*log2(MOD) steps. Variable time (see ff.h). It
	 * yields A^-1 = a^-1 R^-1; one Montgomery multiplication by R^3 turns it
	 * into a^-1 R, the Montgomery form of a^-1. About 4x faster than
	 * Fermat's a^(MOD-2). */
	uint64_t u[N], v[N], x1[N] = { 1 }, x2[N] = { 0 };
	memcpy(u, a->l, sizeof(u));
	memcpy(v, MOD, sizeof(v));
	while (!is_one_int(u) && !is_one_int(v)) {
		while (!(u[0] & 1)) {
			for (int i = 0; i < N - 1; i++)
				u[i] = (u[i] >> 1) | (u[i + 1] << 63);
			u[N - 1] >>= 1;
			halve_mod(x1);
		}
		while (!(v[0] & 1)) {
			for (int i = 0; i < N - 1; i++)
				v[i] = (v[i] >> 1) | (v[i + 1] << 63);
			v[N - 1] >>= 1;
			halve_mod(x2);
		}
		if (mont_geq(u, v, N)) {
			mont_sub_n(u, u, v, N);
			mont_sub(x1, x1, x2, MOD, N);
		} else {
			mont_sub_n(v, v, u, N);
			mont_sub(x2, x2, x1, MOD, N);
		}
	}
	const uint64_t *x = is_one_int(u) ? x1 : x2;
	mont_mul(ret->l, x, R3, MOD, QINV, N);
	return 0;
}

void FNS(inv)(F *ret, const F *a, size_t n, F *scratch)
{
	/* Montgomery's trick: prefix products, one inversion, walk back.
	 * 3(n-1) multiplications plus one inversion. */
	F acc = ONE;
	for (size_t i = 0; i < n; i++) {
		scratch[i] = acc;
		if (!FN(is_zero)(&a[i]))
			MUL(&acc, &acc, &a[i]);
	}
	F inv;
	FN(inv)(&inv, &acc); /* acc is a product of non-zeros: never fails */
	for (size_t i = n; i-- > 0;) {
		if (FN(is_zero)(&a[i])) {
			FN(set_zero)(&ret[i]);
			continue;
		}
		F ai = a[i];
		MUL(&ret[i], &inv, &scratch[i]);
		MUL(&inv, &inv, &ai);
	}
}

int FN(legendre)(const F *a)
{
	if (FN(is_zero)(a))
		return 0;
	uint64_t e[N];
	mod_minus_small(e, 1);
	shr_limbs(e, 1); /* Euler's criterion: a^((m-1)/2) = +-1 */
	F t;
	FN(pow)(&t, a, e, N);
	return FN(is_one)(&t) ? 1 : -1;
}

int FN(from_limbs)(F *ret, const uint64_t v[N])
{
	if (mont_geq(v, MOD, N))
		return ZKP_ERR_NOT_CANONICAL;
	mont_mul(ret->l, v, R2, MOD, QINV, N);
	return 0;
}

void FN(to_limbs)(uint64_t v[N], const F *a)
{
	/* Leaving Montgomery form is a reduction of a*1. */
	uint64_t T[2 * N] = { 0 };
	memcpy(T, a->l, sizeof(a->l));
	mont_redc(v, T, MOD, QINV, N);
}

int FN(from_be)(F *ret, const uint8_t in[N * 8])
{
	uint64_t v[N];
	for (int i = 0; i < N; i++) {
		uint64_t w = 0;
		for (int j = 0; j < 8; j++)
			w = (w << 8) | in[(N - 1 - i) * 8 + j];
		v[i] = w;
	}
	return FN(from_limbs)(ret, v);
}

int FN(from_le)(F *ret, const uint8_t in[N * 8])
{
	uint64_t v[N];
	for (int i = 0; i < N; i++) {
		uint64_t w = 0;
		for (int j = 7; j >= 0; j--)
			w = (w << 8) | in[i * 8 + j];
		v[i] = w;
	}
	return FN(from_limbs)(ret, v);
}

void FN(to_be)(uint8_t out[N * 8], const F *a)
{
	uint64_t v[N];
	FN(to_limbs)(v, a);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < 8; j++)
			out[(N - 1 - i) * 8 + j] = (uint8_t)(v[i] >> (56 - 8 * j));
}

void FN(to_le)(uint8_t out[N * 8], const F *a)
{
	uint64_t v[N];
	FN(to_limbs)(v, a);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < 8; j++)
			out[i * 8 + j] = (uint8_t)(v[i] >> (8 * j));
}

void FN(from_wide)(F *ret, const uint64_t v[2 * N])
{
	/* v = lo + hi*2^(64N). Reduce each half below MOD by subtraction (at
	 * most 2^(64N)/MOD times: 9 for Fp, 2 for Fr), then
	 * lo*R = mont(lo, R^2) and hi*2^(64N)*R = mont(mont(hi, R^2), R^2). */
	uint64_t lo[N], hi[N];
	memcpy(lo, v, sizeof(lo));
	memcpy(hi, v + N, sizeof(hi));
	while (mont_geq(lo, MOD, N))
		mont_sub_n(lo, lo, MOD, N);
	while (mont_geq(hi, MOD, N))
		mont_sub_n(hi, hi, MOD, N);
	F l, h;
	mont_mul(l.l, lo, R2, MOD, QINV, N);
	mont_mul(h.l, hi, R2, MOD, QINV, N);
	mont_mul(h.l, h.l, R2, MOD, QINV, N);
	FN(add)(ret, &l, &h);
}
