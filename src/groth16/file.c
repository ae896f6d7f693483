/*
 * Files: read-only mappings of sources, atomic writes, whole-file digests.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "groth16_int.h"
#include "zkpd/mapguard.h"

int g16_file_open(struct g16_file *f, const char *path, zkp_error *err)
{
	memset(f, 0, sizeof(*f));
	f->path = path;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(f->fd, &f->st) != 0) {
		int e = errno;
		close(f->fd);
		f->fd = -1;
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(f->st.st_mode)) {
		close(f->fd);
		f->fd = -1;
		return zkp_error_set(err, ZKP_ERR_IO, "%s: not a regular file", path);
	}
	f->size = (size_t)f->st.st_size;
	if (f->size) {
		void *p = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			close(f->fd);
			f->fd = -1;
			return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot map %zu bytes: %s", path,
					     f->size, strerror(e));
		}
		madvise(p, f->size, MADV_SEQUENTIAL);
		f->data = p;
		f->guard = zkp_mapguard_add(p, f->size);
	}
	return 0;
}

int g16_file_check(const struct g16_file *f, zkp_error *err)
{
	if (!zkp_mapguard_damaged(f->guard))
		return 0;
	return zkp_error_set(err, ZKP_ERR_TRUNCATED,
			     "%s: the file was cut short while it was being read", f->path);
}

void g16_file_close(struct g16_file *f)
{
	zkp_mapguard_remove(f->guard);
	f->guard = 0;
	if (f->data)
		munmap((void *)f->data, f->size);
	if (f->fd >= 0)
		close(f->fd);
	f->data = NULL;
	f->fd = -1;
}

/* ---- atomic writes ---- */

int g16_writer_open(struct g16_writer *w, const char *path, zkp_error *err)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->path = strdup(path);
	char *dup = strdup(path);
	if (!w->path || !dup) {
		free(dup);
		g16_writer_abort(w);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
	}
	const char *dir = dirname(dup);
	char *base_dup = strdup(path);
	const char *base = base_dup ? basename(base_dup) : "key";
	size_t len = strlen(dir) + strlen(base) + 32;
	w->tmp = malloc(len);
	if (w->tmp)
		snprintf(w->tmp, len, "%s/.%s.tmp.XXXXXX", dir, base);
	free(base_dup);
	free(dup);
	if (!w->tmp) {
		g16_writer_abort(w);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
	}
	w->fd = mkstemp(w->tmp);
	if (w->fd < 0) {
		int e = errno;
		int rc = zkp_error_set(err, ZKP_ERR_IO, "%s: cannot create %s: %s", path, w->tmp,
				       strerror(e));
		free(w->tmp);
		w->tmp = NULL;
		g16_writer_abort(w);
		return rc;
	}
	return 0;
}

int g16_writer_write(struct g16_writer *w, const void *p, size_t n, zkp_error *err)
{
	const uint8_t *b = p;
	while (n) {
		/* Some kernels cap one write near 2 GiB. */
		size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
		ssize_t k = write(w->fd, b, chunk);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return zkp_error_set(err, ZKP_ERR_IO, "%s: write failed: %s", w->tmp,
					     strerror(errno));
		}
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

int g16_writer_commit(struct g16_writer *w, zkp_error *err)
{
	if (fsync(w->fd) != 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: fsync failed: %s", w->tmp,
				     strerror(errno));
	if (fchmod(w->fd, 0644) != 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: chmod failed: %s", w->tmp,
				     strerror(errno));
	if (close(w->fd) != 0) {
		w->fd = -1;
		return zkp_error_set(err, ZKP_ERR_IO, "%s: close failed: %s", w->tmp,
				     strerror(errno));
	}
	w->fd = -1;
	if (rename(w->tmp, w->path) != 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: rename from %s failed: %s", w->path,
				     w->tmp, strerror(errno));
	free(w->tmp);
	w->tmp = NULL;
	/* Make the rename itself durable. */
	char *dup = strdup(w->path);
	if (dup) {
		int dfd = open(dirname(dup), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dup);
	}
	g16_writer_abort(w);
	return 0;
}

void g16_writer_abort(struct g16_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	w->tmp = NULL;
	w->path = NULL;
	w->fd = -1;
}

int g16_write_file(const char *path, const void *p, size_t n, zkp_error *err)
{
	struct g16_writer w;
	int rc = g16_writer_open(&w, path, err);
	if (rc)
		return rc;
	rc = g16_writer_write(&w, p, n, err);
	if (!rc)
		rc = g16_writer_commit(&w, err);
	g16_writer_abort(&w);
	return rc;
}

/* ---- digests ---- */

#define PIECE ((size_t)64 << 20)

int g16_sha256(uint8_t out[32], const uint8_t *data, size_t len)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	for (size_t off = 0; ok && off < len; off += PIECE)
		ok = EVP_DigestUpdate(c, data + off, len - off < PIECE ? len - off : PIECE);
	ok = ok && EVP_DigestFinal_ex(c, out, NULL);
	EVP_MD_CTX_free(c);
	return ok ? 0 : ZKP_ERR_NOMEM;
}

