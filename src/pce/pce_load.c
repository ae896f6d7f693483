/*
 * Loading a .pce file: map it read-only and check it, so that nothing a file
 * can say makes evaluation read outside the mapping or the witness.
 *
 * Order of checks (docs/formats.md, "What the loader checks"): magic,
 * version, header checksum, dimensions, the section table against the
 * dimensions, section checksums (unless skipped), the circuit digest, the
 * values, and last a walk over every row of every matrix that bounds each
 * index the evaluator will follow. The walk costs one pass over the
 * columns and codes (about 5 bytes per non-zero); the checksums one
 * SHA-256 pass over the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "pce_int.h"
#include "zkpd/mapguard.h"

/* ---- shared with the writer ---- */

const char *pce_section_name(unsigned idx)
{
	static const char *const names[3 * PCE_MATRIX_SECTIONS] = {
		"A.row_len", "A.blocks", "A.cols", "A.codes", "A.escapes", "A.overflow", "A.values",
		"B.row_len", "B.blocks", "B.cols", "B.codes", "B.escapes", "B.overflow", "B.values",
		"C.row_len", "C.blocks", "C.cols", "C.codes", "C.escapes", "C.overflow", "C.values",
	};
	static const char *const density[3] = {
		"density.a_aux", "density.b_input", "density.b_aux",
	};
	if (idx < 3 * PCE_MATRIX_SECTIONS)
		return names[idx];
	if (idx < PCE_N_SECTIONS)
		return density[idx - 3 * PCE_MATRIX_SECTIONS];
	return "?";
}

bool pce_section_size(uint64_t *ret, const struct pce_header *h, unsigned idx)
{
	uint64_t count, unit;
	if (idx >= 3 * PCE_MATRIX_SECTIONS) {
		uint64_t bits = idx == PCE_SEC_DENSITY_B_INPUT ? h->n_inputs : h->n_aux;
		count = pce_bitmap_words(bits);
		unit = 8;
	} else {
		const struct pce_counts *c = &h->m[idx / PCE_MATRIX_SECTIONS];
		switch ((enum pce_kind)(idx % PCE_MATRIX_SECTIONS)) {
		case PCE_ROW_LEN: count = h->n_constraints; unit = 1; break;
		case PCE_BLOCKS: count = pce_blocks_of(h->n_constraints); unit = 16; break;
		case PCE_COLS: count = c->nnz; unit = 4; break;
		case PCE_CODES: count = c->nnz; unit = 1; break;
		case PCE_ESCAPES: count = c->n_escapes; unit = 4; break;
		case PCE_OVERFLOW: count = c->n_overflow; unit = 4; break;
		case PCE_VALUES: count = c->n_values; unit = ZKP_FR_BYTES; break;
		default: return false;
		}
	}
	return !__builtin_mul_overflow(count, unit, ret);
}

int pce_sha256(uint8_t out[32], const void *data, size_t len)
{
	unsigned int n = 0;
	return EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) == 1 ? 0 : ZKP_ERR_NOMEM;
}

int pce_compute_digest(uint8_t out[32], const struct pce_header *h,
		       const uint64_t sizes[PCE_N_SECTIONS],
		       const uint8_t shas[PCE_N_SECTIONS][32])
{
	/* 52 bytes of dimensions, then 44 bytes per section. */
	uint8_t buf[52 + PCE_N_SECTIONS * 44], *p = buf;
	pce_put_u64(p, h->n_inputs);
	pce_put_u64(p + 8, h->n_aux);
	pce_put_u64(p + 16, h->n_constraints);
	pce_put_u32(p + 24, h->domain_log2);
	for (int m = 0; m < 3; m++)
		pce_put_u64(p + 28 + 8 * m, h->m[m].nnz);
	p += 52;
	for (unsigned i = 0; i < PCE_N_SECTIONS; i++, p += 44) {
		pce_put_u32(p, pce_section_id(i));
		pce_put_u64(p + 4, sizes[i]);
		memcpy(p + 12, shas[i], 32);
	}
	return pce_sha256(out, buf, sizeof(buf));
}

