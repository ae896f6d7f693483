/*
 * journal: files of jobs with a request_id, written atomically, read back
 * at start (journal.h).
 *
 * The journal remembers every file it wrote or read in a hash table keyed
 * by the request_id's SHA-256 (the file name): its sequence number, whether
 * it is a result, and for a pending entry the engine's job id. Results also
 * go into a FIFO in the order they were written; trimming to `history`
 * pops that FIFO and removes a file only when the table still says it holds
 * that same result (a request_id reused after its result left the engine's
 * history replaces the file, and the FIFO slot goes stale).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "journal_int.h"
#include "zkpd/log.h"
#include "zkpd/v1/journal.pb-c.h"

/* The checksum field (journal.proto field 13, length-delimited): tag,
 * length, SHA-256. */
#define CHECKSUM_TAG ((13u << 3) | 2u)
#define CHECKSUM_TRAILER (2 + DIGEST_BYTES)
#define TMP_MARK ".tmp."
#define BAD_SUFFIX ".bad"
/* Writes are staged in chunks of this size; larger appends (a witness) go
 * to the file directly. */
#define STAGE_BYTES (64 * 1024)

/* ---- names ---- */

/* 0, or ZKP_ERR_NOMEM when OpenSSL cannot make a digest context. */
int journal_digest(uint8_t out[DIGEST_BYTES], const char *request_id)
{
	unsigned int n = 0;
	if (!EVP_Digest(request_id, strlen(request_id), out, &n, EVP_sha256(), NULL) ||
	    n != DIGEST_BYTES)
		return ZKP_ERR_NOMEM;
	return 0;
}

void journal_name(char buf[ZKP_JOURNAL_NAME_MAX], const uint8_t digest[DIGEST_BYTES])
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < DIGEST_BYTES; i++) {
		buf[2 * i] = hex[digest[i] >> 4];
		buf[2 * i + 1] = hex[digest[i] & 15];
	}
	memcpy(buf + 2 * DIGEST_BYTES, ".job", 5);
}

