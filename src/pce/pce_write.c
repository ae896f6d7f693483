/*
 * Building and writing a .pce file.
 *
 * Memory while building: 8 bytes per non-zero (u32 column, u32 value id)
 * plus one byte per row and matrix, whatever the coefficients are. A
 * coefficient is interned on arrival into one open-addressing table of the
 * distinct values (+1 and -1 have fixed ids 0 and 1 and never enter it), so
 * a PoRep-sized circuit (about 7 x 10^8 non-zeros, a few thousand distinct
 * values) needs about 6 GB instead of the 25 GB of 32-byte coefficients.
 *
 * Writing ranks each matrix's values by frequency (ties by canonical value,
 * so the same circuit always gives the same bytes and digest), then streams
 * every section through a buffered sink that hashes and pwrites it at its
 * precomputed offset: one pass over the terms per matrix, nothing
 * proportional to the file held in memory besides the builder itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "pce_int.h"

struct bterm {
	uint32_t col, vid;
};

/* One matrix under construction, in the file's row encoding. */
struct lcs {
	struct bterm *t;
	size_t nnz, cap;
	uint8_t *row_len; /* builder->rows_cap entries */
	uint32_t *overflow;
	size_t n_overflow, ovf_cap;
};

struct zkp_pce_builder {
	uint64_t n_inputs, n_aux, rows, rows_cap;
	struct lcs m[3];
	/* Interned coefficients: vals[0] = +1, vals[1] = -1, then the rest;
	 * slots hold vid + 1 (0 = empty), linear probing. */
	zkp_fr *vals;
	size_t n_vals, vals_cap;
	uint32_t *slots;
	size_t nslots;
	uint64_t *density[3]; /* a_aux, b_input, b_aux */
	zkp_pce_term *scratch;
	size_t scratch_cap;
};

#define VID_ONE 0
#define VID_MINUS_ONE 1
#define MAX_VALUES ((size_t)UINT32_MAX - 1)

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return ZKP_ERR_NOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int zkp_pce_builder_new(zkp_pce_builder **ret, uint64_t n_inputs, uint64_t n_aux)
{
	*ret = NULL;
	if (n_inputs == 0 || n_inputs > ((uint64_t)1 << 32) || n_aux > ((uint64_t)1 << 32) - n_inputs)
		return ZKP_ERR_INVAL;
	zkp_pce_builder *b = calloc(1, sizeof(*b));
	if (!b)
		return ZKP_ERR_NOMEM;
	b->n_inputs = n_inputs;
	b->n_aux = n_aux;
	b->nslots = 1024;
	b->slots = calloc(b->nslots, sizeof(uint32_t));
	b->vals_cap = 256;
	b->vals = malloc(b->vals_cap * sizeof(zkp_fr));
	b->density[0] = calloc(pce_bitmap_words(n_aux) + 1, 8);
	b->density[1] = calloc(pce_bitmap_words(n_inputs) + 1, 8);
	b->density[2] = calloc(pce_bitmap_words(n_aux) + 1, 8);
	if (!b->slots || !b->vals || !b->density[0] || !b->density[1] || !b->density[2]) {
		zkp_pce_builder_free(b);
		return ZKP_ERR_NOMEM;
	}
	zkp_fr_set_one(&b->vals[VID_ONE]);
	zkp_fr_neg(&b->vals[VID_MINUS_ONE], &b->vals[VID_ONE]);
	b->n_vals = 2;
	*ret = b;
	return 0;
}

void zkp_pce_builder_free(zkp_pce_builder *b)
{
	if (!b)
		return;
	for (int m = 0; m < 3; m++) {
		free(b->m[m].t);
		free(b->m[m].row_len);
		free(b->m[m].overflow);
		free(b->density[m]);
	}
	free(b->vals);
	free(b->slots);
	free(b->scratch);
	free(b);
}

uint64_t zkp_pce_builder_rows(const zkp_pce_builder *b) { return b->rows; }