/* ---- loader ---- */

struct loader {
	const char *path;
	const uint8_t *map;
	size_t size;
	struct pce_header h;
	uint64_t off[PCE_N_SECTIONS], len[PCE_N_SECTIONS];
	uint8_t sha[PCE_N_SECTIONS][32];
	zkp_error *err;
};

static void hex(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int check_header(struct loader *L)
{
	const uint8_t *p = L->map;
	const char *path = L->path;

	if (L->size >= PCE_MAGIC_BYTES && memcmp(p, PCE_MAGIC, PCE_MAGIC_BYTES) != 0)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: offset 0: bad magic, expected \"ZKPDPCE\\0\" (not a .pce file)",
				     path);
	if (L->size < PCE_TABLE_END)
		return zkp_error_set(L->err, ZKP_ERR_TRUNCATED,
				     "%s: %zu bytes, the header and section table need %u", path,
				     L->size, (unsigned)PCE_TABLE_END);
	uint32_t version = pce_get_u32(p + PCE_OFF_VERSION);
	if (version != PCE_VERSION)
		return zkp_error_set(L->err, ZKP_ERR_VERSION,
				     "%s: offset %d: format version %u, this build reads version %d",
				     path, PCE_OFF_VERSION, version, PCE_VERSION);

	uint8_t buf[PCE_TABLE_END], sha[32];
	memcpy(buf, p, PCE_TABLE_END);
	memset(buf + PCE_OFF_HEADER_SHA, 0, 32);
	int rc = pce_sha256(sha, buf, sizeof(buf));
	if (rc)
		return zkp_error_set(L->err, rc, "%s: SHA-256 unavailable", path);
	if (memcmp(sha, p + PCE_OFF_HEADER_SHA, 32) != 0)
		return zkp_error_set(L->err, ZKP_ERR_CHECKSUM,
				     "%s: header (bytes 0..%d with the section table): SHA-256 at offset %d does not match",
				     path, PCE_TABLE_END, PCE_OFF_HEADER_SHA);

	uint32_t flags = pce_get_u32(p + PCE_OFF_FLAGS);
	if (flags != 0)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: offset %d: unknown flags 0x%x, expected 0", path,
				     PCE_OFF_FLAGS, flags);
	uint32_t block_rows = pce_get_u32(p + PCE_OFF_BLOCK_ROWS);
	if (block_rows != ZKP_PCE_BLOCK_ROWS)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: offset %d: block_rows %u, expected %d", path,
				     PCE_OFF_BLOCK_ROWS, block_rows, ZKP_PCE_BLOCK_ROWS);
	uint32_t nsec = pce_get_u32(p + PCE_OFF_N_SECTIONS);
	if (nsec != PCE_N_SECTIONS)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: offset %d: %u sections, expected %d", path,
				     PCE_OFF_N_SECTIONS, nsec, PCE_N_SECTIONS);

	struct pce_header *h = &L->h;
	h->n_inputs = pce_get_u64(p + PCE_OFF_N_INPUTS);
	h->n_aux = pce_get_u64(p + PCE_OFF_N_AUX);
	h->n_constraints = pce_get_u64(p + PCE_OFF_N_CONSTRAINTS);
	h->domain_log2 = pce_get_u32(p + PCE_OFF_DOMAIN_LOG2);
	h->file_size = pce_get_u64(p + PCE_OFF_FILE_SIZE);
	for (int m = 0; m < 3; m++) {
		const uint8_t *q = p + PCE_OFF_MATRICES + 32 * m;
		h->m[m].nnz = pce_get_u64(q);
		h->m[m].n_values = pce_get_u64(q + 8);
		h->m[m].n_escapes = pce_get_u64(q + 16);
		h->m[m].n_overflow = pce_get_u64(q + 24);
	}
	memcpy(h->digest, p + PCE_OFF_DIGEST, 32);
	memcpy(h->label, p + PCE_OFF_LABEL, ZKP_PCE_LABEL_BYTES);

	if (h->file_size > L->size)
		return zkp_error_set(L->err, ZKP_ERR_TRUNCATED,
				     "%s: %zu bytes, the header (offset %d) says %llu", path,
				     L->size, PCE_OFF_FILE_SIZE, (unsigned long long)h->file_size);
	if (h->file_size < L->size)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: %zu bytes, the header (offset %d) says %llu: trailing bytes",
				     path, L->size, PCE_OFF_FILE_SIZE, (unsigned long long)h->file_size);

	if (h->n_inputs == 0 || h->n_inputs > ((uint64_t)1 << 32) ||
	    h->n_aux > ((uint64_t)1 << 32) - h->n_inputs)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: offset %d: %llu inputs and %llu aux variables, expected 1 <= inputs and inputs + aux <= 2^32",
				     path, PCE_OFF_N_INPUTS, (unsigned long long)h->n_inputs,
				     (unsigned long long)h->n_aux);
	if (h->n_constraints > ((uint64_t)1 << PCE_MAX_DOMAIN_LOG2) ||
	    pce_domain_log2(h->n_constraints + h->n_inputs) != h->domain_log2)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: offset %d: domain_log2 %u for %llu constraints and %llu inputs, expected %u (at most %d)",
				     path, PCE_OFF_DOMAIN_LOG2, h->domain_log2,
				     (unsigned long long)h->n_constraints,
				     (unsigned long long)h->n_inputs,
				     pce_domain_log2(h->n_constraints + h->n_inputs),
				     PCE_MAX_DOMAIN_LOG2);
	for (int m = 0; m < 3; m++) {
		const struct pce_counts *c = &h->m[m];
		/* Indices into these arrays are u32 (block entries, escapes). */
		if (c->n_values > UINT32_MAX || c->n_escapes > c->nnz || c->n_escapes > UINT32_MAX ||
		    c->n_overflow > h->n_constraints)
			return zkp_error_set(L->err, ZKP_ERR_FORMAT,
					     "%s: offset %d: matrix %c counts out of range (nnz %llu, values %llu, escapes %llu, overflow %llu for %llu rows)",
					     path, PCE_OFF_MATRICES + 32 * m, "ABC"[m],
					     (unsigned long long)c->nnz, (unsigned long long)c->n_values,
					     (unsigned long long)c->n_escapes,
					     (unsigned long long)c->n_overflow,
					     (unsigned long long)h->n_constraints);
	}
	return 0;
}