int zkp_journal_file_name(char buf[ZKP_JOURNAL_NAME_MAX], const char *request_id)
{
	uint8_t d[DIGEST_BYTES];
	int rc = journal_digest(d, request_id);
	if (!rc)
		journal_name(buf, d);
	return rc;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Whether name is "<64 lowercase hex>.job"; its digest into d. */
static bool parse_name(uint8_t d[DIGEST_BYTES], const char *name)
{
	if (strlen(name) != 2 * DIGEST_BYTES + 4 || strcmp(name + 2 * DIGEST_BYTES, ".job"))
		return false;
	for (int i = 0; i < DIGEST_BYTES; i++) {
		int hi = hex_value(name[2 * i]), lo = hex_value(name[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		d[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

/* zkp_err from its name ("ERR_UNSATISFIED"); unknown names: ZKP_ERR_INVAL. */
static int err_from_name(const char *name)
{
	if (!name || !*name)
		return 0;
	for (int c = -1; c > -256; c--) {
		const char *n = zkp_err_name(c);
		if (!strcmp(n, "UNKNOWN"))
			break;
		if (!strcmp(n, name))
			return c;
	}
	return ZKP_ERR_INVAL;
}

/* ---- the table of files ---- */

static size_t hash_digest(const uint8_t d[DIGEST_BYTES], size_t size)
{
	uint64_t h;
	memcpy(&h, d, sizeof(h)); /* already uniform */
	return (size_t)h & (size - 1);
}

struct jnode *journal_node_find(const zkp_journal *j, const uint8_t d[DIGEST_BYTES])
{
	for (struct jnode *n = j->tab[hash_digest(d, j->tab_size)]; n; n = n->hnext)
		if (!memcmp(n->digest, d, DIGEST_BYTES))
			return n;
	return NULL;
}

static int tab_grow(zkp_journal *j)
{
	if (j->n_nodes < j->tab_size)
		return 0;
	size_t size = j->tab_size * 2;
	struct jnode **tab = calloc(size, sizeof(*tab));
	if (!tab)
		return ZKP_ERR_NOMEM;
	for (size_t i = 0; i < j->tab_size; i++)
		for (struct jnode *n = j->tab[i], *next; n; n = next) {
			next = n->hnext;
			size_t h = hash_digest(n->digest, size);
			n->hnext = tab[h];
			tab[h] = n;
		}
	free(j->tab);
	j->tab = tab;
	j->tab_size = size;
	return 0;
}

static void pending_unlink(zkp_journal *j, struct jnode *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else if (j->pending == n)
		j->pending = n->next;
	if (n->next)
		n->next->prev = n->prev;
	n->prev = n->next = NULL;
}

void journal_node_drop(zkp_journal *j, struct jnode *n)
{
	struct jnode **p = &j->tab[hash_digest(n->digest, j->tab_size)];
	while (*p != n)
		p = &(*p)->hnext;
	*p = n->hnext;
	if (n->ended)
		j->n_results--;
	else
		pending_unlink(j, n);
	j->n_nodes--;
	free(n);
}

static int ring_push(zkp_journal *j, const uint8_t d[DIGEST_BYTES], uint64_t seq)
{
	if (j->ring_n == j->ring_cap) {
		size_t cap = j->ring_cap ? 2 * j->ring_cap : 64;
		struct rslot *r = malloc(cap * sizeof(*r));
		if (!r)
			return ZKP_ERR_NOMEM;
		for (size_t i = 0; i < j->ring_n; i++)
			r[i] = j->ring[(j->ring_head + i) % j->ring_cap];
		free(j->ring);
		j->ring = r;
		j->ring_cap = cap;
		j->ring_head = 0;
	}
	struct rslot *s = &j->ring[(j->ring_head + j->ring_n) % j->ring_cap];
	memcpy(s->digest, d, DIGEST_BYTES);
	s->seq = seq;
	j->ring_n++;
	return 0;
}

/* Records that the file of d now holds (seq, ended). */
static int node_set(zkp_journal *j, const uint8_t d[DIGEST_BYTES], uint64_t seq, bool ended)
{
	struct jnode *n = journal_node_find(j, d);
	if (!n) {
		if (tab_grow(j) || !(n = calloc(1, sizeof(*n))))
			return ZKP_ERR_NOMEM;
		memcpy(n->digest, d, DIGEST_BYTES);
		size_t h = hash_digest(d, j->tab_size);
		n->hnext = j->tab[h];
		j->tab[h] = n;
		j->n_nodes++;
		n->ended = true; /* so that the switch below links it */
		j->n_results++;
	}
	if (ended && ring_push(j, d, seq))
		return ZKP_ERR_NOMEM;
	if (n->ended && !ended) {
		j->n_results--;
		n->next = j->pending;
		if (j->pending)
			j->pending->prev = n;
		j->pending = n;
	} else if (!n->ended && ended) {
		pending_unlink(j, n);
		j->n_results++;
	}
	n->ended = ended;
	n->seq = seq;
	n->job_id = 0;
	return 0;
}

/* Removes the oldest results beyond history (unlinks only; the caller
 * syncs the directory). Returns how many files went. */
static size_t trim(zkp_journal *j)
{
	size_t removed = 0;
	while (j->n_results > j->history && j->ring_n) {
		struct rslot s = j->ring[j->ring_head];
		j->ring_head = (j->ring_head + 1) % j->ring_cap;
		j->ring_n--;
		struct jnode *n = journal_node_find(j, s.digest);
		if (!n || !n->ended || n->seq != s.seq)
			continue; /* stale: the file was rewritten since */
		char name[ZKP_JOURNAL_NAME_MAX];
		journal_name(name, s.digest);
		if (unlinkat(j->dirfd, name, 0) && errno != ENOENT)
			zkp_log(ZKP_LOG_WARN, "journal %s/%s: cannot remove an old result: %s",
				j->dir, name, strerror(errno));
		journal_node_drop(j, n);
		removed++;
	}
	return removed;
}

/* ---- files ---- */

void journal_sync_dir(const zkp_journal *j)
{
	if (fsync(j->dirfd))
		zkp_log(ZKP_LOG_WARN, "journal %s: fsync of the directory: %s", j->dir,
			strerror(errno));
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A ProtobufCBuffer that writes to a file in chunks: an entry is never
 * packed into memory whole (its witness may be gigabytes). */
struct fdbuf {
	ProtobufCBuffer base;
	int fd;
	EVP_MD_CTX *md; /* SHA-256 of every byte appended: the checksum field */
	int error; /* errno of the first failed write */
	size_t n;
	uint8_t stage[STAGE_BYTES];
};

static void fdbuf_flush(struct fdbuf *f)
{
	if (!f->error && f->n)
		f->error = write_all(f->fd, f->stage, f->n);
	f->n = 0;
}

static void fdbuf_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct fdbuf *f = (struct fdbuf *)b;
	if (f->error || !len)
		return;
	if (f->md && !EVP_DigestUpdate(f->md, data, len)) {
		f->error = ENOMEM;
		return;
	}
	if (f->n + len <= sizeof(f->stage)) {
		memcpy(f->stage + f->n, data, len);
		f->n += len;
		return;
	}
	fdbuf_flush(f);
	if (f->error)
		return;
	if (len >= sizeof(f->stage)) {
		f->error = write_all(f->fd, data, len);
		return;
	}
	memcpy(f->stage, data, len);
	f->n = len;
}

/* Fills msg from r; every pointer is r's (nothing to free but inputs). */
static int entry_from_record(Zkpd__V1__JournalEntry *msg, Zkpd__V1__JournalResult *res,
			     ProtobufCBinaryData **inputs, const zkp_journal_record *r)
{
	msg->version = ZKP_JOURNAL_VERSION;
	msg->sequence = r->seq;
	msg->request_id = (char *)r->request_id;
	msg->circuit = (char *)r->circuit;
	msg->priority = (uint32_t)r->priority;
	msg->want_json = r->want_json;
	*inputs = NULL;
	if (!r->ended) {
		switch (r->witness_kind) {
		case ZKP_WITNESS_WTNS:
			msg->witness_case = ZKPD__V1__JOURNAL_ENTRY__WITNESS_WTNS;
			msg->wtns.data = r->data;
			msg->wtns.len = r->len;
			break;
		case ZKP_WITNESS_RAW:
			msg->witness_case = ZKPD__V1__JOURNAL_ENTRY__WITNESS_RAW;
			msg->raw.data = r->data;
			msg->raw.len = r->len;
			break;
		case ZKP_WITNESS_C1:
			msg->witness_case = ZKPD__V1__JOURNAL_ENTRY__WITNESS_C1;
			msg->c1.data = r->data;
			msg->c1.len = r->len;
			break;
		case ZKP_WITNESS_C1_PATH:
			msg->witness_case = ZKPD__V1__JOURNAL_ENTRY__WITNESS_C1_PATH;
			msg->c1_path = r->path ? r->path : (char *)"";
			break;
		case ZKP_WITNESS_SNAP:
			msg->witness_case = ZKPD__V1__JOURNAL_ENTRY__WITNESS_SNAP;
			msg->snap.data = r->data;
			msg->snap.len = r->len;
			break;
		case ZKP_WITNESS_POST:
			msg->witness_case = ZKPD__V1__JOURNAL_ENTRY__WITNESS_POST;
			msg->post.data = r->data;
			msg->post.len = r->len;
			break;
		default:
			msg->witness_case = ZKPD__V1__JOURNAL_ENTRY__WITNESS_PATH;
			msg->path = r->path ? r->path : (char *)"";
			break;
		}
		return 0;
	}
	res->state = (uint32_t)r->state;
	if (r->has_digest) {
		res->input_digest.data = (uint8_t *)r->input_digest;
		res->input_digest.len = ZKP_INPUT_DIGEST_BYTES;
	}
	res->queue_seconds = r->queue_seconds;
	res->total_seconds = r->total_seconds;
	if (r->state == ZKP_JOB_DONE) {
		res->proof.data = r->proof;
		res->proof.len = r->proof_len;
		res->partitions = r->partitions;
		if (r->proof_json)
			res->proof_json = r->proof_json;
		if (r->n_inputs) {
			*inputs = calloc(r->n_inputs, sizeof(**inputs));
			if (!*inputs)
				return ZKP_ERR_NOMEM;
			for (size_t i = 0; i < r->n_inputs; i++) {
				(*inputs)[i].data = r->inputs + 32 * i;
				(*inputs)[i].len = 32;
			}
			res->n_public_inputs = r->n_inputs;
			res->public_inputs = *inputs;
		}
	} else {
		int code = r->error_code ? r->error_code :
			   r->state == ZKP_JOB_CANCELLED ? ZKP_ERR_CANCELLED : ZKP_ERR_INVAL;
		res->error_code = (char *)zkp_err_name(code);
		res->error_message = (char *)r->error_message;
	}
	msg->result = res;
	return 0;
}

int journal_write_file(const zkp_journal *j, const zkp_journal_record *r, const char *name,
		       uint64_t tmp_no, bool *lost, zkp_error *err)
{
	Zkpd__V1__JournalEntry msg = ZKPD__V1__JOURNAL_ENTRY__INIT;
	Zkpd__V1__JournalResult res = ZKPD__V1__JOURNAL_RESULT__INIT;
	ProtobufCBinaryData *inputs = NULL;
	struct fdbuf *fb = NULL;
	char tmp[ZKP_JOURNAL_NAME_MAX + 48];
	const char *step = "open";
	int fd = -1, rc = 0, e = 0;
	bool renamed = false;

	*lost = false;
	snprintf(tmp, sizeof(tmp), "%s" TMP_MARK "%ld.%" PRIu64, name, (long)getpid(), tmp_no);
	fb = malloc(sizeof(*fb));
	if (fb)
		memset(fb, 0, offsetof(struct fdbuf, stage));
	if (!fb || entry_from_record(&msg, &res, &inputs, r)) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s/%s: out of memory", j->dir, name);
		goto out;
	}
	fd = openat(j->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = errno;
		goto fail;
	}
	step = "write";
	fb->base.append = fdbuf_append;
	fb->fd = fd;
	fb->md = EVP_MD_CTX_new();
	if (!fb->md || !EVP_DigestInit_ex(fb->md, EVP_sha256(), NULL)) {
		e = ENOMEM;
		goto fail;
	}
	protobuf_c_message_pack_to_buffer(&msg.base, &fb->base);
	/* The checksum field last: protobuf merges fields appended to a
	 * message, so the trailer is field 13 of the same entry. */
	uint8_t trailer[CHECKSUM_TRAILER];
	unsigned int dn = 0;
	trailer[0] = CHECKSUM_TAG;
	trailer[1] = DIGEST_BYTES;
	if (!EVP_DigestFinal_ex(fb->md, trailer + 2, &dn) || dn != DIGEST_BYTES) {
		e = ENOMEM;
		goto fail;
	}
	EVP_MD_CTX_free(fb->md);
	fb->md = NULL;
	fdbuf_append(&fb->base, sizeof(trailer), trailer);
	fdbuf_flush(fb);
	if ((e = fb->error))
		goto fail;
	step = "fsync";
	if (fsync(fd)) {
		e = errno;
		goto fail;
	}
	step = "close";
	e = close(fd) ? errno : 0;
	fd = -1;
	if (e)
		goto fail;
	step = "rename";
	if (renameat(j->dirfd, tmp, j->dirfd, name)) {
		e = errno;
		goto fail;
	}
	renamed = true;
	step = "fsync of the directory";
	if (fsync(j->dirfd)) {
		e = errno;
		goto fail;
	}
	goto out;
fail:
	rc = zkp_error_set(err, ZKP_ERR_IO, "journal %s/%s: %s: %s", j->dir, name, step,
			   strerror(e));
out:
	if (fd >= 0)
		close(fd);
	if (rc && !renamed)
		unlinkat(j->dirfd, tmp, 0);
	if (rc && renamed) {
		/* In place but not known to be durable: not to be relied on
		 * (and what it replaced is gone). */
		unlinkat(j->dirfd, name, 0);
		fsync(j->dirfd);
		*lost = true;
	}
	free(inputs);
	if (fb)
		EVP_MD_CTX_free(fb->md);
	free(fb);
	return rc;
}

int journal_prepare(zkp_journal *j, zkp_journal_record *r, char name[ZKP_JOURNAL_NAME_MAX],
		    uint64_t *tmp_no, zkp_error *err)
{
	uint8_t d[DIGEST_BYTES];
	*tmp_no = 0;
	if (!r->request_id[0])
		return zkp_error_set(err, ZKP_ERR_INVAL, "journal: a job without a request_id");
	if (journal_digest(d, r->request_id))
		return zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s: cannot hash request_id \"%s\"",
				     j->dir, r->request_id);
	journal_name(name, d);
	*tmp_no = j->tmp_count++;
	r->seq = j->next_seq++;
	return 0;
}

int journal_written(zkp_journal *j, const zkp_journal_record *r, int rc, bool lost,
		    zkp_error *err)
{
	uint8_t d[DIGEST_BYTES];
	if (journal_digest(d, r->request_id))
		return rc ? rc : zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s: out of memory", j->dir);
	struct jnode *n = journal_node_find(j, d);
	if (rc) {
		if (lost && n)
			journal_node_drop(j, n);
		return rc;
	}
	if (node_set(j, d, r->seq, r->ended)) {
		char name[ZKP_JOURNAL_NAME_MAX];
		journal_name(name, d);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s/%s: out of memory", j->dir, name);
	}
	if (r->ended && trim(j))
		journal_sync_dir(j);
	return 0;
}

int zkp_journal_write(zkp_journal *j, zkp_journal_record *r, zkp_error *err)
{
	char name[ZKP_JOURNAL_NAME_MAX];
	uint64_t tmp_no;
	bool lost = false;
	int rc = journal_prepare(j, r, name, &tmp_no, err);
	if (rc)
		return rc;
	rc = journal_write_file(j, r, name, tmp_no, &lost, err);
	return journal_written(j, r, rc, lost, err);
}

void zkp_journal_remove(zkp_journal *j, const char *request_id)
{
	uint8_t d[DIGEST_BYTES];
	char name[ZKP_JOURNAL_NAME_MAX];
	if (journal_digest(d, request_id)) {
		zkp_log(ZKP_LOG_WARN, "journal %s: cannot hash request_id \"%s\" to remove its "
			"file", j->dir, request_id);
		return;
	}
	journal_name(name, d);
	struct jnode *n = journal_node_find(j, d);
	if (n)
		journal_node_drop(j, n);
	if (unlinkat(j->dirfd, name, 0)) {
		if (errno != ENOENT)
			zkp_log(ZKP_LOG_WARN, "journal %s/%s: cannot remove: %s", j->dir, name,
				strerror(errno));
		return;
	}
	journal_sync_dir(j);
}

static void set_aside_name(zkp_journal *j, const char *name, const char *why)
{
	char bad[ZKP_JOURNAL_NAME_MAX + 8];
	int n = snprintf(bad, sizeof(bad), "%s" BAD_SUFFIX, name);
	if (n < 0 || (size_t)n >= sizeof(bad) || renameat(j->dirfd, name, j->dirfd, bad)) {
		zkp_log(ZKP_LOG_WARN, "journal %s/%s: %s; cannot rename it %s: %s (ignored)",
			j->dir, name, why, BAD_SUFFIX, strerror(errno));
		return;
	}
	zkp_log(ZKP_LOG_WARN, "journal %s/%s: %s; renamed %s", j->dir, name, why, bad);
}

void zkp_journal_set_aside(zkp_journal *j, const char *request_id, const char *why)
{
	uint8_t d[DIGEST_BYTES];
	char name[ZKP_JOURNAL_NAME_MAX];
	if (journal_digest(d, request_id)) {
		zkp_log(ZKP_LOG_WARN, "journal %s: request_id \"%s\": %s (cannot hash it to set "
			"its file aside)", j->dir, request_id, why);
		return;
	}
	journal_name(name, d);
	struct jnode *n = journal_node_find(j, d);
	if (n)
		journal_node_drop(j, n);
	set_aside_name(j, name, why);
	journal_sync_dir(j);
}

/* ---- reading ---- */

void zkp_journal_record_release(zkp_journal_record *r)
{
	free(r->proof);
	r->proof = NULL;
	r->proof_len = 0;
	free(r->data);
	free(r->path);
	free(r->proof_json);
	free(r->inputs);
	r->data = NULL;
	r->path = NULL;
	r->proof_json = NULL;
	r->inputs = NULL;
	r->len = r->n_inputs = 0;
}

/* Reads a whole file. Returns 0 or an errno. */
static int read_file(int dirfd, const char *name, uint8_t **ret, size_t *len)
{
	struct stat st;
	uint8_t *buf = NULL;
	int e = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	*ret = NULL;
	*len = 0;
	if (fd < 0)
		return errno;
	if (fstat(fd, &st)) {
		e = errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		goto out;
	}
	size_t size = (size_t)st.st_size;
	buf = malloc(size ? size : 1);
	if (!buf) {
		e = ENOMEM;
		goto out;
	}
	for (size_t off = 0; off < size;) {
		ssize_t n = read(fd, buf + off, size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : EIO; /* shrank while read */
			goto out;
		}
		off += (size_t)n;
	}
	*ret = buf;
	*len = size;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return e;
}

/* Checks msg and moves its content into r. Returns NULL, or why the entry
 * is not valid (written into why). */
static const char *record_from_entry(zkp_journal_record *r, Zkpd__V1__JournalEntry *msg,
				     const uint8_t d[DIGEST_BYTES], char *why, size_t size)
{
	uint8_t rd[DIGEST_BYTES];
	memset(r, 0, sizeof(*r));
	if (msg->version != ZKP_JOURNAL_VERSION) {
		snprintf(why, size, "entry version %u (this zkpd reads version %d)", msg->version,
			 ZKP_JOURNAL_VERSION);
		return why;
	}
	if (!msg->request_id || !*msg->request_id || strlen(msg->request_id) > ZKP_REQUEST_ID_MAX)
		return "no request_id, or one longer than 128 bytes";
	if (journal_digest(rd, msg->request_id))
		return "out of memory reading it";
	if (memcmp(rd, d, DIGEST_BYTES))
		return "the file name is not the SHA-256 of the entry's request_id";
	if (!msg->circuit || !*msg->circuit || strlen(msg->circuit) >= ZKP_CONFIG_NAME_MAX)
		return "no circuit name, or one too long";
	if (msg->priority > ZKP_PRIO_CRITICAL) {
		snprintf(why, size, "priority %u is not a priority", msg->priority);
		return why;
	}
	r->seq = msg->sequence;
	snprintf(r->request_id, sizeof(r->request_id), "%s", msg->request_id);
	snprintf(r->circuit, sizeof(r->circuit), "%s", msg->circuit);
	r->priority = (enum zkp_priority)msg->priority;
	r->want_json = msg->want_json;
	if (msg->result) {
		Zkpd__V1__JournalResult *res = msg->result;
		if (msg->witness_case != ZKPD__V1__JOURNAL_ENTRY__WITNESS__NOT_SET)
			return "both a witness and a result";
		if (res->state != ZKP_JOB_DONE && res->state != ZKP_JOB_FAILED &&
		    res->state != ZKP_JOB_CANCELLED) {
			snprintf(why, size, "result state %u is not an end state", res->state);
			return why;
		}
		r->ended = true;
		r->state = (enum zkp_job_state)res->state;
		if (res->input_digest.len && res->input_digest.len != ZKP_INPUT_DIGEST_BYTES) {
			snprintf(why, size, "an input digest of %zu bytes (expected %d)",
				 res->input_digest.len, ZKP_INPUT_DIGEST_BYTES);
			return why;
		}
		r->has_digest = res->input_digest.len == ZKP_INPUT_DIGEST_BYTES;
		if (r->has_digest)
			memcpy(r->input_digest, res->input_digest.data, ZKP_INPUT_DIGEST_BYTES);
		r->queue_seconds = res->queue_seconds;
		r->total_seconds = res->total_seconds;
		if (r->state != ZKP_JOB_DONE) {
			r->error_code = err_from_name(res->error_code);
			snprintf(r->error_message, sizeof(r->error_message), "%s",
				 res->error_message ? res->error_message : "");
			return NULL;
		}
		size_t want = (size_t)ZKP_GROTH16_PROOF_BYTES *
			      (res->partitions ? res->partitions : 1);
		if (res->partitions > ZKP_JOURNAL_MAX_PARTITIONS) {
			snprintf(why, size, "%u partitions (at most %d)", res->partitions,
				 ZKP_JOURNAL_MAX_PARTITIONS);
			return why;
		}
		if (res->proof.len != want) {
			snprintf(why, size, "a proof of %zu bytes (expected %zu)", res->proof.len,
				 want);
			return why;
		}
		r->proof = res->proof.data; /* taken from msg */
		r->proof_len = res->proof.len;
		r->partitions = res->partitions;
		res->proof.data = NULL;
		res->proof.len = 0;
		for (size_t i = 0; i < res->n_public_inputs; i++)
			if (res->public_inputs[i].len != 32) {
				snprintf(why, size, "public input %zu has %zu bytes (expected 32)",
					 i, res->public_inputs[i].len);
				return why;
			}
		if (res->n_public_inputs) {
			r->inputs = malloc(res->n_public_inputs * 32);
			if (!r->inputs)
				return "out of memory reading it";
			for (size_t i = 0; i < res->n_public_inputs; i++)
				memcpy(r->inputs + 32 * i, res->public_inputs[i].data, 32);
			r->n_inputs = res->n_public_inputs;
		}
		if (res->proof_json && *res->proof_json) {
			r->proof_json = res->proof_json; /* taken from msg */
			res->proof_json = NULL;
		}
		return NULL;
	}
	switch (msg->witness_case) {
	case ZKPD__V1__JOURNAL_ENTRY__WITNESS_WTNS:
	case ZKPD__V1__JOURNAL_ENTRY__WITNESS_RAW:
	case ZKPD__V1__JOURNAL_ENTRY__WITNESS_C1:
	case ZKPD__V1__JOURNAL_ENTRY__WITNESS_SNAP:
	case ZKPD__V1__JOURNAL_ENTRY__WITNESS_POST: {
		bool wtns = msg->witness_case == ZKPD__V1__JOURNAL_ENTRY__WITNESS_WTNS;
		bool c1 = msg->witness_case == ZKPD__V1__JOURNAL_ENTRY__WITNESS_C1;
		bool snap = msg->witness_case == ZKPD__V1__JOURNAL_ENTRY__WITNESS_SNAP;
		bool post = msg->witness_case == ZKPD__V1__JOURNAL_ENTRY__WITNESS_POST;
		ProtobufCBinaryData *b = wtns ? &msg->wtns :
					 c1   ? &msg->c1 :
					 snap ? &msg->snap :
					 post ? &msg->post :
						&msg->raw;
		if (!b->len)
			return c1 ? "an empty C1" : snap ? "an empty SnapDeals update" :
				    post ? "an empty PoSt job" : "an empty witness";
		/* Taken from msg: a witness may be gigabytes. */
		r->witness_kind = wtns ? ZKP_WITNESS_WTNS :
				  c1   ? ZKP_WITNESS_C1 :
				  snap ? ZKP_WITNESS_SNAP :
				  post ? ZKP_WITNESS_POST :
					 ZKP_WITNESS_RAW;
		r->data = b->data;
		r->len = b->len;
		b->data = NULL;
		b->len = 0;
		return NULL;
	}
	case ZKPD__V1__JOURNAL_ENTRY__WITNESS_PATH:
		if (!msg->path || !*msg->path)
			return "an empty witness path";
		r->witness_kind = ZKP_WITNESS_PATH;
		r->path = msg->path;
		msg->path = NULL;
		return NULL;
	case ZKPD__V1__JOURNAL_ENTRY__WITNESS_C1_PATH:
		if (!msg->c1_path || !*msg->c1_path)
			return "an empty C1 path";
		r->witness_kind = ZKP_WITNESS_C1_PATH;
		r->path = msg->c1_path;
		msg->c1_path = NULL;
		return NULL;
	default:
		return "neither a witness nor a result";
	}
}

const char *zkp_journal_decode(zkp_journal_record *r, const uint8_t *buf, size_t len,
			       const char *name, char *why, size_t size)
{
	uint8_t d[DIGEST_BYTES];
	memset(r, 0, sizeof(*r));
	if (!parse_name(d, name))
		return "not a journal file name (64 hex digits and .job)";
	Zkpd__V1__JournalEntry *msg = zkpd__v1__journal_entry__unpack(NULL, len, buf);
	if (!msg) {
		snprintf(why, size, "%zu bytes that do not decode as a zkpd.v1.JournalEntry", len);
		return why;
	}
	/* Files from writers before checksums have none; one that has it
	 * must have it last, over every byte before it. */
	if (msg->checksum.len) {
		uint8_t sum[DIGEST_BYTES];
		unsigned int dn = 0;
		bool trailer = msg->checksum.len == DIGEST_BYTES && len >= CHECKSUM_TRAILER &&
			       buf[len - CHECKSUM_TRAILER] == CHECKSUM_TAG &&
			       buf[len - CHECKSUM_TRAILER + 1] == DIGEST_BYTES;
		if (!trailer || !EVP_Digest(buf, len - CHECKSUM_TRAILER, sum, &dn, EVP_sha256(),
					    NULL) ||
		    CRYPTO_memcmp(sum, buf + len - DIGEST_BYTES, DIGEST_BYTES) != 0) {
			zkpd__v1__journal_entry__free_unpacked(msg, NULL);
			snprintf(why, size, "checksum mismatch: the file's %zu bytes changed after "
				 "they were written", len);
			return why;
		}
	}
	const char *bad = record_from_entry(r, msg, d, why, size);
	zkpd__v1__journal_entry__free_unpacked(msg, NULL);
	if (bad)
		zkp_journal_record_release(r);
	return bad;
}

/* Reads one NAME.job into r. Returns NULL, or why it is not usable. */
static const char *load_one(zkp_journal *j, const char *name, zkp_journal_record *r, char *why,
			    size_t size)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int e = read_file(j->dirfd, name, &buf, &len);
	if (e) {
		memset(r, 0, sizeof(*r));
		snprintf(why, size, "cannot read it: %s", strerror(e));
		return why;
	}
	const char *bad = zkp_journal_decode(r, buf, len, name, why, size);
	free(buf);
	return bad;
}

static int by_seq(const void *a, const void *b)
{
	const zkp_journal_record *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int zkp_journal_load(zkp_journal *j, zkp_journal_record **ret, size_t *n, zkp_error *err)
{
	zkp_journal_record *recs = NULL;
	size_t n_recs = 0, cap = 0;
	bool changed = false;
	int rc = 0;
	*ret = NULL;
	*n = 0;
	int fd = openat(j->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "journal %s: cannot list it: %s", j->dir,
				   strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	struct dirent *de;
	while ((de = readdir(dir))) {
		uint8_t d[DIGEST_BYTES];
		char why[256];
		if (!parse_name(d, de->d_name))
			continue; /* .bad files, and anything that is not ours */
		if (n_recs == cap) {
			size_t c = cap ? 2 * cap : 16;
			zkp_journal_record *nr = realloc(recs, c * sizeof(*nr));
			if (!nr) {
				rc = zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s: out of memory",
						   j->dir);
				goto out;
			}
			recs = nr;
			cap = c;
		}
		const char *bad = load_one(j, de->d_name, &recs[n_recs], why, sizeof(why));
		if (bad) {
			set_aside_name(j, de->d_name, bad);
			changed = true;
			continue;
		}
		n_recs++;
	}
	if (n_recs > 1)
		qsort(recs, n_recs, sizeof(*recs), by_seq);
	for (size_t i = 0; i < n_recs; i++) {
		uint8_t d[DIGEST_BYTES];
		if (journal_digest(d, recs[i].request_id) || node_set(j, d, recs[i].seq, recs[i].ended)) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s: out of memory", j->dir);
			goto out;
		}
		if (recs[i].seq >= j->next_seq)
			j->next_seq = recs[i].seq + 1;
	}
	if (trim(j)) {
		changed = true;
		/* Keep the records whose files are still there. */
		size_t k = 0;
		for (size_t i = 0; i < n_recs; i++) {
			uint8_t d[DIGEST_BYTES];
			/* hashed once already above */
			if (!journal_digest(d, recs[i].request_id) && journal_node_find(j, d))
				recs[k++] = recs[i];
			else
				zkp_journal_record_release(&recs[i]);
		}
		n_recs = k;
	}
	*ret = recs;
	*n = n_recs;
	recs = NULL;
	n_recs = 0;
out:
	if (dir)
		closedir(dir);
	if (changed)
		journal_sync_dir(j);
	for (size_t i = 0; i < n_recs; i++)
		zkp_journal_record_release(&recs[i]);
	free(recs);
	return rc;
}

/* ---- open and free ---- */

/* Removes the temporary files a crash left behind. */
static void remove_temporaries(zkp_journal *j)
{
	int fd = openat(j->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	size_t removed = 0;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(dir)))
		if (strstr(de->d_name, TMP_MARK) && !unlinkat(j->dirfd, de->d_name, 0))
			removed++;
	closedir(dir);
	if (removed) {
		zkp_log(ZKP_LOG_INFO, "journal %s: removed %zu unfinished temporary file(s)", j->dir,
			removed);
		journal_sync_dir(j);
	}
}

int zkp_journal_open(zkp_journal **ret, const char *dir, uint32_t history, zkp_error *err)
{
	zkp_journal *j = calloc(1, sizeof(*j));
	int rc = 0;
	*ret = NULL;
	if (!j)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s: out of memory", dir);
	j->dirfd = -1;
	pthread_mutex_init(&j->wlock, NULL);
	pthread_cond_init(&j->wcond, NULL);
	j->history = history;
	j->next_seq = 1;
	j->tab_size = 64;
	j->dir = strdup(dir);
	j->tab = calloc(j->tab_size, sizeof(*j->tab));
	if (!j->dir || !j->tab) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s: out of memory", dir);
		goto out;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "server.journal_dir %s: cannot create it: %s",
				   dir, strerror(errno));
		goto out;
	}
	j->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dirfd < 0) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "server.journal_dir %s: %s", dir,
				   strerror(errno));
		goto out;
	}
	remove_temporaries(j);
	*ret = j;
	j = NULL;
