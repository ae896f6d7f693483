/*
 * engine_requests: request ids and the digests of jobs' inputs (engine.h,
 * Jobs). The engine's table by request_id is a hash of chains through
 * struct job's rid_next; a job holds its request_id until a later job
 * takes it over, then keeps only its job id.
 *
 * A Submit with a request_id attaches to the job holding it only when the
 * digest of its inputs equals that job's: the same request_id with other
 * inputs is another request (Curio names every WindowPoSt partition of a
 * deadline alike, and a sector proved again keeps its name), so it makes
 * a new job, logs a WARN line and counts in requests_reused.
 *
 * The digest is SHA-256 over a tag, the circuit name, the witness kind and
 * the input: its bytes (witness, C1, SnapDeals bundle, PoSt bundle with its
 * proof type, randomness and partition), or for a path the path and the
 * file's identity (device, inode, size, modification time in nanoseconds),
 * not its content: a file replaced or rewritten is another input, and a
 * witness of gigabytes is not read twice. Cost: one pass over the bytes
 * (about 1 GB/s), only for Submits that carry a request_id.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "engine_int.h"
#include "zkpd/log.h"

#define DIGEST_TAG "zkpd input digest 1"

static size_t hash_rid(const char *s, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return (size_t)(h ^ (h >> 32)) & (size - 1);
}

void request_link(struct job **rid_tab, size_t size, struct job *j)
{
	if (!j->request_id[0])
		return;
	size_t h = hash_rid(j->request_id, size);
	j->rid_next = rid_tab[h];
	rid_tab[h] = j;
}

void request_unlink(struct zkp_engine *e, struct job *j)
{
	if (!j->request_id[0])
		return;
	struct job **p = &e->rid_tab[hash_rid(j->request_id, e->tab_size)];
	while (*p != j)
		p = &(*p)->rid_next;
	*p = j->rid_next;
	j->rid_next = NULL;
}

struct job *request_find(struct zkp_engine *e, const char *rid)
{
	for (struct job *j = e->rid_tab[hash_rid(rid, e->tab_size)]; j; j = j->rid_next)
		if (!strcmp(j->request_id, rid))
			return j;
	return NULL;
}

void request_release(struct zkp_engine *e, struct job *j)
{
	request_unlink(e, j);
	j->request_id[0] = 0;
}

/* A job that ended FAILED or CANCELLED gives its request_id up to the next
 * Submit with it, whatever its inputs: a retry after a failure proves
 * again. */
static bool retryable(const struct job *j)
{
	return j->state == ZKP_JOB_FAILED || j->state == ZKP_JOB_CANCELLED;
}

static bool same_inputs(const struct job *j, const uint8_t d[ZKP_INPUT_DIGEST_BYTES])
{
	return j->has_digest && memcmp(j->digest, d, ZKP_INPUT_DIGEST_BYTES) == 0;
}

struct job *request_attach(struct zkp_engine *e, const char *rid,
			   const uint8_t digest[ZKP_INPUT_DIGEST_BYTES])
{
	struct job *old = request_find(e, rid);
	if (!old || retryable(old))
		return NULL;
	if (same_inputs(old, digest))
		return old;
	e->requests_reused++;
	zkp_log(ZKP_LOG_WARN,
		"request_id \"%s\" came again with other inputs than job %" PRIu64
		"'s (%s%s): a new job proves them; job %" PRIu64 " stays findable by its id",
		rid, old->id, zkp_job_state_name(old->state),
		old->has_digest ? "" : ", restored without a digest", old->id);
	return NULL;
}

/* ---- digests ---- */