static int check_table(struct loader *L)
{
	uint64_t end = PCE_TABLE_END;
	for (unsigned i = 0; i < PCE_N_SECTIONS; i++) {
		const uint8_t *e = L->map + PCE_HEADER_BYTES + i * PCE_ENTRY_BYTES;
		unsigned eoff = PCE_HEADER_BYTES + i * PCE_ENTRY_BYTES;
		const char *name = pce_section_name(i);
		uint32_t id = pce_get_u32(e + PCE_ENT_ID);
		uint64_t off = pce_get_u64(e + PCE_ENT_OFFSET), size = pce_get_u64(e + PCE_ENT_SIZE);
		uint64_t want;

		if (id != pce_section_id(i))
			return zkp_error_set(L->err, ZKP_ERR_FORMAT,
					     "%s: offset %u: section table entry %u has id 0x%x, expected 0x%x (%s)",
					     L->path, eoff, i, id, pce_section_id(i), name);
		if (pce_get_u32(e + PCE_ENT_RESERVED) != 0 || pce_get_u64(e + PCE_ENT_PAD) != 0)
			return zkp_error_set(L->err, ZKP_ERR_FORMAT,
					     "%s: offset %u: section %s: reserved bytes are not zero",
					     L->path, eoff, name);
		if (!pce_section_size(&want, &L->h, i) || size != want)
			return zkp_error_set(L->err, ZKP_ERR_FORMAT,
					     "%s: offset %u: section %s is %llu bytes, the dimensions give %llu",
					     L->path, eoff, name, (unsigned long long)size,
					     (unsigned long long)want);
		if (off % PCE_ALIGN != 0 || off < end)
			return zkp_error_set(L->err, ZKP_ERR_FORMAT,
					     "%s: offset %u: section %s at offset %llu, expected a multiple of %d at or after %llu",
					     L->path, eoff, name, (unsigned long long)off, PCE_ALIGN,
					     (unsigned long long)end);
		if (off > L->size || size > L->size - off)
			return zkp_error_set(L->err, ZKP_ERR_FORMAT,
					     "%s: offset %u: section %s (offset %llu, %llu bytes) ends past the file (%zu bytes)",
					     L->path, eoff, name, (unsigned long long)off,
					     (unsigned long long)size, L->size);
		L->off[i] = off;
		L->len[i] = size;
		memcpy(L->sha[i], e + PCE_ENT_SHA, 32);
		end = off + size;
	}
	return 0;
}

