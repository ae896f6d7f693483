/*
 * pce builder internals, shared by pce_build.c (adding rows), pce_write.c
 * (coding, sections and the atomic file) and pce_stream.c (the counting
 * pass and the streamed second pass).
 *
 * Invariants:
 *  - Interned coefficients have ids ("vids") in first-seen order, never
 *    renumbered: vid 0 is +1, vid 1 is -1, then the rest, n_vals in all.
 *  - A builder is either a memory builder (m[] holds every row) or a
 *    counting builder (tally[] holds counts only). stream is non-NULL only
 *    on a counting builder, from zkp_pce_builder_stream_begin until its
 *    second pass is written or abandoned; a stream never changes the
 *    counts, the values or the density bitmaps of the first pass.
 *  - row[m] holds the current constraint's merged terms (sorted by column,
 *    equal columns summed, zeros dropped) from merging until the row is
 *    stored, counted or encoded.
 *  - Every section's size and offset is fixed before its first byte is
 *    written; the encoders never put more bytes into a section than that.
 */
#ifndef ZKPD_PCE_BUILD_INT_H
#define ZKPD_PCE_BUILD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "pce_int.h"
#include "zkpd/error.h"
#include "zkpd/pce.h"

#define VID_ONE 0
#define VID_MINUS_ONE 1
#define VID_NONE UINT32_MAX /* a lookup that missed (second pass only) */
/* Where every fingerprint of rows starts (pce_stream.c). */
#define PCE_FINGERPRINT_SEED 0x243f6a8885a308d3ULL

struct bterm {
	uint32_t col, vid;
};

/* One matrix of a memory builder, in the file's row encoding. */
struct lcs {
	struct bterm *t;
	size_t nnz, cap;
	uint8_t *row_len; /* builder->rows_cap entries */
	uint32_t *overflow;
	size_t n_overflow, ovf_cap;
};

/* One matrix of a counting builder: what the layout and the coding need. */
struct tally {
	uint64_t nnz, n_overflow;
	uint64_t *uses; /* per vid, builder->uses_cap entries */
};

struct stream;

struct zkp_pce_builder {
	bool counting;
	uint64_t n_inputs, n_aux;
	uint64_t rows; /* rows added (a counting builder: rows counted) */
	uint64_t rows_cap;
	struct lcs m[3];
	struct tally tally[3];
	size_t uses_cap;
	uint64_t fingerprint; /* of the counted rows (pce_stream.c) */
	struct stream *stream;
	/* Interned coefficients: vals[0] = +1, vals[1] = -1, then the rest;
	 * slots hold vid + 1 (0 = empty), linear probing. */
	zkp_fr *vals;
	size_t n_vals, vals_cap;
	uint32_t *slots;
	size_t nslots;
	uint64_t *density[3]; /* a_aux, b_input, b_aux */
	struct bterm *row[3]; /* the current constraint, merged */
	size_t row_n[3], row_cap[3];
	zkp_pce_term *scratch;
	size_t scratch_cap;
	uint8_t label[ZKP_PCE_LABEL_BYTES];
};

/* ---- section sinks (pce_write.c): buffer, hash, pwrite at a fixed offset ---- */

struct sink {
	int fd;
	uint64_t off;   /* file offset of the next flush */
	uint64_t total; /* bytes put */
	uint8_t *buf;
	size_t fill, cap;
	EVP_MD_CTX *ctx;
	int err; /* first errno (or -1 for a hashing failure), sticky */
};

/* ---- coding (pce_write.c) ---- */

/* One matrix's coding of the interned values. */
struct coding {
	uint8_t *code;   /* per vid */
	uint32_t *idx;   /* per vid: position in the values section */
	uint32_t *order; /* values section order: vids */
	uint64_t n_values, n_escapes;
};

/* Ranks the values matrix m uses (uses[vid] times each, for vid < n_vals)
 * most frequent first, ties by canonical value, and gives the first 253
 * the one-byte codes 2..254; the rest escape. Allocates cd's arrays
 * (pce_coding_release frees them). 0 or ZKP_ERR_NOMEM. */