static int digest_begin(EVP_MD_CTX **md, const char *circuit, enum zkp_witness_kind kind)
{
	uint8_t k = (uint8_t)kind;
	*md = EVP_MD_CTX_new();
	if (!*md || !EVP_DigestInit_ex(*md, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(*md, DIGEST_TAG, sizeof(DIGEST_TAG)) ||
	    !EVP_DigestUpdate(*md, circuit, strlen(circuit) + 1) || !EVP_DigestUpdate(*md, &k, 1))
		return ZKP_ERR_NOMEM;
	return 0;
}

static int digest_end(EVP_MD_CTX *md, uint8_t out[ZKP_INPUT_DIGEST_BYTES])
{
	unsigned int n = 0;
	int ok = EVP_DigestFinal_ex(md, out, &n) && n == ZKP_INPUT_DIGEST_BYTES;
	EVP_MD_CTX_free(md);
	return ok ? 0 : ZKP_ERR_NOMEM;
}

int request_digest_bytes(uint8_t out[ZKP_INPUT_DIGEST_BYTES], const char *circuit,
			 enum zkp_witness_kind kind, const uint8_t *data, size_t len)
{
	EVP_MD_CTX *md = NULL;
	uint64_t n = len;
	if (digest_begin(&md, circuit, kind) || !EVP_DigestUpdate(md, &n, sizeof(n)) ||
	    (len && !EVP_DigestUpdate(md, data, len))) {
		EVP_MD_CTX_free(md);
		return ZKP_ERR_NOMEM;
	}
	return digest_end(md, out);
}

int request_digest_file(uint8_t out[ZKP_INPUT_DIGEST_BYTES], const char *circuit,
			enum zkp_witness_kind kind, const char *path, int fd)
{
	struct stat st;
	if (fstat(fd, &st))
		return ZKP_ERR_IO;
	uint64_t id[6] = {
		(uint64_t)st.st_dev,          (uint64_t)st.st_ino,
		(uint64_t)st.st_size,         (uint64_t)st.st_mtim.tv_sec,
		(uint64_t)st.st_mtim.tv_nsec, (uint64_t)st.st_ctim.tv_sec,
	};
	EVP_MD_CTX *md = NULL;
	if (digest_begin(&md, circuit, kind) || !EVP_DigestUpdate(md, path, strlen(path) + 1) ||
	    !EVP_DigestUpdate(md, id, sizeof(id))) {
		EVP_MD_CTX_free(md);
		return ZKP_ERR_NOMEM;
	}
	return digest_end(md, out);
}

/* ---- the engine's calls ---- */

int zkp_engine_input_digest(zkp_engine *e, const zkp_job_spec *spec,
			    uint8_t out[ZKP_INPUT_DIGEST_BYTES], zkp_error *err)
{
	if (!spec->circuit)
		return zkp_error_set(err, ZKP_ERR_INVAL, "no circuit named");
	if (spec->witness_kind != ZKP_WITNESS_PATH && spec->witness_kind != ZKP_WITNESS_C1_PATH) {
		if (request_digest_bytes(out, spec->circuit, spec->witness_kind, spec->data,
					 spec->data ? spec->len : 0))
			return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory hashing a witness");
		return 0;
	}
	if (!spec->path || !*spec->path)
		return zkp_error_set(err, ZKP_ERR_INVAL, "empty %s path",
				     spec->witness_kind == ZKP_WITNESS_PATH ? "witness" : "C1");
	int fd = -1;
	uint64_t size = 0;
	int rc = engine_open_witness(e, spec->path, &fd, &size, err);
	if (rc)
		return rc;
	rc = request_digest_file(out, spec->circuit, spec->witness_kind, spec->path, fd);
	close(fd);
	if (rc)
		return zkp_error_set(err, rc, "%s: cannot read its size and time", spec->path);
	return 0;
}

bool zkp_engine_request_attaches(zkp_engine *e, const char *request_id,
				 const uint8_t digest[ZKP_INPUT_DIGEST_BYTES])
{
	if (!request_id || !*request_id)
		return false;
	pthread_mutex_lock(&e->lock);
	struct job *j = request_find(e, request_id);
	bool yes = j && !retryable(j) && same_inputs(j, digest);
	pthread_mutex_unlock(&e->lock);
	return yes;
}

int zkp_engine_find_request(zkp_engine *e, const char *request_id, uint64_t *job_id)
{
	int rc = ZKP_ERR_NOT_FOUND;
	if (!request_id || !*request_id)
		return rc;
	pthread_mutex_lock(&e->lock);
	struct job *j = request_find(e, request_id);
	if (j) {
		*job_id = j->id;
		rc = 0;
	}
	pthread_mutex_unlock(&e->lock);
	return rc;
}