static int check_sums(struct loader *L)
{
	for (unsigned i = 0; i < PCE_N_SECTIONS; i++) {
		uint8_t sha[32];
		int rc = pce_sha256(sha, L->map + L->off[i], L->len[i]);
		if (rc)
			return zkp_error_set(L->err, rc, "%s: SHA-256 unavailable", L->path);
		if (memcmp(sha, L->sha[i], 32) != 0) {
			char want[65], got[65];
			hex(want, L->sha[i], 32);
			hex(got, sha, 32);
			return zkp_error_set(L->err, ZKP_ERR_CHECKSUM,
					     "%s: section %s (offset %llu, %llu bytes): SHA-256 is %s, the table says %s",
					     L->path, pce_section_name(i),
					     (unsigned long long)L->off[i],
					     (unsigned long long)L->len[i], got, want);
		}
	}
	return 0;
}

/* Values: canonical little-endian, each below r, into Montgomery form. */
static int load_values(struct loader *L, zkp_pce *pce, int m)
{
	unsigned idx = m * PCE_MATRIX_SECTIONS + PCE_VALUES;
	uint64_t n = L->h.m[m].n_values;
	pce->values[m] = malloc((n ? n : 1) * sizeof(zkp_fr));
	if (!pce->values[m])
		return zkp_error_set(L->err, ZKP_ERR_NOMEM, "%s: no memory for %llu values of %c",
				     L->path, (unsigned long long)n, "ABC"[m]);
	const uint8_t *p = L->map + L->off[idx];
	for (uint64_t i = 0; i < n; i++)
		if (zkp_fr_from_le(&pce->values[m][i], p + i * ZKP_FR_BYTES) != 0)
			return zkp_error_set(L->err, ZKP_ERR_NOT_CANONICAL,
					     "%s: section %s, offset %llu: value %llu is not below r",
					     L->path, pce_section_name(idx),
					     (unsigned long long)(L->off[idx] + i * ZKP_FR_BYTES),
					     (unsigned long long)i);
	return 0;
}

/* Walks every row of matrix m: row lengths and overflow add up to nnz, block
 * entries match the running offsets, columns are increasing and below
 * n_inputs + n_aux, codes and escapes point into values. */
