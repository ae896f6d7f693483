/*
 * Writing a .pce file: coding the values, encoding rows into sections, and
 * the atomic file (temporary name, fsync, rename, fsync of the directory).
 *
 * Each matrix's values are ranked by frequency (ties by canonical value,
 * so the same circuit always gives the same bytes and digest), which fixes
 * every count, section size and offset before a byte is written. Every
 * section is then streamed through a buffered sink that hashes and pwrites
 * it at its offset. A memory builder encodes all its rows at
 * zkp_pce_builder_write, one matrix at a time; a counting builder's second
 * pass (pce_stream.c) encodes each row as it arrives, through the same
 * pce_encode_row, so both write the same bytes for the same rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_int.h"

/* ---- section sinks ---- */

#define SINK_BUF (256 * 1024)

static int pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (w == 0)
			return EIO;
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static void sink_flush(struct sink *s)
{
	if (s->fill == 0 || s->err)
		return;
	if (EVP_DigestUpdate(s->ctx, s->buf, s->fill) != 1)
		s->err = -1;
	else
		s->err = pwrite_all(s->fd, s->buf, s->fill, s->off);
	s->off += s->fill;
	s->fill = 0;
}

/* A sink for a section of len bytes at off: its buffer is never larger
 * than the section, so small sections cost little. */
static int sink_open(struct sink *s, int fd, uint64_t off, uint64_t len)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->off = off;
	s->cap = len >= SINK_BUF ? SINK_BUF : len ? (size_t)len : 1;
	s->buf = malloc(s->cap);
	s->ctx = EVP_MD_CTX_new();
	if (!s->buf || !s->ctx || EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL) != 1)
		return ZKP_ERR_NOMEM;
	return 0;
}

static void sink_put(struct sink *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->total += n;
	while (n > 0) {
		size_t k = s->cap - s->fill < n ? s->cap - s->fill : n;
		memcpy(s->buf + s->fill, p, k);
		s->fill += k;
		p += k;
		n -= k;
		if (s->fill == s->cap)
			sink_flush(s);
	}
}

static inline void sink_u8(struct sink *s, uint8_t v)
{
	s->buf[s->fill++] = v;
	s->total++;
	if (s->fill == s->cap)
		sink_flush(s);
}

static inline void sink_u32(struct sink *s, uint32_t v)
{
	uint8_t b[4];
	pce_put_u32(b, v);
	sink_put(s, b, 4);
}

/* Flushes, finishes the hash and frees; returns the sticky error. */
static int sink_close(struct sink *s, uint8_t sha[32])
{
	unsigned int n = 0;
	if (s->buf)
		sink_flush(s);
	if (!s->err && s->ctx && EVP_DigestFinal_ex(s->ctx, sha, &n) != 1)
		s->err = -1;
	EVP_MD_CTX_free(s->ctx);
	free(s->buf);
	s->ctx = NULL;
	s->buf = NULL;
	return s->err;
}

/* ---- coding ---- */

struct rank {
	uint64_t count;
	uint64_t canon[ZKP_FR_LIMBS];
	uint32_t vid;
};

static int cmp_rank(const void *x, const void *y)
{
	const struct rank *a = x, *b = y;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	for (int i = ZKP_FR_LIMBS - 1; i >= 0; i--)
		if (a->canon[i] != b->canon[i])
			return a->canon[i] < b->canon[i] ? -1 : 1;
	return 0;
}