int g16_sha256_file(uint8_t out[32], const struct g16_file *f)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	for (size_t off = 0; ok && off < f->size; off += PIECE) {
		size_t n = f->size - off < PIECE ? f->size - off : PIECE;
		ok = EVP_DigestUpdate(c, f->data + off, n);
		/* Hashed pages leave this process's resident set (the page
		 * cache keeps them): otherwise a multi-GiB key whose native
		 * cache is mapped next would count twice in the peak RSS. */
		madvise((void *)(f->data + off), n, MADV_DONTNEED);
	}
	ok = ok && EVP_DigestFinal_ex(c, out, NULL);
	EVP_MD_CTX_free(c);
	return ok ? 0 : ZKP_ERR_NOMEM;
}

#define TREE_CHUNK ((size_t)4 << 20)

struct tree_job {
	const uint8_t *data;
	size_t len;
	uint8_t (*digests)[32];
	_Atomic int failed;
};

static void tree_chunk(void *arg, size_t begin, size_t end)
{
	struct tree_job *j = arg;
	for (size_t i = begin; i < end; i++) {
		size_t off = i * TREE_CHUNK;
		size_t n = j->len - off < TREE_CHUNK ? j->len - off : TREE_CHUNK;
		if (!EVP_Digest(j->data + off, n, j->digests[i], NULL, EVP_sha256(), NULL))
			j->failed = 1;
	}
}

int g16_tree_digest(uint8_t out[32], const uint8_t *data, size_t len, zkp_pool *pool)
{
	size_t nchunks = (len + TREE_CHUNK - 1) / TREE_CHUNK;
	uint8_t (*digests)[32] = malloc((nchunks ? nchunks : 1) * 32);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = digests && c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	if (ok) {
		uint8_t lenb[8];
		for (int i = 0; i < 8; i++)
			lenb[i] = (uint8_t)((uint64_t)len >> (8 * i));
		struct tree_job j = { .data = data, .len = len, .digests = digests };
		zkp_pool_run(pool, nchunks, 1, tree_chunk, &j);
		ok = !j.failed && EVP_DigestUpdate(c, lenb, 8) &&
		     EVP_DigestUpdate(c, digests, nchunks * 32) && EVP_DigestFinal_ex(c, out, NULL);
	}
	EVP_MD_CTX_free(c);
	free(digests);
	return ok ? 0 : ZKP_ERR_NOMEM;
}

static int file_digest(uint8_t *out, unsigned outlen, const EVP_MD *md, const char *path,
		       zkp_error *err)
{
	struct g16_file f;
	int rc = g16_file_open(&f, path, err);
	if (rc)
		return rc;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned n = 0;
	if (!ctx || !EVP_DigestInit_ex(ctx, md, NULL)) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: cannot start a digest", path);
		goto out;
	}
	for (size_t off = 0; off < f.size; off += PIECE)
		EVP_DigestUpdate(ctx, f.data + off, f.size - off < PIECE ? f.size - off : PIECE);
	if (!EVP_DigestFinal_ex(ctx, out, &n) || n != outlen)
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: digest failed", path);
out:
	EVP_MD_CTX_free(ctx);
	g16_file_close(&f);
	return rc;
}

int zkp_groth16_file_blake2b512(uint8_t out[64], const char *path, zkp_error *err)
{
	return file_digest(out, 64, EVP_blake2b512(), path, err);
}

int zkp_groth16_file_sha256(uint8_t out[32], const char *path, zkp_error *err)
{
	return file_digest(out, 32, EVP_sha256(), path, err);
}
