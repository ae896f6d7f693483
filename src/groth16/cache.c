/*
 * The native key cache (contract in groth16_io.h). File layout:
 *   [0, 4096)   header (struct cache_header, host byte order)
 *   [4096, ...) body: the key's backing block exactly as g16_layout lays it
 *               out (ic, h, l, a, b_g1, b_g2, each 64-byte aligned), so a
 *               read-only mapping of the file is the key.
 * A standalone key (flag CACHE_STANDALONE) has the same layout with no
 * source: it is the key itself, written by a development setup that makes
 * no .params (zkp setup --cache-only), and a load maps it directly.
 * The host tag pins byte order and the in-memory point layout; the version
 * pins the Montgomery convention. The header digest covers the header, the
 * body digest (g16_tree_digest) the body: a truncated, stale or bit-flipped
 * cache fails one of the checks and is rebuilt. Neither is a defence
 * against someone who can write the cache directory, who could as well
 * replace the key itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "groth16_int.h"
#include "zkpd/mapguard.h"

#define CACHE_MAGIC "ZKPDKEYC"
#define CACHE_VERSION 1
#define CACHE_HEADER_BYTES 4096
#define CACHE_HOST_TAG UINT64_C(0x0102030405060708)
#define CACHE_SUBGROUP_CHECKED 1u
#define CACHE_HAS_G1_EXTRAS 2u
#define CACHE_STANDALONE 4u

struct cache_fields {
	char magic[8];
	uint32_t version;
	uint32_t header_bytes;
	uint64_t host_tag;
	uint32_t sizeof_g1, sizeof_g2;
	uint32_t format, flags;
	uint32_t h_conv, ab_layout;
	uint8_t source_sha256[32];
	uint64_t source_bytes;
	int64_t source_mtime_sec, source_mtime_nsec;
	uint64_t source_ino, source_dev;
	uint64_t n_inputs, n_aux, domain_size;
	uint64_t zkey_coeffs_offset, zkey_coeffs_bytes, zkey_coeffs_count;
	uint64_t n[ZKP_GROTH16_NSECTIONS];
	uint64_t body_bytes;
	zkp_g1_affine alpha_g1, beta_g1, delta_g1;
	zkp_g2_affine beta_g2, gamma_g2, delta_g2;
	uint8_t body_digest[32];
};

struct cache_header {
	struct cache_fields f;
	uint8_t pad[CACHE_HEADER_BYTES - sizeof(struct cache_fields) - 32];
	uint8_t header_digest[32]; /* SHA-256 of everything above */
};
_Static_assert(sizeof(struct cache_header) == CACHE_HEADER_BYTES, "cache header size");

char *zkp_groth16_cache_path(const char *key_path, const char *cache_dir)
{
	const char *slash = strrchr(key_path, '/');
	const char *base = slash ? slash + 1 : key_path;
	size_t dirlen = cache_dir ? strlen(cache_dir) : (slash ? (size_t)(slash - key_path) : 1);
	const char *dir = cache_dir ? cache_dir : (slash ? key_path : ".");
	if (slash == key_path && !cache_dir)
		dirlen = 0; /* key in "/": dir is "" and the join gives "/name" */
	size_t len = dirlen + 1 + strlen(base) + sizeof(".zkpc");
	char *out = malloc(len);
	if (out)
		snprintf(out, len, "%.*s/%s.zkpc", (int)dirlen, dir, base);
	return out;
}

static void stat_fields(struct cache_fields *f, const struct stat *st)
{
	f->source_bytes = (uint64_t)st->st_size;
	f->source_mtime_sec = (int64_t)st->st_mtim.tv_sec;
	f->source_mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
	f->source_ino = (uint64_t)st->st_ino;
	f->source_dev = (uint64_t)st->st_dev;
}

static bool stat_matches(const struct cache_fields *f, const struct stat *st)
{
	struct cache_fields t;
	stat_fields(&t, st);
	return f->source_bytes == t.source_bytes && f->source_mtime_sec == t.source_mtime_sec &&
	       f->source_mtime_nsec == t.source_mtime_nsec && f->source_ino == t.source_ino &&
	       f->source_dev == t.source_dev;
}

#define MISS(...)                                                    \
	do {                                                         \
		zkp_error_set(note, ZKP_ERR_CHECKSUM, __VA_ARGS__); \
		goto miss;                                           \
	} while (0)

bool g16_cache_try_load(zkp_groth16_pk *pk, const char *cache_path, const struct g16_file *src,
			const uint8_t *digest, unsigned flags, zkp_pool *pool, bool *existed,
			zkp_error *note)
{
	struct cache_header h;
	void *map = MAP_FAILED;
	int guard = 0;
	size_t map_bytes = 0;
	*existed = false;
	int fd = open(cache_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			zkp_error_set(note, ZKP_ERR_IO, "%s: cannot open: %s", cache_path,
				      strerror(errno));
		return false;
	}
	*existed = true;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		MISS("%s: not a regular file", cache_path);
	if ((uint64_t)st.st_size < CACHE_HEADER_BYTES ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		MISS("%s: shorter than its header", cache_path);
	if (memcmp(h.f.magic, CACHE_MAGIC, 8) != 0 || h.f.version != CACHE_VERSION ||
	    h.f.header_bytes != CACHE_HEADER_BYTES || h.f.host_tag != CACHE_HOST_TAG ||
	    h.f.sizeof_g1 != sizeof(zkp_g1_affine) || h.f.sizeof_g2 != sizeof(zkp_g2_affine))
		MISS("%s: not a cache of this version and host", cache_path);
	uint8_t d[32];
	if (g16_sha256(d, (const uint8_t *)&h, offsetof(struct cache_header, header_digest)) ||
	    memcmp(d, h.header_digest, 32) != 0)
		MISS("%s: header digest mismatch", cache_path);
	if (!src) {
		if (!(h.f.flags & CACHE_STANDALONE))
			MISS("%s: a cache of another key file, not a key of its own", cache_path);
	} else if (h.f.flags & CACHE_STANDALONE) {
		MISS("%s: a standalone key, not a cache of %s", cache_path, src->path);
	} else if (digest) {
		if (h.f.source_bytes != src->size || memcmp(h.f.source_sha256, digest, 32) != 0)
			MISS("%s: made from another version of %s (digest differs)", cache_path,
			     src->path);
	} else if (!(flags & ZKP_GROTH16_CACHE_TRUST_STAT) || !stat_matches(&h.f, &src->st)) {
		MISS("%s: source size, mtime or inode changed", cache_path);
	}
	if (!(flags & ZKP_GROTH16_SKIP_SUBGROUP) && !(h.f.flags & CACHE_SUBGROUP_CHECKED))
		MISS("%s: made without subgroup checks, which this load requires", cache_path);
	if (src && (g16_is_zkey(src) ? ZKP_GROTH16_FMT_ZKEY : ZKP_GROTH16_FMT_PARAMS) != h.f.format)
		MISS("%s: made from a key of another format", cache_path);

	size_t n[ZKP_GROTH16_NSECTIONS], off[ZKP_GROTH16_NSECTIONS];
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++) {
		/* A count this large cannot come from a valid header; it
		 * would only overflow the layout arithmetic. */
		if (h.f.n[s] > ((uint64_t)1 << 40))
			MISS("%s: section %s count out of range", cache_path,
			     zkp_groth16_section_name(s));
		n[s] = (size_t)h.f.n[s];
	}
	size_t body = g16_layout(off, n);
	if (h.f.body_bytes != body || (uint64_t)st.st_size != CACHE_HEADER_BYTES + body)
		MISS("%s: size %llu does not match its section table", cache_path,
		     (unsigned long long)st.st_size);
	if (n[ZKP_GROTH16_IC] == 0)
		MISS("%s: empty ic", cache_path);

	map_bytes = (size_t)st.st_size;
	map = mmap(NULL, map_bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		MISS("%s: cannot map: %s", cache_path, strerror(errno));
	/* The mapping is the key for as long as it is loaded: guarded, so a
	 * cache file cut short under it fails jobs (zkp_groth16_pk_damaged)
	 * instead of killing the process. */
	guard = zkp_mapguard_add(map, map_bytes);
	if (g16_tree_digest(d, (const uint8_t *)map + CACHE_HEADER_BYTES, body, pool) ||
	    memcmp(d, h.f.body_digest, 32) != 0 || zkp_mapguard_damaged(guard))
		MISS("%s: body digest mismatch (corrupt %s)", cache_path,
		     src ? "cache" : "key file");
	close(fd);

	/* A hit: the mapping becomes the key's backing. The header page is
	 * part of the mapping; the points start one page in. */
	zkp_groth16_pk_init(pk);
	memcpy(pk->n, n, sizeof(pk->n));
	pk->mem = map;
	pk->mem_bytes = map_bytes;
	pk->mem_mapped = true;
	pk->mem_guard = guard;
	g16_pk_bind(pk, (uint8_t *)map + CACHE_HEADER_BYTES);
	pk->vk.alpha_g1 = h.f.alpha_g1;
	pk->vk.beta_g1 = h.f.beta_g1;
	pk->vk.delta_g1 = h.f.delta_g1;
	pk->vk.beta_g2 = h.f.beta_g2;
	pk->vk.gamma_g2 = h.f.gamma_g2;
	pk->vk.delta_g2 = h.f.delta_g2;
	pk->vk.has_g1_extras = !!(h.f.flags & CACHE_HAS_G1_EXTRAS);
	pk->format = (enum zkp_groth16_format)h.f.format;
	pk->h_conv = (enum zkp_groth16_h_conv)h.f.h_conv;
	pk->ab_layout = (enum zkp_groth16_ab_layout)h.f.ab_layout;
	pk->n_inputs = h.f.n_inputs;
	pk->n_aux = h.f.n_aux;
	pk->domain_size = h.f.domain_size;
	pk->zkey_coeffs_offset = h.f.zkey_coeffs_offset;
	pk->zkey_coeffs_bytes = h.f.zkey_coeffs_bytes;
	pk->zkey_coeffs_count = h.f.zkey_coeffs_count;
	pk->source_bytes = h.f.source_bytes;
	memcpy(pk->source_sha256, h.f.source_sha256, 32);
	pk->subgroup_checked = !!(h.f.flags & CACHE_SUBGROUP_CHECKED);
	pk->cache = ZKP_GROTH16_CACHE_HIT;
	return true;
miss:
	zkp_mapguard_remove(guard);
	if (map != MAP_FAILED)
		munmap(map, map_bytes);
	close(fd);
	return false;
}

int g16_cache_write(const zkp_groth16_pk *pk, const char *cache_path,
		    const struct g16_file *src, zkp_pool *pool, zkp_error *err)
{
	struct cache_header *h = calloc(1, sizeof(*h));
	if (!h)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", cache_path);
	memcpy(h->f.magic, CACHE_MAGIC, 8);
	h->f.version = CACHE_VERSION;
	h->f.header_bytes = CACHE_HEADER_BYTES;
	h->f.host_tag = CACHE_HOST_TAG;
	h->f.sizeof_g1 = sizeof(zkp_g1_affine);
	h->f.sizeof_g2 = sizeof(zkp_g2_affine);
	h->f.format = (uint32_t)pk->format;
	h->f.flags = (pk->subgroup_checked ? CACHE_SUBGROUP_CHECKED : 0) |
		   (pk->vk.has_g1_extras ? CACHE_HAS_G1_EXTRAS : 0) | (src ? 0 : CACHE_STANDALONE);
	h->f.h_conv = (uint32_t)pk->h_conv;
	h->f.ab_layout = (uint32_t)pk->ab_layout;
	if (src) {
		memcpy(h->f.source_sha256, pk->source_sha256, 32);
		stat_fields(&h->f, &src->st);
	}
	h->f.n_inputs = pk->n_inputs;
	h->f.n_aux = pk->n_aux;
	h->f.domain_size = pk->domain_size;
	h->f.zkey_coeffs_offset = pk->zkey_coeffs_offset;
	h->f.zkey_coeffs_bytes = pk->zkey_coeffs_bytes;
	h->f.zkey_coeffs_count = pk->zkey_coeffs_count;
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++)
		h->f.n[s] = pk->n[s];
	h->f.alpha_g1 = pk->vk.alpha_g1;
	h->f.beta_g1 = pk->vk.beta_g1;
	h->f.delta_g1 = pk->vk.delta_g1;
	h->f.beta_g2 = pk->vk.beta_g2;
	h->f.gamma_g2 = pk->vk.gamma_g2;
	h->f.delta_g2 = pk->vk.delta_g2;

	size_t off[ZKP_GROTH16_NSECTIONS];
	size_t body = g16_layout(off, pk->n);
	/* The key's own block is the body (heap keys are laid out for the
	 * cache from the start). */
	const uint8_t *mem = (const uint8_t *)pk->vk.ic;
	h->f.body_bytes = body;
	int rc = g16_tree_digest(h->f.body_digest, mem, body, pool);
	if (!rc)
		rc = g16_sha256(h->header_digest, (const uint8_t *)h,
				offsetof(struct cache_header, header_digest));
	if (rc) {
		free(h);
		return zkp_error_set(err, rc, "%s: cannot compute digests", cache_path);
	}
	struct g16_writer w;
	rc = g16_writer_open(&w, cache_path, err);
	if (!rc)
		rc = g16_writer_write(&w, h, sizeof(*h), err);
	if (!rc)
		rc = g16_writer_write(&w, mem, body, err);
	if (!rc)
		rc = g16_writer_commit(&w, err);
	g16_writer_abort(&w);
	free(h);
	return rc;
}

int zkp_groth16_pk_write_cache(zkp_groth16_pk *pk, const char *key_path, const char *cache_dir,
			       zkp_pool *pool, zkp_error *err)
{
	if (!pk->subgroup_checked || !pk->vk.ic)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%s: only a key whose points are known to be in the subgroup "
				     "gets a cache without loading",
				     key_path);
	struct g16_file f;
	int rc = g16_file_open(&f, key_path, err);
	if (rc)
		return rc;
	char *cpath = zkp_groth16_cache_path(key_path, cache_dir);
	if (!cpath) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", key_path);
		goto out;
	}
	rc = g16_sha256_file(pk->source_sha256, &f);
	if (rc) {
		zkp_error_set(err, rc, "%s: cannot hash the file", key_path);
		goto out;
	}
	if ((rc = g16_file_check(&f, err)))
		goto out;
	pk->source_bytes = f.size;
	if (pk->format == ZKP_GROTH16_FMT_NONE)
		pk->format = ZKP_GROTH16_FMT_PARAMS; /* what was written */
	rc = g16_cache_write(pk, cpath, &f, pool, err);
out:
	free(cpath);
	g16_file_close(&f);
	return rc;
}

bool g16_is_standalone(const struct g16_file *f)
{
	return f->size >= CACHE_HEADER_BYTES && memcmp(f->data, CACHE_MAGIC, 8) == 0;
}

int zkp_groth16_pk_write_standalone(zkp_groth16_pk *pk, const char *path, zkp_pool *pool,
				    zkp_error *err)
{
	if (!pk->subgroup_checked || !pk->vk.ic)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%s: only a key whose points are known to be in the subgroup "
				     "is written as a standalone key",
				     path);
	if (pk->format == ZKP_GROTH16_FMT_NONE)
		pk->format = ZKP_GROTH16_FMT_PARAMS; /* bellman's conventions */
	memset(pk->source_sha256, 0, 32);
	pk->source_bytes = 0;
	return g16_cache_write(pk, path, NULL, pool, err);
}
