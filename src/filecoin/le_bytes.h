/*
 * Little-endian integers in byte strings, as Filecoin's formats and the
 * .pce labels store them: the low n bytes (n <= 8) of v.
 */
#ifndef ZKPD_FILECOIN_LE_BYTES_H
#define ZKPD_FILECOIN_LE_BYTES_H

#include <stdint.h>

static inline void zkp_put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t zkp_get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

#endif
