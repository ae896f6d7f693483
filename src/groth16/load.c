/*
 * Loading keys: format detection and the cache flow of groth16_io.h.
 */
#include <stdlib.h>
#include <string.h>

#include "groth16_int.h"

static const zkp_groth16_load_opts default_opts = { 0 };

static size_t skip_space(const struct g16_file *f)
{
	size_t i = 0;
	while (i < f->size && (f->data[i] == ' ' || f->data[i] == '\t' || f->data[i] == '\n' ||
			       f->data[i] == '\r'))
		i++;
	return i;
}

/* Files that are certainly not proving keys, named for what they are
 * rather than refused for a bad first point. */
static int refuse_non_key(const struct g16_file *f, zkp_error *err)
{
	static const char *const magics[] = { "r1cs", "wtns", "ptau" };
	size_t i = skip_space(f);
	if (i < f->size && f->data[i] == '{')
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: a JSON file (a verification_key.json?) holds no proving key",
				     f->path);
	for (size_t k = 0; k < sizeof(magics) / sizeof(magics[0]); k++)
		if (f->size >= 4 && memcmp(f->data, magics[k], 4) == 0)
			return zkp_error_set(err, ZKP_ERR_FORMAT,
					     "%s: a .%s file (magic at offset 0), not a key", f->path,
					     magics[k]);
	return 0;
}

int zkp_groth16_pk_load(zkp_groth16_pk *pk, const char *path,
			const zkp_groth16_load_opts *opts, zkp_error *err)
{
	if (!opts)
		opts = &default_opts;
	const unsigned flags = opts->flags;
	zkp_error *note = opts->cache_note;
	if (note)
		note->code = 0, note->msg[0] = 0;
	zkp_groth16_pk_init(pk);

	struct g16_file f;
	char *cpath = NULL;
	bool existed = false, hit = false;
	uint8_t digest[32];
	int rc = g16_file_open(&f, path, err);
	if (rc)
		return rc;
	char *source_path = strdup(path);
	if (!source_path) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}

	/* A standalone key is mapped as it is; there is no source to cache. */
	if (g16_is_standalone(&f)) {
		zkp_error why = { 0 };
		if (!g16_cache_try_load(pk, path, NULL, NULL, flags, opts->pool, &existed, &why)) {
			rc = zkp_error_set(err, why.code ? why.code : ZKP_ERR_FORMAT, "%s", why.msg);
			goto out;
		}
		if (opts->expect && (rc = zkp_groth16_pk_check_shape(pk, opts->expect, path, err)))
			goto out;
		pk->source_path = source_path;
		source_path = NULL;
		goto out;
	}
	if (!(flags & ZKP_GROTH16_NO_CACHE)) {
		cpath = zkp_groth16_cache_path(path, opts->cache_dir);
		if (!cpath) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
			goto out;
		}
		if (flags & ZKP_GROTH16_CACHE_TRUST_STAT)
			hit = g16_cache_try_load(pk, cpath, &f, NULL, flags, opts->pool, &existed,
						 note);
	}
	if (!hit) {
		rc = g16_sha256_file(digest, &f);
		if (rc) {
			zkp_error_set(err, rc, "%s: cannot hash the file", path);
			goto out;
		}
		if ((rc = g16_file_check(&f, err)))
			goto out;
		if (cpath)
			hit = g16_cache_try_load(pk, cpath, &f, digest, flags, opts->pool,
						 &existed, note);
	}
	if (hit) {
		if (opts->expect) {
			rc = zkp_groth16_pk_check_shape(pk, opts->expect, path, err);
			if (rc)
				goto out;
		}
		pk->source_path = source_path;
		source_path = NULL;
		goto out;
	}

	rc = refuse_non_key(&f, err);
	if (rc)
		goto out;
	if (g16_is_zkey(&f))
		rc = g16_zkey_parse(pk, &f, flags, opts->pool, opts->expect, err);
	else
		rc = g16_params_parse(pk, &f, flags, opts->pool, opts->expect, err);
	if (!rc)
		rc = g16_file_check(&f, err);
	if (rc)
		goto out;
	memcpy(pk->source_sha256, digest, 32);
	pk->source_bytes = f.size;
	pk->source_path = source_path;
	source_path = NULL;

	if (cpath) {
		zkp_error werr = { 0 };
		if (g16_cache_write(pk, cpath, &f, opts->pool, &werr) == 0) {
			pk->cache = existed ? ZKP_GROTH16_CACHE_REBUILT : ZKP_GROTH16_CACHE_CREATED;
		} else {
			pk->cache = ZKP_GROTH16_CACHE_FAILED;
			if (note)
				*note = werr;
		}
	}
out:
	if (rc)
		zkp_groth16_pk_release(pk);
	free(source_path);
	free(cpath);
	g16_file_close(&f);
	return rc;
}

int zkp_groth16_vk_load(zkp_groth16_vk *vk, const char *path, unsigned flags,
			zkp_error *err)
{
	struct g16_file f;
	zkp_groth16_vk_init(vk);
	int rc = g16_file_open(&f, path, err);
	if (rc)
		return rc;
	size_t i = skip_space(&f);
	if (g16_is_zkey(&f)) {
		rc = g16_zkey_parse_vk(vk, &f, flags, err);
	} else if (i < f.size && f.data[i] == '{') {
		char *text = malloc(f.size + 1);
		if (!text) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
		} else {
			memcpy(text, f.data, f.size);
			text[f.size] = 0;
			rc = g16_vk_json_parse(vk, text, path, err);
			free(text);
		}
	} else {
		rc = zkp_groth16_vk_from_bellman(vk, f.data, f.size, path, flags, err);
	}
	g16_file_close(&f);
	return rc;
}
