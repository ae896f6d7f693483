/*
 * Private to pce/: the binary container that circom's .r1cs and snarkjs's
 * .wtns share (docs/formats.md, 'The container'), and the prime check both
 * need. Implemented in witness.c.
 *
 * Container: 4-byte magic, u32 version, u32 number of sections, then each
 * section as u32 id, u64 body length, body. All little-endian.
 */
#ifndef ZKPD_CIRCOM_INT_H
#define ZKPD_CIRCOM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"

#define CIRCOM_MAX_SECTION_ID 8

typedef struct {
	bool present;
	size_t offset; /* of the body */
	size_t size;
} circom_section;

static inline uint32_t circom_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t circom_u64(const uint8_t *p)
{
	return (uint64_t)circom_u32(p) | (uint64_t)circom_u32(p + 4) << 32;
}

/* Checks magic and version and reads the section table of buf[0..len).
 * secs[1..CIRCOM_MAX_SECTION_ID] receive the sections with those ids (others
 * are skipped); an id in that range seen twice is ZKP_ERR_FORMAT. Errors:
 * ZKP_ERR_FORMAT (magic, duplicate, bytes after the last section),
 * ZKP_ERR_VERSION, ZKP_ERR_TRUNCATED (file ends inside the header, the table
 * or a section body), each naming `name` and the offset. */
int circom_read_sections(const uint8_t *buf, size_t len, const char *name,
			 const char magic[4], uint32_t version,
			 circom_section secs[CIRCOM_MAX_SECTION_ID + 1], zkp_error *err);

/* Checks that a header section (body at buf + sec->offset) starts with
 * n8 = 32 and BLS12-381's r. ZKP_ERR_WRONG_PRIME names the prime found (in
 * decimal, and by curve when it is a known one); ZKP_ERR_FORMAT when the
 * section is too short to hold them. */
int circom_check_prime(const uint8_t *buf, const circom_section *sec, const char *name,
		       zkp_error *err);

#endif
