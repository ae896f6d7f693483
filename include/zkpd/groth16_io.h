/*
 * groth16 file formats: bellman/bellperson .params and .vk, snarkjs .zkey and
 * JSON (verification_key.json, proof.json, public.json), and zkpd's native
 * key cache. Layouts: docs/formats.md, 'bellman .params and .vk',
 * '.zkey (Groth16)' and 'snarkjs JSON'.
 *
 * Invariants:
 *  - Every error carries a zkp_error detail naming the file, the section and
 *    the point index and byte offset where it applies.
 *  - Points are always checked to be canonical and on their curve. Subgroup
 *    membership is checked too, unless ZKP_GROTH16_SKIP_SUBGROUP says the file
 *    is trusted (its digest was verified elsewhere); the key records which
 *    (pk->subgroup_checked).
 *  - Loaders map the source read-only, decode into a heap block (or map a
 *    cache) and close the source before returning. Each call is independent
 *    and may run on any thread; `pool` only spreads the decoding.
 *  - Writers write atomically: a temporary file in the target's directory,
 *    fsync, rename, fsync of the directory.
 *
 * Native key cache. Decoding and subgroup-checking a multi-GiB key takes
 * minutes; the cache holds the points already in internal (Montgomery,
 * affine) form so a restart maps them instead. File "<key file name>.zkpc"
 * in opts->cache_dir, or next to the key. Header: magic, version, a host
 * tag (byte order, limb layout), the source's SHA-256 and size, the section
 * table, the vk, whether points were subgroup-checked, a digest of the body
 * and of the header. A cache is used only when all of these match the
 * source and this build; a stale, truncated or corrupt cache is ignored and
 * rebuilt, never trusted. Loading a valid cache costs a SHA-256 of the
 * source (about 1.4 GB/s; skipped with ZKP_GROTH16_CACHE_TRUST_STAT when
 * the source's size, mtime, inode and device are those recorded) plus a
 * SHA-256 tree digest of the body spread over the pool.
 */
#ifndef ZKPD_GROTH16_IO_H
#define ZKPD_GROTH16_IO_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/groth16.h"
#include "zkpd/pool.h"

enum {
	/* Trusted file: check points on the curve only. */
	ZKP_GROTH16_SKIP_SUBGROUP = 1 << 0,
	/* Neither read nor write the native cache. */
	ZKP_GROTH16_NO_CACHE = 1 << 1,
	/* Accept a cache whose recorded source size, mtime, inode and device
	 * match, without hashing the source. */
	ZKP_GROTH16_CACHE_TRUST_STAT = 1 << 2,
};

typedef struct {
	unsigned flags;
	const char *cache_dir;           /* NULL: next to the key */
	zkp_pool *pool;                  /* NULL: the caller's thread only */
	const zkp_groth16_shape *expect; /* NULL: no shape check */
	/* Optional: why a cache was not used or not written (the load itself
	 * still succeeds). code 0 when there is nothing to say. */
	zkp_error *cache_note;
} zkp_groth16_load_opts;

/*
 * Loads a proving key: bellman .params (no magic; ic, h, l, a, b_g1, b_g2,
 * anything after b_g2 ignored) or snarkjs .zkey (magic "zkey"), chosen by
 * content. opts may be NULL (defaults: subgroup checks, cache next to the
 * key, no pool, no shape check). On error *pk is released.
 * Errors (detail in err): ZKP_ERR_IO (open, map, read), ZKP_ERR_TRUNCATED
 * (a count or point past the end; names the section, index and offset),
 * ZKP_ERR_FORMAT (bad magic or section table, a count that cannot be, h
 * that fits no domain, a JSON, .r1cs, .wtns or .ptau file), ZKP_ERR_VERSION,
 * ZKP_ERR_UNSUPPORTED (a zkey protocol other than Groth16),
 * ZKP_ERR_WRONG_PRIME (a zkey over another curve; names it), the point
 * decoder codes (ZKP_ERR_NOT_CANONICAL, ZKP_ERR_BAD_FLAGS, ...,
 * ZKP_ERR_NOT_ON_CURVE, ZKP_ERR_NOT_IN_SUBGROUP),
 * ZKP_ERR_MISMATCH (opts->expect: names the section), ZKP_ERR_NOMEM.
 * Cost: a SHA-256 of the file, and per point a decode and a subgroup check
 * (ec.h: 126 doublings for G1, 63 Fp2 doublings for G2), spread over pool;
 * sapling-output.params (32,016 points) takes 1.2-2.4 s on 2 threads of a
 * 2-core x86-64 VM. With a valid cache: the two SHA-256s only
 * (about 6 ms for that file).
 */
int zkp_groth16_pk_load(zkp_groth16_pk *pk, const char *path,
			const zkp_groth16_load_opts *opts, zkp_error *err);

/*
 * Loads a verifying key, format by content: bellman .vk or the first section
 * of a .params, snarkjs .zkey (sections 1-3 only), or snarkjs
 * verification_key.json (starts with '{'). The vk owns its ic. flags:
 * ZKP_GROTH16_SKIP_SUBGROUP only (vk points are few; checking is the
 * default). Errors as zkp_groth16_pk_load, plus the JSON ones below.
 */
int zkp_groth16_vk_load(zkp_groth16_vk *vk, const char *path, unsigned flags,
			zkp_error *err);