int pce_coding_make(struct coding *cd, const zkp_pce_builder *b, const uint64_t *uses)
{
	struct rank *r = NULL;
	size_t nr = 0;

	memset(cd, 0, sizeof(*cd));
	cd->code = malloc(b->n_vals);
	cd->idx = malloc(b->n_vals * sizeof(uint32_t));
	cd->order = malloc(b->n_vals * sizeof(uint32_t));
	for (size_t v = 2; v < b->n_vals; v++)
		nr += uses[v] != 0;
	r = malloc((nr ? nr : 1) * sizeof(*r));
	if (!cd->code || !cd->idx || !cd->order || !r) {
		free(r);
		pce_coding_release(cd);
		return ZKP_ERR_NOMEM;
	}
	nr = 0;
	for (size_t v = 2; v < b->n_vals; v++) {
		if (!uses[v])
			continue;
		r[nr].count = uses[v];
		zkp_fr_to_limbs(r[nr].canon, &b->vals[v]);
		r[nr].vid = (uint32_t)v;
		nr++;
	}
	qsort(r, nr, sizeof(*r), cmp_rank);

	cd->code[VID_ONE] = PCE_CODE_ONE;
	cd->code[VID_MINUS_ONE] = PCE_CODE_MINUS_ONE;
	cd->n_values = nr;
	for (size_t i = 0; i < nr; i++) {
		uint32_t v = r[i].vid;
		cd->order[i] = v;
		cd->idx[v] = (uint32_t)i;
		if (i < PCE_SHORT_CODES) {
			cd->code[v] = (uint8_t)(PCE_CODE_FIRST_VALUE + i);
		} else {
			cd->code[v] = PCE_CODE_ESCAPE;
			cd->n_escapes += r[i].count;
		}
	}
	free(r);
	return 0;
}

void pce_coding_release(struct coding *cd)
{
	free(cd->code);
	free(cd->idx);
	free(cd->order);
	memset(cd, 0, sizeof(*cd));
}

/* ---- encoding ---- */

void pce_encode_row(struct sink *s, const struct coding *cd, const struct bterm *t, uint64_t len,
		    uint64_t r, struct row_pos *pos)
{
	if (r % ZKP_PCE_BLOCK_ROWS == 0) {
		uint8_t e[16];
		pce_put_u64(e, pos->nnz);
		pce_put_u32(e + 8, (uint32_t)pos->n_overflow);
		pce_put_u32(e + 12, (uint32_t)pos->n_escapes);
		sink_put(&s[PCE_BLOCKS], e, 16);
	}
	if (len < PCE_ROW_LEN_OVERFLOW) {
		sink_u8(&s[PCE_ROW_LEN], (uint8_t)len);
	} else {
		sink_u8(&s[PCE_ROW_LEN], PCE_ROW_LEN_OVERFLOW);
		sink_u32(&s[PCE_OVERFLOW], (uint32_t)len);
		pos->n_overflow++;
	}
	for (uint64_t k = 0; k < len; k++) {
		uint8_t code = cd->code[t[k].vid];
		sink_u32(&s[PCE_COLS], t[k].col);
		sink_u8(&s[PCE_CODES], code);
		if (code == PCE_CODE_ESCAPE) {
			sink_u32(&s[PCE_ESCAPES], cd->idx[t[k].vid]);
			pos->n_escapes++;
		}
	}
	pos->nnz += len;
}

void pce_put_values(struct sink *s, const zkp_pce_builder *b, const struct coding *cd)
{
	for (uint64_t i = 0; i < cd->n_values; i++) {
		uint8_t v[ZKP_FR_BYTES];
		zkp_fr_to_le(v, &b->vals[cd->order[i]]);
		sink_put(&s[PCE_VALUES], v, sizeof(v));
	}
}

/* ---- the file ---- */

static void put_header(uint8_t *p, const struct pce_header *h, const uint64_t *off,
		       const uint64_t *len, const uint8_t (*sha)[32])
{
	memset(p, 0, PCE_TABLE_END);
	memcpy(p + PCE_OFF_MAGIC, PCE_MAGIC, PCE_MAGIC_BYTES);
	pce_put_u32(p + PCE_OFF_VERSION, PCE_VERSION);
	pce_put_u64(p + PCE_OFF_N_INPUTS, h->n_inputs);
	pce_put_u64(p + PCE_OFF_N_AUX, h->n_aux);
	pce_put_u64(p + PCE_OFF_N_CONSTRAINTS, h->n_constraints);
	pce_put_u32(p + PCE_OFF_DOMAIN_LOG2, h->domain_log2);
	pce_put_u32(p + PCE_OFF_BLOCK_ROWS, ZKP_PCE_BLOCK_ROWS);
	pce_put_u32(p + PCE_OFF_N_SECTIONS, PCE_N_SECTIONS);
	pce_put_u64(p + PCE_OFF_FILE_SIZE, h->file_size);
	for (int m = 0; m < 3; m++) {
		uint8_t *q = p + PCE_OFF_MATRICES + 32 * m;
		pce_put_u64(q, h->m[m].nnz);
		pce_put_u64(q + 8, h->m[m].n_values);
		pce_put_u64(q + 16, h->m[m].n_escapes);
		pce_put_u64(q + 24, h->m[m].n_overflow);
	}
	memcpy(p + PCE_OFF_DIGEST, h->digest, 32);
	memcpy(p + PCE_OFF_LABEL, h->label, ZKP_PCE_LABEL_BYTES);
	for (unsigned i = 0; i < PCE_N_SECTIONS; i++) {
		uint8_t *e = p + PCE_HEADER_BYTES + i * PCE_ENTRY_BYTES;
		pce_put_u32(e + PCE_ENT_ID, pce_section_id(i));
		pce_put_u64(e + PCE_ENT_OFFSET, off[i]);
		pce_put_u64(e + PCE_ENT_SIZE, len[i]);
		memcpy(e + PCE_ENT_SHA, sha[i], 32);
	}
}

