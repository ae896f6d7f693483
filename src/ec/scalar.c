/*
 * Scalar recoding shared by the G1 and G2 scalar multiplications.
 */
#include <string.h>

#include "ec_int.h"

static bool limbs_are_zero(const uint64_t *t, size_t n)
{
	uint64_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= t[i];
	return acc == 0;
}

size_t ec_wnaf(int8_t digits[EC_WNAF_MAX_DIGITS], const uint64_t *k, size_t nlimbs,
	       unsigned w)
{
	/* Right to left: when t is odd take d = t mods 2^w (the residue in
	 * (-2^(w-1), 2^(w-1))), so t - d is divisible by 2^w and the next w-1
	 * digits are zero. One spare limb absorbs the carry of t - d for
	 * negative d; the result has at most 64*nlimbs + 1 digits. */
	uint64_t t[EC_WNAF_CHUNK_LIMBS + 1] = { 0 };
	const size_t n = nlimbs + 1;
	const uint64_t full = (uint64_t)1 << w, mask = full - 1, half = full >> 1;
	size_t i = 0, len = 0;

	memcpy(t, k, nlimbs * sizeof(uint64_t));
	while (!limbs_are_zero(t, n)) {
		int d = 0;
		if (t[0] & 1) {
			uint64_t m = t[0] & mask;
			if (m >= half) {
				/* d = m - 2^w < 0: t -= d, i.e. t += 2^w - m. */
				d = (int)m - (int)full;
				uint64_t add = full - m;
				for (size_t j = 0; j < n && add; j++) {
					t[j] += add;
					add = t[j] < add;
				}
			} else {
				d = (int)m;
				t[0] -= m;
			}
			len = i + 1;
		}
		digits[i++] = (int8_t)d;
		for (size_t j = 0; j + 1 < n; j++)
			t[j] = (t[j] >> 1) | (t[j + 1] << 63);
		t[n - 1] >>= 1;
	}
	return len;
}