/* ---- interning ---- */

static inline size_t hash_fr(const zkp_fr *v, size_t mask)
{
	/* Montgomery limbs of distinct values look random; one multiply mixes
	 * them enough for linear probing. */
	uint64_t x = v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ULL) ^ v->l[2] ^ v->l[3];
	x *= 0xbf58476d1ce4e5b9ULL;
	return (size_t)(x >> 17) & mask;
}

static int rehash(zkp_pce_builder *b)
{
	size_t n = b->nslots * 2, mask = n - 1;
	uint32_t *s = calloc(n, sizeof(uint32_t));
	if (!s)
		return ZKP_ERR_NOMEM;
	for (size_t vid = 2; vid < b->n_vals; vid++) {
		size_t h = hash_fr(&b->vals[vid], mask);
		while (s[h])
			h = (h + 1) & mask;
		s[h] = (uint32_t)vid + 1;
	}
	free(b->slots);
	b->slots = s;
	b->nslots = n;
	return 0;
}

static int intern(zkp_pce_builder *b, const zkp_fr *v, uint32_t *vid)
{
	if (zkp_fr_eq(v, &b->vals[VID_ONE])) {
		*vid = VID_ONE;
		return 0;
	}
	if (zkp_fr_eq(v, &b->vals[VID_MINUS_ONE])) {
		*vid = VID_MINUS_ONE;
		return 0;
	}
	size_t mask = b->nslots - 1, h = hash_fr(v, mask);
	for (; b->slots[h]; h = (h + 1) & mask) {
		uint32_t id = b->slots[h] - 1;
		if (zkp_fr_eq(&b->vals[id], v)) {
			*vid = id;
			return 0;
		}
	}
	if (b->n_vals >= MAX_VALUES)
		return ZKP_ERR_RANGE;
	if (grow((void **)&b->vals, &b->vals_cap, b->n_vals + 1, sizeof(zkp_fr)))
		return ZKP_ERR_NOMEM;
	b->vals[b->n_vals] = *v;
	b->slots[h] = (uint32_t)b->n_vals + 1;
	*vid = (uint32_t)b->n_vals++;
	/* Keep the load factor at most 1/2. */
	if (2 * b->n_vals > b->nslots && rehash(b))
		return ZKP_ERR_NOMEM;
	return 0;
}

/* ---- adding constraints ---- */

static int cmp_term(const void *x, const void *y)
{
	uint32_t a = ((const zkp_pce_term *)x)->col, c = ((const zkp_pce_term *)y)->col;
	return (a > c) - (a < c);
}

static void sort_terms(zkp_pce_term *t, size_t n)
{
	if (n > 16) {
		qsort(t, n, sizeof(*t), cmp_term);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		zkp_pce_term x = t[i];
		size_t j = i;
		for (; j > 0 && t[j - 1].col > x.col; j--)
			t[j] = t[j - 1];
		t[j] = x;
	}
}

/* Appends one linear combination as row b->rows of matrix m: sorted by
 * column, equal columns summed, zero sums dropped. */
