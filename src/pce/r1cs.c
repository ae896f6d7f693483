/*
 * circom .r1cs import (docs/formats.md, '.r1cs'): the file is
 * mapped, its header checked, and its constraints streamed into a caller's
 * callback (usually a zkp_pce_builder) one at a time, so nothing but the
 * terms of one constraint is ever held besides what the callback keeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zkpd/r1cs.h"
#include "circom_int.h"

/* Pages of section 2 already parsed are dropped from the mapping in steps of
 * this many bytes, so resident memory does not grow with the file. */
#define RELEASE_STEP ((size_t)64 << 20)

/* One term on disk: u32 wire, 32-byte coefficient. */
#define TERM_BYTES (4 + ZKP_FR_BYTES)

/* Section 1: n8, prime, nWires, nPubOut, nPubIn, nPrvIn (u32 each), nLabels
 * (u64), mConstraints (u32). */
#define HEADER_BYTES (4 + ZKP_FR_BYTES + 4 * 4 + 8 + 4)

struct zkp_r1cs {
	const uint8_t *buf;
	size_t len;
	void *map; /* owned mapping of buf, or NULL when borrowed */
	char *name;
	circom_section secs[CIRCOM_MAX_SECTION_ID + 1];
	zkp_r1cs_info info;
	zkp_pce_term *scratch[3];
	size_t cap[3];
};

static const char MATRIX_NAME[3] = { 'A', 'B', 'C' };

static int parse_header(zkp_r1cs *r, zkp_error *err)
{
	const char *name = r->name;
	circom_section *secs = r->secs;
	int rc = circom_read_sections(r->buf, r->len, name, "r1cs", 1, secs, err);
	if (rc)
		return rc;
	for (int id = 4; id <= 5; id++)
		if (secs[id].present)
			return zkp_error_set(err, ZKP_ERR_UNSUPPORTED,
					     "%s: section %d at offset %zu holds PLONK custom "
					     "gates; Groth16 needs a plain R1CS (compile without "
					     "custom templates)",
					     name, id, secs[id].offset - 12);
	if (!secs[1].present)
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%s: no header section (id 1)", name);
	if (!secs[2].present)
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%s: no constraints section (id 2)",
				     name);
	rc = circom_check_prime(r->buf, &secs[1], name, err);
	if (rc)
		return rc;
	if (secs[1].size != HEADER_BYTES)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: header section (id 1) at offset %zu is %zu bytes, "
				     "expected %d",
				     name, secs[1].offset, secs[1].size, HEADER_BYTES);

	const uint8_t *p = r->buf + secs[1].offset + 4 + ZKP_FR_BYTES;
	size_t off = secs[1].offset + 4 + ZKP_FR_BYTES;
	zkp_r1cs_info *in = &r->info;
	in->field_bytes = ZKP_FR_BYTES;
	in->n_wires = circom_u32(p);
	in->n_pub_out = circom_u32(p + 4);
	in->n_pub_in = circom_u32(p + 8);
	in->n_prv_in = circom_u32(p + 12);
	in->n_labels = circom_u64(p + 16);
	in->n_constraints = circom_u32(p + 24);
	in->file_bytes = r->len;

	if (in->n_wires == 0)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: offset %zu: nWires is 0; wire 0 is the constant ONE",
				     name, off);
	uint64_t declared = 1 + (uint64_t)in->n_pub_out + in->n_pub_in + in->n_prv_in;
	if (declared > in->n_wires)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: offset %zu: nWires %" PRIu32 " cannot hold ONE, nPubOut %" PRIu32
				     ", nPubIn %" PRIu32 " and nPrvIn %" PRIu32
				     " (%" PRIu64 " wires)",
				     name, off, in->n_wires, in->n_pub_out, in->n_pub_in,
				     in->n_prv_in, declared);
	if (in->n_labels < in->n_wires)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: offset %zu: nLabels %" PRIu64 " is below nWires %" PRIu32
				     "; every wire has its own label",
				     name, off + 16, in->n_labels, in->n_wires);
	/* Each constraint takes at least its three term counts. */
	if ((uint64_t)in->n_constraints * 12 > secs[2].size)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: offset %zu: mConstraints %" PRIu32
				     " needs at least %" PRIu64
				     " bytes, but the constraints section (id 2) is %zu",
				     name, off + 24, in->n_constraints,
				     (uint64_t)in->n_constraints * 12, secs[2].size);
	if (secs[3].present && secs[3].size != (uint64_t)in->n_wires * 8)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: wire-to-label section (id 3) at offset %zu is %zu "
				     "bytes; nWires %" PRIu32 " needs %" PRIu64,
				     name, secs[3].offset, secs[3].size, in->n_wires,
				     (uint64_t)in->n_wires * 8);
	in->n_inputs = 1 + (uint64_t)in->n_pub_out + in->n_pub_in;
	in->n_aux = in->n_wires - in->n_inputs;
	return 0;
}