out:
	zkp_journal_free(j);
	return rc;
}

void zkp_journal_free(zkp_journal *j)
{
	if (!j)
		return;
	journal_writer_stop(j);
	pthread_mutex_destroy(&j->wlock);
	pthread_cond_destroy(&j->wcond);
	for (size_t i = 0; i < j->tab_size; i++)
		for (struct jnode *n = j->tab[i], *next; n; n = next) {
			next = n->hnext;
			free(n);
		}
	if (j->dirfd >= 0)
		close(j->dirfd);
	free(j->tab);
	free(j->ring);
	free(j->verifying);
	free(j->dir);
	free(j);
}

/* ---- engine glue ---- */

bool journal_ended_state(enum zkp_job_state s)
{
	return s == ZKP_JOB_DONE || s == ZKP_JOB_FAILED || s == ZKP_JOB_CANCELLED;
}

void journal_bind_job(zkp_journal *j, const char *request_id, uint64_t job_id)
{
	uint8_t d[DIGEST_BYTES];
	struct jnode *n = journal_digest(d, request_id) ? NULL : journal_node_find(j, d);
	if (n && !n->ended)
		n->job_id = job_id;
}

static void info_from_record(zkp_job_info *info, const zkp_journal_record *r)
{
	memset(info, 0, sizeof(*info));
	info->state = r->state;
	info->priority = r->priority;
	info->queue_seconds = r->queue_seconds;
	info->total_seconds = r->total_seconds;
	snprintf(info->circuit, sizeof(info->circuit), "%s", r->circuit);
	snprintf(info->request_id, sizeof(info->request_id), "%s", r->request_id);
	info->proof = r->proof; /* borrowed, as the rest */
	info->proof_len = r->proof_len;
	info->partitions = r->partitions;
	info->proof_json = r->proof_json; /* borrowed */
	info->inputs = r->inputs;
	info->n_inputs = r->n_inputs;
	info->error_code = r->error_code;
	memcpy(info->error_message, r->error_message, sizeof(info->error_message));
	info->has_digest = r->has_digest;
	memcpy(info->input_digest, r->input_digest, sizeof(info->input_digest));
}