static int append_lc(zkp_pce_builder *b, int m, const zkp_pce_term *in, size_t n)
{
	struct lcs *l = &b->m[m];
	const zkp_pce_term *t = in;
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = in[i - 1].col < in[i].col;
	if (!sorted) {
		if (grow((void **)&b->scratch, &b->scratch_cap, n, sizeof(zkp_pce_term)))
			return ZKP_ERR_NOMEM;
		memcpy(b->scratch, in, n * sizeof(*in));
		sort_terms(b->scratch, n);
		t = b->scratch;
	}
	if (grow((void **)&l->t, &l->cap, l->nnz + n, sizeof(struct bterm)))
		return ZKP_ERR_NOMEM;

	size_t start = l->nnz;
	for (size_t i = 0; i < n;) {
		zkp_fr sum = t[i].coeff;
		size_t j = i + 1;
		for (; j < n && t[j].col == t[i].col; j++)
			zkp_fr_add(&sum, &sum, &t[j].coeff);
		if (!zkp_fr_is_zero(&sum)) {
			uint32_t vid;
			int rc = intern(b, &sum, &vid);
			if (rc)
				return rc;
			l->t[l->nnz++] = (struct bterm){ t[i].col, vid };
		}
		i = j;
	}

	size_t len = l->nnz - start;
	if (len < PCE_ROW_LEN_OVERFLOW) {
		l->row_len[b->rows] = (uint8_t)len;
		return 0;
	}
	if (len > UINT32_MAX)
		return ZKP_ERR_RANGE;
	if (grow((void **)&l->overflow, &l->ovf_cap, l->n_overflow + 1, sizeof(uint32_t)))
		return ZKP_ERR_NOMEM;
	l->row_len[b->rows] = PCE_ROW_LEN_OVERFLOW;
	l->overflow[l->n_overflow++] = (uint32_t)len;
	return 0;
}

static inline void set_bit(uint64_t *w, uint64_t i) { w[i / 64] |= (uint64_t)1 << (i % 64); }

int zkp_pce_builder_add(zkp_pce_builder *b, const zkp_pce_term *a, size_t na,
			const zkp_pce_term *bt, size_t nb, const zkp_pce_term *c, size_t nc,
			zkp_error *err)
{
	const zkp_pce_term *lc[3] = { a, bt, c };
	const size_t n[3] = { na, nb, nc };
	const uint64_t nvars = b->n_inputs + b->n_aux;
	size_t saved_nnz[3], saved_ovf[3];

	for (int m = 0; m < 3; m++)
		for (size_t i = 0; i < n[m]; i++)
			if (lc[m][i].col >= nvars)
				return zkp_error_set(err, ZKP_ERR_RANGE,
						     "constraint %llu: %c term %zu has column %u, the circuit has %llu variables",
						     (unsigned long long)b->rows, "ABC"[m], i,
						     lc[m][i].col, (unsigned long long)nvars);
	if (b->rows >= ((uint64_t)1 << PCE_MAX_DOMAIN_LOG2))
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "constraint %llu: a circuit holds at most 2^%d constraints",
				     (unsigned long long)b->rows, PCE_MAX_DOMAIN_LOG2);
	if (b->rows == b->rows_cap) {
		size_t cap = b->rows_cap ? 2 * b->rows_cap : 1024;
		for (int m = 0; m < 3; m++) {
			uint8_t *p = realloc(b->m[m].row_len, cap);
			if (!p)
				return zkp_error_set(err, ZKP_ERR_NOMEM, "constraint %llu: no memory",
						     (unsigned long long)b->rows);
			b->m[m].row_len = p;
		}
		b->rows_cap = cap;
	}

	for (int m = 0; m < 3; m++) {
		saved_nnz[m] = b->m[m].nnz;
		saved_ovf[m] = b->m[m].n_overflow;
	}
	for (int m = 0; m < 3; m++) {
		int rc = append_lc(b, m, lc[m], n[m]);
		if (rc) {
			for (int k = 0; k < 3; k++) {
				b->m[k].nnz = saved_nnz[k];
				b->m[k].n_overflow = saved_ovf[k];
			}
			return zkp_error_set(err, rc, "constraint %llu: %s",
					     (unsigned long long)b->rows,
					     rc == ZKP_ERR_RANGE ? "too many distinct coefficients or terms"
								 : "no memory");
		}
	}

	/* Density counts only the terms that survived merging. */
	for (int m = 0; m < 2; m++) {
		const struct lcs *l = &b->m[m];
		for (size_t k = saved_nnz[m]; k < l->nnz; k++) {
			uint64_t col = l->t[k].col;
			if (col >= b->n_inputs)
				set_bit(b->density[m == 0 ? 0 : 2], col - b->n_inputs);
			else if (m == 1)
				set_bit(b->density[1], col);
		}
	}
	b->rows++;
	return 0;
}