static int open_common(zkp_r1cs **ret, zkp_r1cs *r, const char *name, zkp_error *err)
{
	r->name = strdup(name);
	if (!r->name) {
		zkp_r1cs_free(r);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", name);
	}
	int rc = parse_header(r, err);
	if (rc) {
		zkp_r1cs_free(r);
		return rc;
	}
	*ret = r;
	return 0;
}

int zkp_r1cs_open_buffer(zkp_r1cs **ret, const uint8_t *buf, size_t len, const char *name,
			 zkp_error *err)
{
	*ret = NULL;
	if (!name)
		name = "r1cs";
	zkp_r1cs *r = calloc(1, sizeof(*r));
	if (!r)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", name);
	r->buf = len ? buf : (const uint8_t *)"";
	r->len = len;
	return open_common(ret, r, name, err);
}

int zkp_r1cs_open(zkp_r1cs **ret, const char *path, zkp_error *err)
{
	*ret = NULL;
	zkp_r1cs *r = calloc(1, sizeof(*r));
	if (!r)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(r);
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: not a regular file", path);
	} else if (st.st_size > 0) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			rc = zkp_error_set(err, ZKP_ERR_IO, "%s: cannot map %jd bytes: %s", path,
					   (intmax_t)st.st_size, strerror(errno));
		} else {
			madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
			r->map = map;
			r->buf = map;
			r->len = (size_t)st.st_size;
		}
	} else {
		r->buf = (const uint8_t *)"";
	}
	close(fd);
	if (rc) {
		free(r);
		return rc;
	}
	return open_common(ret, r, path, err);
}

void zkp_r1cs_free(zkp_r1cs *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->len);
	for (int m = 0; m < 3; m++)
		free(r->scratch[m]);
	free(r->name);
	free(r);
}

const zkp_r1cs_info *zkp_r1cs_get_info(const zkp_r1cs *r)
{
	return &r->info;
}

static int reserve(zkp_r1cs *r, int m, size_t n, zkp_error *err)
{
	if (n <= r->cap[m])
		return 0;
	size_t cap = r->cap[m] ? r->cap[m] : 16;
	while (cap < n)
		cap *= 2;
	zkp_pce_term *t = realloc(r->scratch[m], cap * sizeof(*t));
	if (!t)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: cannot hold %zu terms", r->name, n);
	r->scratch[m] = t;
	r->cap[m] = cap;
	return 0;
}

/* Drops the mapped pages below pos (whole pages only). */
static void release_behind(zkp_r1cs *r, size_t pos, size_t *released)
{
	if (!r->map || pos - *released < RELEASE_STEP)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t upto = pos / page * page;
	if (upto > *released) {
		madvise((uint8_t *)r->map + *released, upto - *released, MADV_DONTNEED);
		*released = upto;
	}
}