int pce_coding_make(struct coding *cd, const zkp_pce_builder *b, const uint64_t *uses);
void pce_coding_release(struct coding *cd);

/* Where one matrix's encoder stands: counts over the rows encoded so far. */
struct row_pos {
	uint64_t nnz, n_overflow, n_escapes;
};

/* Encodes row r of one matrix, its merged terms t[0..len), into that
 * matrix's sinks s[0..6] (table order): a block entry when r starts a
 * block, the length byte (and an overflow entry), then columns, codes and
 * escapes. Both builders encode through this, so they write the same
 * bytes for the same rows. */
void pce_encode_row(struct sink *s, const struct coding *cd, const struct bterm *t, uint64_t len,
		    uint64_t r, struct row_pos *pos);
/* The values section of one matrix, in cd's order. */
void pce_put_values(struct sink *s, const zkp_pce_builder *b, const struct coding *cd);

/* ---- the output file (pce_write.c) ---- */

/* A .pce being written: its layout, then a temporary file in the target's
 * directory that becomes path on pce_file_finish. Zero it and set fd = -1
 * before use; pce_file_release undoes whatever was done. */
struct pce_file {
	const char *path; /* the final name */
	char *tmp;        /* the temporary file while it exists */
	int fd;
	struct pce_header h;
	uint64_t off[PCE_N_SECTIONS], len[PCE_N_SECTIONS];
	uint8_t sha[PCE_N_SECTIONS][32];
};

/* Fills f->h from b's dimensions, rows and the per-matrix counts c, and
 * every section's size and offset. ZKP_ERR_RANGE (the domain would exceed
 * 2^28, or a matrix has 2^32 or more escapes), with detail in err. */
int pce_file_plan(struct pce_file *f, const zkp_pce_builder *b, uint64_t rows,
		  const struct pce_counts c[3], zkp_error *err);
/* Creates path.tmp.XXXXXX, mode 0644, sized to the file. ZKP_ERR_IO or
 * ZKP_ERR_NOMEM. */
int pce_file_create(struct pce_file *f, zkp_error *err);
/* Opens matrix m's seven sinks at their sections. ZKP_ERR_NOMEM. */
int pce_file_open_sinks(struct pce_file *f, struct sink *s, int m, zkp_error *err);
/* Frees matrix m's seven sinks (opened or zeroed) without writing what
 * they still buffer: for a file about to be removed. */
void pce_sinks_drop(struct sink *s);
/* Closes matrix m's seven sinks (always all of them) into f->sha.
 * ZKP_ERR_IO or ZKP_ERR_NOMEM (hashing) from the first failed write. */
int pce_file_close_sinks(struct pce_file *f, struct sink *s, int m, zkp_error *err);
/* Once every matrix section is written and hashed: writes b's density
 * bitmaps, the header with its digest, fsyncs, renames to f->path and
 * fsyncs the directory. ZKP_ERR_IO, ZKP_ERR_NOMEM. */
int pce_file_finish(struct pce_file *f, const zkp_pce_builder *b, zkp_error *err);
/* Closes the file and removes it unless it was renamed; frees f->tmp. */
void pce_file_release(struct pce_file *f);

/* ---- the two-pass builder (pce_stream.c) ---- */

/* Counts the merged row[] into tally[] and the fingerprint. ZKP_ERR_NOMEM
 * (the builder is unchanged). */
int pce_count_row(zkp_pce_builder *b);
/* Checks the merged row[] against the first pass and encodes it. On error
 * (ZKP_ERR_MISMATCH, ZKP_ERR_IO, detail in err) the caller abandons the
 * stream. */
int pce_stream_row(zkp_pce_builder *b, zkp_error *err);
uint64_t pce_stream_rows(const struct stream *st);
/* zkp_pce_builder_write on a streaming builder; the stream ends either way. */
int pce_stream_write(zkp_pce_builder *b, const char *path, zkp_error *err);
/* Ends the stream, removing its temporary file. */
void pce_stream_abandon(zkp_pce_builder *b);

#endif