/* ---- section sinks: buffer, hash, pwrite at a fixed offset ---- */

#define SINK_BUF (256 * 1024)

struct sink {
	int fd;
	uint64_t off;   /* file offset of the next flush */
	uint64_t total; /* bytes put */
	uint8_t *buf;
	size_t fill;
	EVP_MD_CTX *ctx;
	int err; /* first errno (or -1 for a hashing failure), sticky */
};

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

static int sink_open(struct sink *s, int fd, uint64_t off)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->off = off;
	s->buf = malloc(SINK_BUF);
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
		size_t k = SINK_BUF - s->fill < n ? SINK_BUF - s->fill : n;
		memcpy(s->buf + s->fill, p, k);
		s->fill += k;
		p += k;
		n -= k;
		if (s->fill == SINK_BUF)
			sink_flush(s);
	}
}

static inline void sink_u8(struct sink *s, uint8_t v)
{
	s->buf[s->fill++] = v;
	s->total++;
	if (s->fill == SINK_BUF)
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
	sink_flush(s);
	if (!s->err && s->ctx && EVP_DigestFinal_ex(s->ctx, sha, &n) != 1)
		s->err = -1;
	EVP_MD_CTX_free(s->ctx);
	free(s->buf);
	s->ctx = NULL;
	s->buf = NULL;
	return s->err;
}

/* ---- writing ---- */

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

/* Per-matrix coding of the interned values. */
struct coding {
	uint8_t *code;  /* per vid */
	uint32_t *idx;  /* per vid: position in the values section */
	uint32_t *order; /* values section order: vids */
	uint64_t n_values, n_escapes;
};

/* Counts matrix m's uses of each value, ranks them (most frequent first,
 * ties by canonical value) and assigns codes: the first 253 ranks get the
 * one-byte codes 2..254, the rest escape. */