static int walk_matrix(struct loader *L, const zkp_pce_csr *c, int m)
{
	const char *path = L->path;
	const unsigned base = m * PCE_MATRIX_SECTIONS;
	const uint64_t nvars = L->h.n_inputs + L->h.n_aux;
	uint64_t k = 0, ovf = 0, esc = 0;
	char mc = "ABC"[m];

	for (uint64_t r = 0; r < c->rows; r++) {
		if (r % ZKP_PCE_BLOCK_ROWS == 0) {
			const zkp_csr_block *b = &c->blocks[r / ZKP_PCE_BLOCK_ROWS];
			if (b->nnz_offset != k || b->overflow_index != ovf || b->escape_index != esc)
				return zkp_error_set(L->err, ZKP_ERR_FORMAT,
						     "%s: section %c.blocks, offset %llu: block %llu says (nnz %llu, overflow %u, escape %u), the rows before it give (%llu, %llu, %llu)",
						     path, mc,
						     (unsigned long long)(L->off[base + PCE_BLOCKS] +
									  16 * (r / ZKP_PCE_BLOCK_ROWS)),
						     (unsigned long long)(r / ZKP_PCE_BLOCK_ROWS),
						     (unsigned long long)b->nnz_offset,
						     b->overflow_index, b->escape_index,
						     (unsigned long long)k, (unsigned long long)ovf,
						     (unsigned long long)esc);
		}
		uint64_t len = c->row_len[r];
		if (len == PCE_ROW_LEN_OVERFLOW) {
			if (ovf >= c->n_overflow)
				return zkp_error_set(L->err, ZKP_ERR_FORMAT,
						     "%s: section %c.row_len, offset %llu: row %llu needs overflow entry %llu, there are %llu",
						     path, mc,
						     (unsigned long long)(L->off[base + PCE_ROW_LEN] + r),
						     (unsigned long long)r, (unsigned long long)ovf,
						     (unsigned long long)c->n_overflow);
			len = c->overflow[ovf];
			if (len < PCE_ROW_LEN_OVERFLOW)
				return zkp_error_set(L->err, ZKP_ERR_FORMAT,
						     "%s: section %c.overflow, offset %llu: length %llu of row %llu, expected >= %d",
						     path, mc,
						     (unsigned long long)(L->off[base + PCE_OVERFLOW] + 4 * ovf),
						     (unsigned long long)len, (unsigned long long)r,
						     PCE_ROW_LEN_OVERFLOW);
			ovf++;
		}
		if (len > c->nnz - k)
			return zkp_error_set(L->err, ZKP_ERR_FORMAT,
					     "%s: section %c.row_len: row %llu has %llu terms, only %llu of nnz %llu are left",
					     path, mc, (unsigned long long)r, (unsigned long long)len,
					     (unsigned long long)(c->nnz - k), (unsigned long long)c->nnz);
		for (uint64_t end = k + len, first = k; k < end; k++) {
			uint32_t col = c->cols[k];
			if (col >= nvars || (k > first && col <= c->cols[k - 1]))
				return zkp_error_set(L->err, ZKP_ERR_FORMAT,
						     "%s: section %c.cols, offset %llu: column %u in row %llu, expected %s below %llu",
						     path, mc,
						     (unsigned long long)(L->off[base + PCE_COLS] + 4 * k),
						     col, (unsigned long long)r,
						     k > first ? "increasing columns" : "a column",
						     (unsigned long long)nvars);
			uint8_t code = c->codes[k];
			uint64_t vi;
			if (code == PCE_CODE_ESCAPE) {
				if (esc >= c->n_escapes)
					return zkp_error_set(L->err, ZKP_ERR_FORMAT,
							     "%s: section %c.codes, offset %llu: escape %llu, there are %llu",
							     path, mc,
							     (unsigned long long)(L->off[base + PCE_CODES] + k),
							     (unsigned long long)esc,
							     (unsigned long long)c->n_escapes);
				vi = c->escapes[esc];
				if (vi >= c->n_values)
					return zkp_error_set(L->err, ZKP_ERR_FORMAT,
							     "%s: section %c.escapes, offset %llu: value index %llu, there are %llu values",
							     path, mc,
							     (unsigned long long)(L->off[base + PCE_ESCAPES] + 4 * esc),
							     (unsigned long long)vi,
							     (unsigned long long)c->n_values);
				esc++;
			} else if (code >= PCE_CODE_FIRST_VALUE &&
				   (vi = code - PCE_CODE_FIRST_VALUE) >= c->n_values) {
				return zkp_error_set(L->err, ZKP_ERR_FORMAT,
						     "%s: section %c.codes, offset %llu: code %u needs value %llu, there are %llu values",
						     path, mc,
						     (unsigned long long)(L->off[base + PCE_CODES] + k), code,
						     (unsigned long long)vi,
						     (unsigned long long)c->n_values);
			}
		}
	}
	if (k != c->nnz || ovf != c->n_overflow || esc != c->n_escapes)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: matrix %c: rows use %llu non-zeros, %llu overflow entries and %llu escapes, the header says %llu, %llu and %llu",
				     path, mc, (unsigned long long)k, (unsigned long long)ovf,
				     (unsigned long long)esc, (unsigned long long)c->nnz,
				     (unsigned long long)c->n_overflow, (unsigned long long)c->n_escapes);
	return 0;
}