static int fsync_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL;
	int rc = 0;
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return ENOMEM;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0)
		rc = errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

int pce_file_plan(struct pce_file *f, const zkp_pce_builder *b, uint64_t rows,
		  const struct pce_counts c[3], zkp_error *err)
{
	struct pce_header *h = &f->h;

	memset(h, 0, sizeof(*h));
	h->n_inputs = b->n_inputs;
	memcpy(h->label, b->label, ZKP_PCE_LABEL_BYTES);
	h->n_aux = b->n_aux;
	h->n_constraints = rows;
	h->domain_log2 = pce_domain_log2(rows + b->n_inputs);
	if (h->domain_log2 > PCE_MAX_DOMAIN_LOG2)
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "%s: %llu constraints and %llu inputs need a domain of 2^%u, at most 2^%d is supported",
				     f->path, (unsigned long long)rows,
				     (unsigned long long)b->n_inputs, h->domain_log2,
				     PCE_MAX_DOMAIN_LOG2);
	for (int m = 0; m < 3; m++) {
		if (c[m].n_escapes > UINT32_MAX)
			return zkp_error_set(err, ZKP_ERR_RANGE,
					     "%s: matrix %c has %llu escaped coefficients, at most 2^32 - 1 fit",
					     f->path, "ABC"[m], (unsigned long long)c[m].n_escapes);
		h->m[m] = c[m];
	}
	uint64_t pos = PCE_TABLE_END;
	for (unsigned i = 0; i < PCE_N_SECTIONS; i++) {
		pce_section_size(&f->len[i], h, i);
		pos = (pos + PCE_ALIGN - 1) & ~(uint64_t)(PCE_ALIGN - 1);
		f->off[i] = pos;
		pos += f->len[i];
	}
	h->file_size = pos;
	return 0;
}

int pce_file_create(struct pce_file *f, zkp_error *err)
{
	f->tmp = malloc(strlen(f->path) + sizeof(".tmp.XXXXXX"));
	if (!f->tmp)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: no memory", f->path);
	strcpy(f->tmp, f->path);
	strcat(f->tmp, ".tmp.XXXXXX");
	f->fd = mkstemp(f->tmp);
	if (f->fd < 0) {
		int rc = zkp_error_set(err, ZKP_ERR_IO, "%s: creating a temporary file: %s",
				       f->path, strerror(errno));
		free(f->tmp);
		f->tmp = NULL;
		return rc;
	}
	fcntl(f->fd, F_SETFD, FD_CLOEXEC);
	if (fchmod(f->fd, 0644) != 0 || ftruncate(f->fd, (off_t)f->h.file_size) != 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: sizing %s: %s", f->path, f->tmp,
				     strerror(errno));
	return 0;
}

int pce_file_open_sinks(struct pce_file *f, struct sink *s, int m, zkp_error *err)
{
	const unsigned base = (unsigned)m * PCE_MATRIX_SECTIONS;
	int rc = 0;

	memset(s, 0, PCE_MATRIX_SECTIONS * sizeof(*s));
	for (unsigned k = 0; k < PCE_MATRIX_SECTIONS; k++)
		if (!rc)
			rc = sink_open(&s[k], f->fd, f->off[base + k], f->len[base + k]);
	if (!rc)
		return 0;
	pce_sinks_drop(s);
	return zkp_error_set(err, rc, "%s: no memory", f->path);
}