static int make_coding(struct coding *cd, const zkp_pce_builder *b, int m, uint64_t *counts)
{
	const struct lcs *l = &b->m[m];
	struct rank *r = NULL;
	size_t nr = 0;

	memset(counts, 0, b->n_vals * sizeof(uint64_t));
	for (size_t k = 0; k < l->nnz; k++)
		counts[l->t[k].vid]++;
	for (size_t v = 2; v < b->n_vals; v++)
		nr += counts[v] != 0;
	r = malloc((nr ? nr : 1) * sizeof(*r));
	if (!r)
		return ZKP_ERR_NOMEM;
	nr = 0;
	for (size_t v = 2; v < b->n_vals; v++) {
		if (!counts[v])
			continue;
		r[nr].count = counts[v];
		zkp_fr_to_limbs(r[nr].canon, &b->vals[v]);
		r[nr].vid = (uint32_t)v;
		nr++;
	}
	qsort(r, nr, sizeof(*r), cmp_rank);

	cd->code[VID_ONE] = PCE_CODE_ONE;
	cd->code[VID_MINUS_ONE] = PCE_CODE_MINUS_ONE;
	cd->n_values = nr;
	cd->n_escapes = 0;
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

/* Streams matrix m's seven sections into sinks s[0..6] (table order). */
static void write_matrix(struct sink *s, const zkp_pce_builder *b, int m, const struct coding *cd)
{
	const struct lcs *l = &b->m[m];
	uint64_t k = 0, ovf = 0, esc = 0;

	for (uint64_t r = 0; r < b->rows; r++) {
		if (r % ZKP_PCE_BLOCK_ROWS == 0) {
			uint8_t e[16];
			pce_put_u64(e, k);
			pce_put_u32(e + 8, (uint32_t)ovf);
			pce_put_u32(e + 12, (uint32_t)esc);
			sink_put(&s[PCE_BLOCKS], e, 16);
		}
		uint64_t len = l->row_len[r];
		if (len == PCE_ROW_LEN_OVERFLOW)
			len = l->overflow[ovf++];
		for (uint64_t end = k + len; k < end; k++) {
			const struct bterm *t = &l->t[k];
			uint8_t code = cd->code[t->vid];
			sink_u32(&s[PCE_COLS], t->col);
			sink_u8(&s[PCE_CODES], code);
			if (code == PCE_CODE_ESCAPE) {
				sink_u32(&s[PCE_ESCAPES], cd->idx[t->vid]);
				esc++;
			}
		}
	}
	sink_put(&s[PCE_ROW_LEN], l->row_len, b->rows);
	for (size_t i = 0; i < l->n_overflow; i++)
		sink_u32(&s[PCE_OVERFLOW], l->overflow[i]);
	for (uint64_t i = 0; i < cd->n_values; i++) {
		uint8_t v[ZKP_FR_BYTES];
		zkp_fr_to_le(v, &b->vals[cd->order[i]]);
		sink_put(&s[PCE_VALUES], v, sizeof(v));
	}
}

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

int zkp_pce_builder_write(zkp_pce_builder *b, const char *path, zkp_error *err)
{
	struct pce_header h = { 0 };
	struct coding cd[3] = { { 0 } };
	struct sink s[PCE_MATRIX_SECTIONS];
	uint64_t off[PCE_N_SECTIONS], len[PCE_N_SECTIONS], *counts = NULL;
	uint8_t sha[PCE_N_SECTIONS][32];
	uint8_t *head = NULL;
	char *tmp = NULL;
	int fd = -1, rc = 0, e;
	bool sinks_open = false, tmp_made = false;

	memset(s, 0, sizeof(s));
	h.n_inputs = b->n_inputs;
	h.n_aux = b->n_aux;
	h.n_constraints = b->rows;
	h.domain_log2 = pce_domain_log2(b->rows + b->n_inputs);
	if (h.domain_log2 > PCE_MAX_DOMAIN_LOG2) {
		rc = zkp_error_set(err, ZKP_ERR_RANGE,
				   "%s: %llu constraints and %llu inputs need a domain of 2^%u, at most 2^%d is supported",
				   path, (unsigned long long)b->rows,
				   (unsigned long long)b->n_inputs, h.domain_log2,
				   PCE_MAX_DOMAIN_LOG2);
		goto out;
	}

	counts = malloc(b->n_vals * sizeof(uint64_t));
	head = malloc(PCE_TABLE_END);
	tmp = malloc(strlen(path) + sizeof(".tmp.XXXXXX"));
	if (!counts || !head || !tmp) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: no memory", path);
		goto out;
	}

	/* Codes first: the header and every offset follow from them. */
	for (int m = 0; m < 3; m++) {
		cd[m].code = malloc(b->n_vals);
		cd[m].idx = malloc(b->n_vals * sizeof(uint32_t));
		cd[m].order = malloc(b->n_vals * sizeof(uint32_t));
		if (!cd[m].code || !cd[m].idx || !cd[m].order ||
		    (rc = make_coding(&cd[m], b, m, counts))) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: no memory", path);
			goto out;
		}
		h.m[m].nnz = b->m[m].nnz;
		h.m[m].n_values = cd[m].n_values;
		h.m[m].n_escapes = cd[m].n_escapes;
		h.m[m].n_overflow = b->m[m].n_overflow;
		if (cd[m].n_escapes > UINT32_MAX) {
			rc = zkp_error_set(err, ZKP_ERR_RANGE,
					   "%s: matrix %c has %llu escaped coefficients, at most 2^32 - 1 fit",
					   path, "ABC"[m], (unsigned long long)cd[m].n_escapes);
			goto out;
		}
	}
	uint64_t pos = PCE_TABLE_END;
	for (unsigned i = 0; i < PCE_N_SECTIONS; i++) {
		pce_section_size(&len[i], &h, i);
		pos = (pos + PCE_ALIGN - 1) & ~(uint64_t)(PCE_ALIGN - 1);
		off[i] = pos;
		pos += len[i];
	}
	h.file_size = pos;

	strcpy(tmp, path);
	strcat(tmp, ".tmp.XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: creating a temporary file: %s", path,
				   strerror(errno));
		goto out;
	}
	tmp_made = true;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (fchmod(fd, 0644) != 0 || ftruncate(fd, (off_t)h.file_size) != 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: sizing %s: %s", path, tmp, strerror(errno));
		goto out;
	}

	for (int m = 0; m < 3; m++) {
		const unsigned base = m * PCE_MATRIX_SECTIONS;
		sinks_open = true;
		for (unsigned k = 0; k < PCE_MATRIX_SECTIONS; k++)
			if ((rc = sink_open(&s[k], fd, off[base + k]))) {
				zkp_error_set(err, rc, "%s: no memory", path);
				goto out;
			}
		write_matrix(s, b, m, &cd[m]);
		e = 0;
		for (unsigned k = 0; k < PCE_MATRIX_SECTIONS; k++) {
			int ek = sink_close(&s[k], sha[base + k]);
			if (!e)
				e = ek;
			if (!ek && s[k].total != len[base + k])
				abort(); /* the size formulas and the writer disagree */
		}
		sinks_open = false;
		if (e) {
			rc = zkp_error_set(err, e < 0 ? ZKP_ERR_NOMEM : ZKP_ERR_IO,
					   "%s: writing matrix %c to %s: %s", path, "ABC"[m], tmp,
					   e < 0 ? "SHA-256 failed" : strerror(e));
			goto out;
		}
	}
	for (unsigned d = 0; d < 3; d++) {
		unsigned idx = PCE_SEC_DENSITY_A_AUX + d;
		if ((rc = pce_sha256(sha[idx], b->density[d], len[idx]))) {
			zkp_error_set(err, rc, "%s: SHA-256 failed", path);
			goto out;
		}
		if ((e = pwrite_all(fd, (const uint8_t *)b->density[d], len[idx], off[idx]))) {
			rc = zkp_error_set(err, ZKP_ERR_IO, "%s: writing %s: %s", path, tmp, strerror(e));
			goto out;
		}
	}

	if ((rc = pce_compute_digest(h.digest, &h, len, (const uint8_t(*)[32])sha))) {
		zkp_error_set(err, rc, "%s: SHA-256 failed", path);
		goto out;
	}
	put_header(head, &h, off, len, (const uint8_t(*)[32])sha);
	if ((rc = pce_sha256(head + PCE_OFF_HEADER_SHA, head, PCE_TABLE_END))) {
		zkp_error_set(err, rc, "%s: SHA-256 failed", path);
		goto out;
	}
	if ((e = pwrite_all(fd, head, PCE_TABLE_END, 0))) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: writing %s: %s", path, tmp, strerror(e));
		goto out;
	}

	/* Data reaches the disk before the name points at it, and the rename
	 * itself is made durable by syncing the directory. */
	if (fsync(fd) != 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: fsync of %s: %s", path, tmp, strerror(errno));
		goto out;
	}
	e = close(fd);
	fd = -1;
	if (e != 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: close of %s: %s", path, tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, path) != 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: rename from %s: %s", path, tmp,
				   strerror(errno));
		goto out;
	}
	tmp_made = false; /* the file is complete under its final name */
	if ((e = fsync_dir_of(path)))
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: fsync of the directory: %s", path,
				   strerror(e));
out:
	if (sinks_open) {
		uint8_t ignored[32];
		for (unsigned k = 0; k < PCE_MATRIX_SECTIONS; k++)
			sink_close(&s[k], ignored);
	}
	if (fd >= 0)
		close(fd);
	if (tmp_made)
		unlink(tmp);
	free(tmp);
	free(head);
	free(counts);
	for (int m = 0; m < 3; m++) {
		free(cd[m].code);
		free(cd[m].idx);
		free(cd[m].order);
	}
	return rc;
}