/* Bits past the end of a density bitmap are zero. */
static int check_density(struct loader *L, unsigned idx, const uint64_t *words, uint64_t bits)
{
	uint64_t n = pce_bitmap_words(bits);
	if (bits % 64 != 0 && (words[n - 1] >> (bits % 64)) != 0)
		return zkp_error_set(L->err, ZKP_ERR_FORMAT,
				     "%s: section %s, offset %llu: bits set past variable %llu",
				     L->path, pce_section_name(idx),
				     (unsigned long long)(L->off[idx] + 8 * (n - 1)),
				     (unsigned long long)bits);
	return 0;
}

int zkp_pce_load(zkp_pce **ret, const char *path, unsigned flags, zkp_error *err)
{
	struct loader L = { .path = path, .err = err };
	zkp_pce *pce = NULL;
	int fd = -1, rc;
	struct stat st;

	*ret = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: open: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: fstat: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: not a regular file", path);
		goto out;
	}
	pce = calloc(1, sizeof(*pce));
	if (!pce) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: no memory", path);
		goto out;
	}
	L.size = (size_t)st.st_size;
	if (L.size < PCE_MAGIC_BYTES) {
		rc = zkp_error_set(err, ZKP_ERR_TRUNCATED, "%s: %zu bytes, the header needs %d",
				   path, L.size, PCE_HEADER_BYTES);
		goto out;
	}
	void *map = mmap(NULL, L.size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: mmap of %zu bytes: %s", path, L.size,
				   strerror(errno));
		goto out;
	}
	pce->map = L.map = map;
	pce->map_bytes = L.size;
	pce->guard = zkp_mapguard_add(map, L.size);

	if ((rc = check_header(&L)) || (rc = check_table(&L)))
		goto out;
	/* Every check from here reads the mapping; a file cut short meanwhile
	 * reads as zeros and is refused at the end (zkp_pce_damaged). */
	if (!(flags & ZKP_PCE_SKIP_CHECKSUMS) && (rc = check_sums(&L)))
		goto out;
	if ((rc = pce_compute_digest(pce->digest, &L.h, L.len, (const uint8_t(*)[32])L.sha))) {
		zkp_error_set(err, rc, "%s: SHA-256 unavailable", path);
		goto out;
	}
	if (memcmp(pce->digest, L.h.digest, 32) != 0) {
		rc = zkp_error_set(err, ZKP_ERR_FORMAT,
				   "%s: offset %d: circuit digest does not match the dimensions and section checksums",
				   path, PCE_OFF_DIGEST);
		goto out;
	}
	memcpy(pce->label, L.h.label, ZKP_PCE_LABEL_BYTES);

	zkp_pce_dims *d = &pce->dims;
	d->n_inputs = L.h.n_inputs;
	d->n_aux = L.h.n_aux;
	d->n_constraints = L.h.n_constraints;
	d->domain_log2 = L.h.domain_log2;
	for (int m = 0; m < 3; m++) {
		const unsigned base = m * PCE_MATRIX_SECTIONS;
		const uint8_t *p = L.map;
		zkp_pce_csr *c = &pce->m[m];
		d->nnz[m] = L.h.m[m].nnz;
		c->rows = L.h.n_constraints;
		c->nnz = L.h.m[m].nnz;
		c->n_values = L.h.m[m].n_values;
		c->n_escapes = L.h.m[m].n_escapes;
		c->n_overflow = L.h.m[m].n_overflow;
		c->row_len = p + L.off[base + PCE_ROW_LEN];
		c->blocks = (const zkp_csr_block *)(p + L.off[base + PCE_BLOCKS]);
		c->cols = (const uint32_t *)(p + L.off[base + PCE_COLS]);
		c->codes = p + L.off[base + PCE_CODES];
		c->escapes = (const uint32_t *)(p + L.off[base + PCE_ESCAPES]);
		c->overflow = (const uint32_t *)(p + L.off[base + PCE_OVERFLOW]);
		for (unsigned k = 0; k < PCE_MATRIX_SECTIONS; k++)
			pce->matrix_bytes += L.len[base + k];
		if ((rc = load_values(&L, pce, m)))
			goto out;
		c->values = pce->values[m];
	}
	for (int m = 0; m < 3; m++)
		if ((rc = walk_matrix(&L, &pce->m[m], m)))
			goto out;
	for (unsigned i = 0; i < 3; i++) {
		unsigned idx = PCE_SEC_DENSITY_A_AUX + i;
		pce->density[i] = (const uint64_t *)(L.map + L.off[idx]);
		rc = check_density(&L, idx, pce->density[i],
				   idx == PCE_SEC_DENSITY_B_INPUT ? d->n_inputs : d->n_aux);
		if (rc)
			goto out;
	}
	if (zkp_pce_damaged(pce)) {
		rc = zkp_error_set(err, ZKP_ERR_TRUNCATED,
				   "%s: the file was cut short while it was being read", path);
		goto out;
	}
	*ret = pce;
	pce = NULL;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	zkp_pce_free(pce);
	return rc;
}