/* The same from memory; name is used in messages only. */
int zkp_groth16_vk_from_bellman(zkp_groth16_vk *vk, const uint8_t *data, size_t len,
				const char *name, unsigned flags, zkp_error *err);

/* Writes a bellman .params (vk, then ic, h, l, a, b_g1, b_g2, u32 big-endian
 * counts, uncompressed points) or .vk. The key must be BELLMAN / COMPACT and
 * the vk must have its G1 extras (ZKP_ERR_INVAL otherwise). Errors:
 * ZKP_ERR_IO. */
int zkp_groth16_pk_write_params(const zkp_groth16_pk *pk, const char *path, zkp_error *err);
int zkp_groth16_vk_write_bellman(const zkp_groth16_vk *vk, const char *path, zkp_error *err);

/* Writes the native cache for a key just written to key_path from pk by
 * zkp_groth16_pk_write_params (zkp setup: its points are multiples of the generators, so pk->subgroup_checked
 * holds without a check), so that the first zkp_groth16_pk_load of the file
 * maps it instead of decoding and checking every point (minutes for a
 * million-point key). Hashes the file (SHA-256) to bind the cache to it.
 * cache_dir as in the load options (NULL: next to the key). Errors:
 * ZKP_ERR_INVAL (pk not subgroup-checked, or not a heap key laid out for
 * the cache), ZKP_ERR_IO, ZKP_ERR_NOMEM. */
int zkp_groth16_pk_write_cache(zkp_groth16_pk *pk, const char *key_path, const char *cache_dir,
			       zkp_pool *pool, zkp_error *err);

/* Writes pk as a standalone native key at path: the cache's layout (a
 * header, then the key's block, so a read-only mapping is the key) with no
 * source file behind it. zkp_groth16_pk_load maps such a file directly,
 * with the header and body digests checked (a SHA-256 over the key, in
 * parallel over pool), and no decoding; a bellman key_format names it. For
 * keys too large to keep twice (a development key of a 32 GiB PoRep
 * partition is 47 GB). Only a key whose points are known to lie in the
 * subgroup (a setup's; ZKP_ERR_INVAL otherwise). Errors also ZKP_ERR_IO,
 * ZKP_ERR_NOMEM. Written atomically. */
int zkp_groth16_pk_write_standalone(zkp_groth16_pk *pk, const char *path, zkp_pool *pool,
				    zkp_error *err);

/* The cache file a load of key_path would use (malloc'd string, NULL on
 * allocation failure). */
char *zkp_groth16_cache_path(const char *key_path, const char *cache_dir);

/* BLAKE2b-512 of a whole file (Zcash's and Filecoin's parameter digests;
 * Filecoin's parameters.json keeps the first 16 bytes in hex).
 * Errors: ZKP_ERR_IO. */
int zkp_groth16_file_blake2b512(uint8_t out[64], const char *path, zkp_error *err);
/* SHA-256 of a whole file. Errors: ZKP_ERR_IO. */
int zkp_groth16_file_sha256(uint8_t out[32], const char *path, zkp_error *err);

/*
 * snarkjs JSON. Numbers are decimal strings of canonical values; points are
 * [x, y, z] (G2 coordinates [c0, c1]). Readers accept z = 1 (affine), z = 0
 * (infinity) and any other z as Jacobian (x/z^2, y/z^3), as snarkjs does;
 * writers write affine with z = "1" (infinity as ["0", "1", "0"]). Readers
 * check coordinates < p, points on the curve and in the subgroup (snarkjs
 * checks only the curve; an honest prover's points always pass), public
 * values < r. Errors: ZKP_ERR_IO, ZKP_ERR_FORMAT (not JSON, a missing or
 * mistyped field, a bad number; names the file and the field),
 * ZKP_ERR_NOT_CANONICAL, ZKP_ERR_NOT_ON_CURVE, ZKP_ERR_NOT_IN_SUBGROUP,
 * ZKP_ERR_UNSUPPORTED (protocol other than groth16), ZKP_ERR_WRONG_PRIME
 * (curve other than bls12381), ZKP_ERR_MISMATCH (nPublic vs IC),
 * ZKP_ERR_NOMEM.
 */
int zkp_groth16_proof_read_json(zkp_groth16_proof *proof, const char *path, zkp_error *err);
int zkp_groth16_proof_write_json(const zkp_groth16_proof *proof, const char *path,
				 zkp_error *err);
/* *inputs is malloc'd (free() it); *n gets the count. */
int zkp_groth16_public_read_json(zkp_fr **inputs, size_t *n, const char *path, zkp_error *err);
int zkp_groth16_public_write_json(const zkp_fr *inputs, size_t n, const char *path,
				  zkp_error *err);
/* verification_key.json: vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, IC,
 * nPublic; the writer adds vk_alphabeta_12 = e(alpha, beta) (the reader
 * ignores it). The vk read has has_g1_extras false. */
int zkp_groth16_vk_read_json(zkp_groth16_vk *vk, const char *path, zkp_error *err);
int zkp_groth16_vk_write_json(const zkp_groth16_vk *vk, const char *path, zkp_error *err);

/* The same on strings: from_json parses text (NUL-terminated); to_json
 * returns a malloc'd NUL-terminated string (NULL on allocation failure).
 * name is used in messages only. */
int zkp_groth16_proof_from_json(zkp_groth16_proof *proof, const char *text, const char *name,
				zkp_error *err);
char *zkp_groth16_proof_to_json(const zkp_groth16_proof *proof);

#endif
