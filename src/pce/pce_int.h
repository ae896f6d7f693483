/*
 * pce private: the on-disk layout of a .pce file (docs/formats.md is the
 * byte-by-byte description; this header and that page must agree).
 *
 * Invariants:
 *  - Every integer is little-endian; mapped arrays are used in place, so the
 *    layer builds only on little-endian hosts.
 *  - The header is PCE_HEADER_BYTES long, the section table follows it, and
 *    sections appear in the table in the fixed order of enum pce_section,
 *    each starting on a PCE_ALIGN boundary, in increasing offset order.
 *  - Section sizes follow from the header's counts (pce_section_size), so
 *    a loader checks them instead of trusting them.
 */
#ifndef ZKPD_PCE_INT_H
#define ZKPD_PCE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/pce.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .pce format is mapped in place and needs a little-endian host"
#endif

#define PCE_MAGIC "ZKPDPCE\0"
#define PCE_MAGIC_BYTES 8
#define PCE_VERSION 1
#define PCE_ALIGN 64
#define PCE_HEADER_BYTES 256
#define PCE_ENTRY_BYTES 64
#define PCE_MATRIX_SECTIONS 7
#define PCE_N_SECTIONS (3 * PCE_MATRIX_SECTIONS + 3)
#define PCE_TABLE_END (PCE_HEADER_BYTES + PCE_N_SECTIONS * PCE_ENTRY_BYTES)
#define PCE_MAX_DOMAIN_LOG2 28
#define PCE_ROW_LEN_OVERFLOW ZKP_CSR_ROW_LEN_OVERFLOW
#define PCE_CODE_ONE ZKP_CSR_CODE_ONE
#define PCE_CODE_MINUS_ONE ZKP_CSR_CODE_MINUS_ONE
#define PCE_CODE_FIRST_VALUE ZKP_CSR_CODE_FIRST_VALUE
#define PCE_CODE_ESCAPE ZKP_CSR_CODE_ESCAPE
#define PCE_SHORT_CODES (PCE_CODE_ESCAPE - PCE_CODE_FIRST_VALUE) /* 253 */

/* Header field offsets. */
enum {
	PCE_OFF_MAGIC = 0,
	PCE_OFF_VERSION = 8,
	PCE_OFF_FLAGS = 12,
	PCE_OFF_N_INPUTS = 16,
	PCE_OFF_N_AUX = 24,
	PCE_OFF_N_CONSTRAINTS = 32,
	PCE_OFF_DOMAIN_LOG2 = 40,
	PCE_OFF_BLOCK_ROWS = 44,
	PCE_OFF_N_SECTIONS = 48,
	PCE_OFF_RESERVED0 = 52,
	PCE_OFF_FILE_SIZE = 56,
	PCE_OFF_MATRICES = 64, /* 3 x 32 bytes: nnz, n_values, n_escapes, n_overflow */
	PCE_OFF_DIGEST = 160,
	PCE_OFF_HEADER_SHA = 192,
	PCE_OFF_LABEL = 224, /* 32 bytes: what the circuit is (zero: unlabelled) */
};

/* Section table entry field offsets (PCE_ENTRY_BYTES each). */
enum {
	PCE_ENT_ID = 0,
	PCE_ENT_RESERVED = 4,
	PCE_ENT_OFFSET = 8,
	PCE_ENT_SIZE = 16,
	PCE_ENT_SHA = 24,
	PCE_ENT_PAD = 56, /* 8 zero bytes */
};

/* Kinds of a matrix's sections, in table order. */
enum pce_kind {
	PCE_ROW_LEN,
	PCE_BLOCKS,
	PCE_COLS,
	PCE_CODES,
	PCE_ESCAPES,
	PCE_OVERFLOW,
	PCE_VALUES,
};

/* Table index of each section: matrix m's kind k is m * 7 + k, then the
 * density bitmaps. */
enum pce_section {
	PCE_SEC_DENSITY_A_AUX = 3 * PCE_MATRIX_SECTIONS,
	PCE_SEC_DENSITY_B_INPUT,
	PCE_SEC_DENSITY_B_AUX,
};

/* The id stored in the table: 0x10 * (m + 1) + k for matrix sections,
 * 0x40 + d for density bitmap d. */
static inline uint32_t pce_section_id(unsigned idx)
{
	if (idx < 3 * PCE_MATRIX_SECTIONS)
		return 0x10 * (idx / PCE_MATRIX_SECTIONS + 1) + idx % PCE_MATRIX_SECTIONS;
	return 0x40 + (idx - 3 * PCE_MATRIX_SECTIONS);
}

/* A loaded circuit: pointers into the read-only mapping, plus the values
 * tables converted to Montgomery form on the heap. */
struct zkp_pce {
	const uint8_t *map;
	size_t map_bytes;
	int guard; /* zkp_mapguard handle of the mapping (0: unguarded) */
	size_t matrix_bytes; /* the 21 matrix sections together */
	zkp_pce_dims dims;
	zkp_pce_csr m[3];
	zkp_fr *values[3];
	const uint64_t *density[3]; /* a_aux, b_input, b_aux */
	uint8_t digest[ZKP_PCE_DIGEST_BYTES];
	uint8_t label[ZKP_PCE_LABEL_BYTES];
};

/* "A.cols", "density.b_aux", ... for messages. */
const char *pce_section_name(unsigned idx);

/* On-disk block entry: the public struct is the file's layout. */
_Static_assert(sizeof(zkp_csr_block) == 16, "block entry is 16 bytes");

/* Per-matrix counts stored in the header. */
struct pce_counts {
	uint64_t nnz, n_values, n_escapes, n_overflow;
};

/* Everything the header says, decoded. */
struct pce_header {
	uint64_t n_inputs, n_aux, n_constraints;
	uint32_t domain_log2;
	uint64_t file_size;
	struct pce_counts m[3];
	uint8_t digest[32];
	uint8_t label[ZKP_PCE_LABEL_BYTES];
};

static inline uint64_t pce_blocks_of(uint64_t rows)
{
	return (rows + ZKP_PCE_BLOCK_ROWS - 1) / ZKP_PCE_BLOCK_ROWS;
}

static inline uint64_t pce_bitmap_words(uint64_t bits) { return (bits + 63) / 64; }

/* Smallest k >= 1 with 2^k >= n. */
static inline uint32_t pce_domain_log2(uint64_t n)
{
	uint32_t k = 1;
	while (k < 64 && ((uint64_t)1 << k) < n)
		k++;
	return k;
}

/* Byte size of section idx for the counts in h; false when it overflows
 * 64 bits (only a hostile header gets there). */
bool pce_section_size(uint64_t *ret, const struct pce_header *h, unsigned idx);

/* The circuit digest (docs/formats.md): SHA-256 over the dimensions and
 * every section's id, size and SHA-256, in table order. sizes and shas
 * are indexed by table position. Returns 0 or ZKP_ERR_NOMEM (OpenSSL). */
int pce_compute_digest(uint8_t out[32], const struct pce_header *h,
		       const uint64_t sizes[PCE_N_SECTIONS],
		       const uint8_t shas[PCE_N_SECTIONS][32]);

/* One-shot SHA-256 (OpenSSL EVP); 0 or ZKP_ERR_NOMEM. */
int pce_sha256(uint8_t out[32], const void *data, size_t len);

static inline void pce_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void pce_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t pce_get_u32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t pce_get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif
