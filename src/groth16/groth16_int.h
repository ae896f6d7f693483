/*
 * Private declarations shared by the groth16/ sources.
 */
#ifndef ZKPD_GROTH16_INT_H
#define ZKPD_GROTH16_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "zkpd/error.h"
#include "zkpd/groth16.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_job.h"
#include "zkpd/pool.h"

/* Sections of a key's backing block start on this boundary (cache lines;
 * the cache file's body is page aligned, so they stay aligned when mapped). */
#define G16_ALIGN 64

/* A source file mapped read-only. size 0 leaves data NULL. */
struct g16_file {
	const char *path;
	int fd;
	const uint8_t *data;
	size_t size;
	struct stat st;
	int guard; /* zkp_mapguard handle of data */
};

/* Errors: ZKP_ERR_IO with the path and the system error. */
int g16_file_open(struct g16_file *f, const char *path, zkp_error *err);
void g16_file_close(struct g16_file *f);
/* Whether the file was cut short while mapped (mapguard.h): what was read
 * of it since it was opened may be zeros. Returns ZKP_ERR_TRUNCATED naming
 * the file then, else 0. */
int g16_file_check(const struct g16_file *f, zkp_error *err);

/* Atomic file writer: data goes to a temporary file next to path, and
 * commit fsyncs it, renames it over path and fsyncs the directory. abort
 * (also safe after a failed commit or on a zeroed writer) removes it. */
struct g16_writer {
	char *path;
	char *tmp;
	int fd;
};
int g16_writer_open(struct g16_writer *w, const char *path, zkp_error *err);
int g16_writer_write(struct g16_writer *w, const void *p, size_t n, zkp_error *err);
int g16_writer_commit(struct g16_writer *w, zkp_error *err);
void g16_writer_abort(struct g16_writer *w);
/* Writes a whole buffer atomically. */
int g16_write_file(const char *path, const void *p, size_t n, zkp_error *err);

/* SHA-256 of a buffer. Errors: ZKP_ERR_NOMEM (OpenSSL could not start). */
int g16_sha256(uint8_t out[32], const uint8_t *data, size_t len);
/* SHA-256 of a mapped file, each 64 MiB piece dropped from the resident
 * set once hashed (MADV_DONTNEED: the mapping is private and read-only, so
 * the pages read back from the file when touched again). */
int g16_sha256_file(uint8_t out[32], const struct g16_file *f);
/* Tree digest for large blocks: SHA-256 of (u64 len LE || SHA-256 of each
 * 4 MiB chunk), the chunks hashed in parallel over pool. Errors as above. */
int g16_tree_digest(uint8_t out[32], const uint8_t *data, size_t len, zkp_pool *pool);

/* Point encodings of key files. */
enum g16_enc {
	G16_G1_ZCASH, /* 96 bytes, uncompressed ZCash (bellman) */
	G16_G2_ZCASH, /* 192 bytes */
	G16_G1_MONT,  /* 96 bytes, x || y, 48-byte little-endian Montgomery (zkey) */
	G16_G2_MONT,  /* 192 bytes, x.c0 || x.c1 || y.c0 || y.c1 */
};
size_t g16_enc_bytes(enum g16_enc enc);
/* One point; the ec.h decoder codes (and for Montgomery input:
 * ZKP_ERR_NOT_CANONICAL, ZKP_ERR_NOT_ON_CURVE, ZKP_ERR_NOT_IN_SUBGROUP). */
int g16_decode_one(void *dst, const uint8_t *src, enum g16_enc enc, bool subgroup);
/* n points from src (consecutive) into dst (zkp_g1_affine or zkp_g2_affine
 * array), spread over pool. On failure, the detail names path, section,
 * the lowest failing index and its byte offset (file_offset is src's). */
int g16_decode_points(void *dst, const uint8_t *src, size_t n, enum g16_enc enc,
		      bool subgroup, zkp_pool *pool, const char *path, const char *section,
		      uint64_t file_offset, zkp_error *err);

/* Byte offsets of each section in a backing block laid out for counts n,
 * and the total size. */
size_t g16_layout(size_t off[ZKP_GROTH16_NSECTIONS], const size_t n[ZKP_GROTH16_NSECTIONS]);
/* Points pk's arrays into mem laid out for pk->n. */
void g16_pk_bind(zkp_groth16_pk *pk, void *mem);
/* Allocates the zeroed, aligned heap block for counts pk->n and binds it.
 * Errors: ZKP_ERR_NOMEM. */
int g16_pk_alloc_mem(zkp_groth16_pk *pk);

/* The power-of-two domain for a bellman h count (n - 1 preferred, then n);
 * 0 when none fits. */
uint64_t g16_domain_for_h(uint64_t n_h);
/* zkp_groth16_pk_check_shape on counts alone. */
int g16_check_counts(const size_t n[ZKP_GROTH16_NSECTIONS], enum zkp_groth16_ab_layout layout,
		     enum zkp_groth16_h_conv conv, const zkp_groth16_shape *s,
		     const char *name, zkp_error *err);

/* Format parsers over a mapped file. They fill pk (heap backing) or vk. */
int g16_params_parse(zkp_groth16_pk *pk, const struct g16_file *f, unsigned flags,
		     zkp_pool *pool, const zkp_groth16_shape *expect, zkp_error *err);
int g16_zkey_parse(zkp_groth16_pk *pk, const struct g16_file *f, unsigned flags,
		   zkp_pool *pool, const zkp_groth16_shape *expect, zkp_error *err);
int g16_zkey_parse_vk(zkp_groth16_vk *vk, const struct g16_file *f, unsigned flags,
		      zkp_error *err);
int g16_vk_json_parse(zkp_groth16_vk *vk, const char *text, const char *name,
		      zkp_error *err);
bool g16_is_zkey(const struct g16_file *f);

/* Native cache. try_load returns true and fills pk (mapped) on a hit; on a
 * miss *existed says whether a cache file was there (stale or corrupt) and
 * note says why it was not used. digest may be NULL when the caller has not
 * hashed the source yet: then only the stat fields are compared, and only
 * when flags has ZKP_GROTH16_CACHE_TRUST_STAT. src NULL loads a standalone
 * key (cache_path is the key itself; any other cache is a miss). write with
 * src NULL writes a standalone key. */
bool g16_cache_try_load(zkp_groth16_pk *pk, const char *cache_path, const struct g16_file *src,
			const uint8_t *digest, unsigned flags, zkp_pool *pool, bool *existed,
			zkp_error *note);
int g16_cache_write(const zkp_groth16_pk *pk, const char *cache_path,
		    const struct g16_file *src, zkp_pool *pool, zkp_error *err);
/* Whether f starts as a native key file does (a standalone key, or a
 * cache given as a key). */
bool g16_is_standalone(const struct g16_file *f);

/* INSECURE development toxic waste (setup.c): a random non-zero scalar from
 * RAND_bytes, or, when seed is set, SHA-512("zkpd INSECURE dev setup " ||
 * label || seed LE) reduced mod r. Errors: ZKP_ERR_IO, ZKP_ERR_INVAL (zero). */
int g16_toxic(zkp_fr *ret, const uint64_t *seed, const char *label, zkp_error *err);
/* Monotonic seconds, for the prover's stage times. */
static inline double g16_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sets the observer the job's stages call at the boundaries of enum
 * zkp_groth16_stage (zkp_groth16_prove_staged's on_stage; fn may be NULL):
 * EVAL after a, b, c are filled, NTT once H is in a while b and c are
 * still held, MSM in finish once the G2 thread is joined and the MSM
 * inputs are dropped. Called before zkp_groth16_job_eval. */
void g16_job_observe(zkp_groth16_job *job, zkp_groth16_stage_fn fn, void *arg);

/* zkp_groth16_resident: the G1 queries in the order H, L, A, B_G1, then
 * B_G2, which is held only when the backend could take it (has_g2). */
enum { G16_RES_H, G16_RES_L, G16_RES_A, G16_RES_B_G1, G16_RES_G1_QUERIES };
struct zkp_groth16_resident {
	const zkp_groth16_pk *pk;
	zkp_backend *be;
	zkp_dbuf q[G16_RES_G1_QUERIES];
	zkp_dbuf b_g2;
	bool has_g2;
	/* A, B, C of circuit for the backend's spmv (has_circuit): a device's
	 * jobs of that circuit evaluate there. */
	const zkp_pce *circuit;
	zkp_backend_csr m[3];
	bool has_circuit;
	size_t bytes; /* held by the backend (owned buffers) */
};

/* The MSM options of the witness's MSMs (L, A, B_G1, B_G2): 98% of a
 * Filecoin witness is 0 or 1, so zeros are skipped and ones summed
 * directly (msm.h's split mode; a device backend does this always). */
extern const zkp_msm_opts g16_witness_msm;

/* Big-endian u32 (bellman counts), little-endian u32/u64 (zkey). */
static inline uint32_t g16_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint32_t g16_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t g16_le64(const uint8_t *p)
{
	return (uint64_t)g16_le32(p) | (uint64_t)g16_le32(p + 4) << 32;
}

#endif