void pce_sinks_drop(struct sink *s)
{
	for (unsigned k = 0; k < PCE_MATRIX_SECTIONS; k++) {
		EVP_MD_CTX_free(s[k].ctx);
		free(s[k].buf);
		s[k].ctx = NULL;
		s[k].buf = NULL;
	}
}

int pce_file_close_sinks(struct pce_file *f, struct sink *s, int m, zkp_error *err)
{
	const unsigned base = (unsigned)m * PCE_MATRIX_SECTIONS;
	int e = 0;

	for (unsigned k = 0; k < PCE_MATRIX_SECTIONS; k++) {
		int ek = sink_close(&s[k], f->sha[base + k]);
		if (!e)
			e = ek;
		if (!ek && s[k].total != f->len[base + k])
			abort(); /* the size formulas and the encoder disagree */
	}
	if (!e)
		return 0;
	return zkp_error_set(err, e < 0 ? ZKP_ERR_NOMEM : ZKP_ERR_IO,
			     "%s: writing matrix %c to %s: %s", f->path, "ABC"[m], f->tmp,
			     e < 0 ? "SHA-256 failed" : strerror(e));
}

int pce_file_finish(struct pce_file *f, const zkp_pce_builder *b, zkp_error *err)
{
	uint8_t head[PCE_TABLE_END];
	int rc, e;

	for (unsigned d = 0; d < 3; d++) {
		unsigned idx = PCE_SEC_DENSITY_A_AUX + d;
		if ((rc = pce_sha256(f->sha[idx], b->density[d], f->len[idx])))
			return zkp_error_set(err, rc, "%s: SHA-256 failed", f->path);
		if ((e = pwrite_all(f->fd, (const uint8_t *)b->density[d], f->len[idx], f->off[idx])))
			return zkp_error_set(err, ZKP_ERR_IO, "%s: writing %s: %s", f->path, f->tmp,
					     strerror(e));
	}

	if ((rc = pce_compute_digest(f->h.digest, &f->h, f->len, (const uint8_t(*)[32])f->sha)))
		return zkp_error_set(err, rc, "%s: SHA-256 failed", f->path);
	put_header(head, &f->h, f->off, f->len, (const uint8_t(*)[32])f->sha);
	if ((rc = pce_sha256(head + PCE_OFF_HEADER_SHA, head, PCE_TABLE_END)))
		return zkp_error_set(err, rc, "%s: SHA-256 failed", f->path);
	if ((e = pwrite_all(f->fd, head, PCE_TABLE_END, 0)))
		return zkp_error_set(err, ZKP_ERR_IO, "%s: writing %s: %s", f->path, f->tmp,
				     strerror(e));

	/* Data reaches the disk before the name points at it, and the rename
	 * itself is made durable by syncing the directory. */
	if (fsync(f->fd) != 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: fsync of %s: %s", f->path, f->tmp,
				     strerror(errno));
	e = close(f->fd);
	f->fd = -1;
	if (e != 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: close of %s: %s", f->path, f->tmp,
				     strerror(errno));
	if (rename(f->tmp, f->path) != 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: rename from %s: %s", f->path, f->tmp,
				     strerror(errno));
	/* The file is complete under its final name. */
	free(f->tmp);
	f->tmp = NULL;
	if ((e = fsync_dir_of(f->path)))
		return zkp_error_set(err, ZKP_ERR_IO, "%s: fsync of the directory: %s", f->path,
				     strerror(e));
	return 0;
}

void pce_file_release(struct pce_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
}

/* ---- a memory builder's write ----
 *
 * The three matrices are independent: their codes, and then their
 * sections (each its own sinks and hashes, at offsets fixed by the plan),
 * are made on a thread each, the caller's and two more (on the caller
 * alone where a thread cannot start). A is the largest (about 43 % of
 * PoRep's non-zeros), so the write takes about as long as A's. */

struct matrix_job {
	zkp_pce_builder *b;
	struct pce_file *f; /* NULL: the coding phase */
	struct coding *cd;
	int m, rc;
	zkp_error err;
};