/* A result record back into the engine's history. Returns 0 or the
 * engine's error (logged, the file set aside when it can never be used). */
static int restore_result(zkp_journal *j, zkp_engine *e, const zkp_journal_record *r)
{
	zkp_job_info info;
	zkp_error err = { 0 };
	uint64_t id = 0;
	info_from_record(&info, r);
	bool verifying = false;
	int rc = zkp_engine_restore_result(e, &info, &id, &verifying, &err);
	if (!rc && verifying) {
		if (j->n_verifying == j->cap_verifying) {
			size_t cap = j->cap_verifying ? 2 * j->cap_verifying : 16;
			struct restored *v = realloc(j->verifying, cap * sizeof(*v));
			if (!v) /* not watched: a failure is then only logged */
				return 0;
			j->verifying = v;
			j->cap_verifying = cap;
		}
		struct restored *v = &j->verifying[j->n_verifying++];
		v->job_id = id;
		snprintf(v->request_id, sizeof(v->request_id), "%s", r->request_id);
	}
	if (rc == ZKP_ERR_NOT_FOUND || rc == ZKP_ERR_INVAL)
		zkp_journal_set_aside(j, r->request_id, zkp_error_text(&err, rc));
	else if (rc)
		zkp_log(ZKP_LOG_WARN, "journal %s: request_id \"%s\": cannot restore its result: %s",
			j->dir, r->request_id, zkp_error_text(&err, rc));
	return rc;
}