int zkp_r1cs_for_each(zkp_r1cs *r, zkp_r1cs_constraint_fn fn, void *ctx, uint64_t nnz[3],
		      zkp_error *err)
{
	const char *name = r->name;
	const circom_section *sec = &r->secs[2];
	const uint8_t *buf = r->buf;
	size_t pos = sec->offset, end = sec->offset + sec->size;
	size_t released = 0;
	uint64_t total[3] = { 0, 0, 0 };
	uint32_t m = r->info.n_constraints, n_wires = r->info.n_wires;

	for (uint32_t row = 0; row < m; row++) {
		zkp_r1cs_lc lc[3];
		for (int k = 0; k < 3; k++) {
			if (end - pos < 4)
				return zkp_error_set(err, ZKP_ERR_FORMAT,
						     "%s: constraints section (id 2) ends at offset "
						     "%zu inside constraint %" PRIu32 " (%c) of the %" PRIu32
						     " that mConstraints declares",
						     name, end, row, MATRIX_NAME[k], m);
			uint32_t n = circom_u32(buf + pos);
			size_t at = pos;
			pos += 4;
			if (n > (end - pos) / TERM_BYTES)
				return zkp_error_set(err, ZKP_ERR_FORMAT,
						     "%s: offset %zu: constraint %" PRIu32 " (%c) "
						     "declares %" PRIu32 " terms, but the constraints "
						     "section (id 2) ends at offset %zu",
						     name, at, row, MATRIX_NAME[k], n, end);
			int rc = reserve(r, k, n, err);
			if (rc)
				return rc;
			zkp_pce_term *t = r->scratch[k];
			for (uint32_t j = 0; j < n; j++, pos += TERM_BYTES) {
				uint32_t wire = circom_u32(buf + pos);
				if (wire >= n_wires)
					return zkp_error_set(err, ZKP_ERR_FORMAT,
							     "%s: offset %zu: constraint %" PRIu32
							     " (%c) term %" PRIu32 ": wire %" PRIu32
							     " is not below nWires %" PRIu32,
							     name, pos, row, MATRIX_NAME[k], j, wire,
							     n_wires);
				if (zkp_fr_from_le(&t[j].coeff, buf + pos + 4) != 0)
					return zkp_error_set(err, ZKP_ERR_NOT_CANONICAL,
							     "%s: offset %zu: constraint %" PRIu32
							     " (%c) term %" PRIu32 ": coefficient of "
							     "wire %" PRIu32 " is not below r",
							     name, pos + 4, row, MATRIX_NAME[k], j,
							     wire);
				t[j].col = wire;
			}
			lc[k].terms = t;
			lc[k].n = n;
			total[k] += n;
		}
		if (fn) {
			int rc = fn(ctx, row, lc, err);
			if (rc)
				return rc;
		}
		release_behind(r, pos, &released);
	}
	if (pos != end)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: constraints section (id 2) has %zu bytes after the "
				     "%" PRIu32 " constraints that mConstraints declares (from "
				     "offset %zu)",
				     name, end - pos, m, pos);
	if (nnz)
		memcpy(nnz, total, sizeof(total));
	return 0;
}

static int add_to_builder(void *ctx, uint64_t row, const zkp_r1cs_lc lc[3], zkp_error *err)
{
	(void)row;
	return zkp_pce_builder_add(ctx, lc[0].terms, lc[0].n, lc[1].terms, lc[1].n,
				   lc[2].terms, lc[2].n, err);
}

int zkp_r1cs_build(zkp_r1cs *r, zkp_pce_builder **ret, zkp_error *err)
{
	*ret = NULL;
	zkp_pce_builder *b = NULL;
	int rc = zkp_pce_builder_new(&b, r->info.n_inputs, r->info.n_aux);
	if (rc)
		return zkp_error_set(err, rc, "%s: cannot start a circuit of %" PRIu64
				     " inputs and %" PRIu64 " aux variables: %s",
				     r->name, r->info.n_inputs, r->info.n_aux, zkp_strerror(rc));
	rc = zkp_r1cs_for_each(r, add_to_builder, b, NULL, err);
	if (rc) {
		zkp_pce_builder_free(b);
		return rc;
	}
	*ret = b;
	return 0;
}

int zkp_r1cs_compile(const char *r1cs_path, const char *pce_path, zkp_r1cs_info *info,
		     zkp_error *err)
{
	zkp_r1cs *r = NULL;
	zkp_pce_builder *b = NULL;
	int rc = zkp_r1cs_open(&r, r1cs_path, err);
	if (rc)
		goto out;
	if (info)
		*info = r->info;
	rc = zkp_r1cs_build(r, &b, err);
	if (rc)
		goto out;
	/* The matrices now live in the builder: unmap the source before the
	 * writer allocates its own buffers. */
	zkp_r1cs_free(r);
	r = NULL;
	rc = zkp_pce_builder_write(b, pce_path, err);
out:
	if (b)
		zkp_pce_builder_free(b);
	zkp_r1cs_free(r);
	return rc;
}