/* Encodes every row of matrix m, then its values. */
static void write_matrix(struct sink *s, const zkp_pce_builder *b, int m, const struct coding *cd)
{
	const struct lcs *l = &b->m[m];
	struct row_pos pos = { 0 };

	for (uint64_t r = 0; r < b->rows; r++) {
		uint64_t len = l->row_len[r];
		if (len == PCE_ROW_LEN_OVERFLOW)
			len = l->overflow[pos.n_overflow];
		pce_encode_row(s, cd, l->t + pos.nnz, len, r, &pos);
	}
	pce_put_values(s, b, cd);
}

/* One matrix's phase: its coding from the uses of its values, or (with f)
 * its sections. */
static void *matrix_phase(void *arg)
{
	struct matrix_job *j = arg;
	const struct lcs *l = &j->b->m[j->m];
	if (!j->f) {
		uint64_t *uses = calloc(j->b->n_vals, sizeof(uint64_t));
		if (uses)
			for (size_t k = 0; k < l->nnz; k++)
				uses[l->t[k].vid]++;
		j->rc = uses ? pce_coding_make(j->cd, j->b, uses) : ZKP_ERR_NOMEM;
		if (j->rc)
			zkp_error_set(&j->err, j->rc, "no memory for matrix %c's coding", "ABC"[j->m]);
		free(uses);
		return NULL;
	}
	struct sink s[PCE_MATRIX_SECTIONS];
	if ((j->rc = pce_file_open_sinks(j->f, s, j->m, &j->err)))
		return NULL;
	write_matrix(s, j->b, j->m, j->cd);
	j->rc = pce_file_close_sinks(j->f, s, j->m, &j->err);
	return NULL;
}

/* Runs matrix_phase for the three matrices at once; the first error. */
static int each_matrix(struct matrix_job job[3], zkp_error *err)
{
	pthread_t t[3];
	bool started[3] = { false, false, false };
	for (int m = 1; m < 3; m++)
		started[m] = pthread_create(&t[m], NULL, matrix_phase, &job[m]) == 0;
	matrix_phase(&job[0]);
	for (int m = 1; m < 3; m++) {
		if (started[m])
			pthread_join(t[m], NULL);
		else
			matrix_phase(&job[m]);
	}
	for (int m = 0; m < 3; m++)
		if (job[m].rc) {
			*err = job[m].err;
			return job[m].rc;
		}
	return 0;
}

static int write_memory(zkp_pce_builder *b, const char *path, zkp_error *err)
{
	struct pce_file f = { .path = path, .fd = -1 };
	struct coding cd[3] = { { 0 } };
	struct pce_counts c[3];
	struct matrix_job job[3];
	int rc = 0;

	/* Codes first: the header and every offset follow from them. */
	for (int m = 0; m < 3; m++)
		job[m] = (struct matrix_job){ .b = b, .cd = &cd[m], .m = m };
	if ((rc = each_matrix(job, err))) {
		rc = zkp_error_set(err, rc, "%s: %s", path, job[0].rc ? job[0].err.msg :
							   job[1].rc ? job[1].err.msg : job[2].err.msg);
		goto out;
	}
	for (int m = 0; m < 3; m++)
		c[m] = (struct pce_counts){ b->m[m].nnz, cd[m].n_values, cd[m].n_escapes,
					    b->m[m].n_overflow };
	if ((rc = pce_file_plan(&f, b, b->rows, c, err)) || (rc = pce_file_create(&f, err)))
		goto out;
	for (int m = 0; m < 3; m++)
		job[m].f = &f;
	if ((rc = each_matrix(job, err)))
		goto out;
	rc = pce_file_finish(&f, b, err);
out:
	pce_file_release(&f);
	for (int m = 0; m < 3; m++)
		pce_coding_release(&cd[m]);
	return rc;
}

int zkp_pce_builder_write(zkp_pce_builder *b, const char *path, zkp_error *err)
{
	if (b->stream)
		return pce_stream_write(b, path, err);
	if (b->counting)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%s: a counting builder holds no rows; write it after zkp_pce_builder_stream_begin and a second pass",
				     path);
	return write_memory(b, path, err);
}