int zkp_journal_restore(zkp_journal *j, zkp_engine *e, zkp_error *err)
{
	zkp_journal_record *recs = NULL;
	size_t n = 0, restored = 0, resubmitted = 0, failed = 0, set_aside = 0;
	int rc = zkp_journal_load(j, &recs, &n, err);
	if (rc)
		return rc;
	/* Results first: a request_id in both cannot happen (one file each),
	 * and the history's order is the results' end order. */
	for (size_t i = 0; i < n; i++) {
		if (!recs[i].ended)
			continue;
		int r = restore_result(j, e, &recs[i]);
		restored += r == 0;
		set_aside += r == ZKP_ERR_NOT_FOUND || r == ZKP_ERR_INVAL;
	}
	for (size_t i = 0; i < n; i++) {
		zkp_journal_record *r = &recs[i];
		if (r->ended)
			continue;
		zkp_job_spec spec = {
			.circuit = r->circuit,
			.witness_kind = r->witness_kind,
			.data = r->data,
			.len = r->len,
			.path = r->path,
			.priority = r->priority,
			.request_id = r->request_id,
			.want_json = r->want_json,
		};
		zkp_error serr = { 0 };
		uint64_t id = 0;
		bool attached = false;
		r->data = NULL; /* the engine's from here on */
		int src = zkp_engine_submit(e, &spec, &id, &attached, &serr);
		if (!src) {
			journal_bind_job(j, r->request_id, id);
			resubmitted++;
			continue;
		}
		/* The job cannot run again (its witness file went away, a
		 * limit): it ends FAILED with the engine's reason, so that the
		 * client who asks by request_id learns why. One for a circuit
		 * no longer configured cannot be kept even so: restore_result
		 * sets it aside. */
		zkp_log(ZKP_LOG_WARN, "journal %s: request_id \"%s\": cannot resubmit: %s", j->dir,
			r->request_id, zkp_error_text(&serr, src));
		zkp_journal_record_release(r);
		r->ended = true;
		r->state = ZKP_JOB_FAILED;
		r->error_code = src;
		snprintf(r->error_message, sizeof(r->error_message), "resubmitted after a restart: %s",
			 zkp_error_text(&serr, src));
		zkp_error werr = { 0 };
		int wrc = zkp_journal_write(j, r, &werr);
		if (wrc)
			zkp_log(ZKP_LOG_WARN, "%s", zkp_error_text(&werr, wrc));
		int rrc = restore_result(j, e, r);
		if (rrc == ZKP_ERR_NOT_FOUND || rrc == ZKP_ERR_INVAL)
			set_aside++;
		else
			failed++;
	}
	if (n || set_aside)
		zkp_log(ZKP_LOG_INFO,
			"journal %s: %zu result(s) restored, %zu job(s) resubmitted, %zu failed "
			"to resubmit, %zu set aside",
			j->dir, restored, resubmitted, failed, set_aside);
	for (size_t i = 0; i < n; i++)
		zkp_journal_record_release(&recs[i]);
	free(recs);
	return 0;
}