void zkp_pce_free(zkp_pce *pce)
{
	if (!pce)
		return;
	for (int m = 0; m < 3; m++)
		free(pce->values[m]);
	zkp_mapguard_remove(pce->guard);
	if (pce->map)
		munmap((void *)pce->map, pce->map_bytes);
	free(pce);
}

bool zkp_pce_damaged(const zkp_pce *pce)
{
	return zkp_mapguard_damaged(pce->guard);
}

const zkp_pce_dims *zkp_pce_get_dims(const zkp_pce *pce) { return &pce->dims; }

const zkp_pce_csr *zkp_pce_matrix(const zkp_pce *pce, enum zkp_pce_matrix m)
{
	return &pce->m[m];
}

const uint8_t *zkp_pce_digest(const zkp_pce *pce) { return pce->digest; }

const uint8_t *zkp_pce_label(const zkp_pce *pce) { return pce->label; }

const uint64_t *zkp_pce_density_a_aux(const zkp_pce *pce) { return pce->density[0]; }
const uint64_t *zkp_pce_density_b_input(const zkp_pce *pce) { return pce->density[1]; }
const uint64_t *zkp_pce_density_b_aux(const zkp_pce *pce) { return pce->density[2]; }

size_t zkp_pce_mapped_bytes(const zkp_pce *pce) { return pce->map_bytes; }

double zkp_pce_bytes_per_nnz(const zkp_pce *pce)
{
	uint64_t nnz = pce->dims.nnz[0] + pce->dims.nnz[1] + pce->dims.nnz[2];
	return nnz ? (double)pce->matrix_bytes / (double)nnz : 0.0;
}
