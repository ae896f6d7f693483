/*
 * The C1 writer (include/zkpd/porep_c1.h, docs/filecoin-c1.md): what
 * serde_json::to_vec writes for rust-filecoin-proofs-api's
 * SealCommitPhase1Output. Compact, fields in declaration order, enums
 * externally tagged ({"Variant": value}), PhantomData as null (Column's
 * "_h"; the skipped PhantomData of LabelingProof, EncodingProof and
 * PathElement write nothing), [u8; 32] values as arrays of 32 numbers.
 *
 * What a zkp_porep_c1 does not keep is regenerated as rust-fil-proofs'
 * Proof::from_parts (stacked/vanilla/params.rs) builds it: the labeling
 * proof of layer l lists its 37 parents' labels (layer 1: the 6 DRG
 * parents' layer-1 labels, cycled; later layers: the DRG parents' layer-l
 * and the expander parents' layer-(l-1) labels, 14 values cycled), the
 * encoding proof repeats the last layer's, and a column proof's leaf is
 * the Poseidon-L hash of its rows.
 *
 * Output goes through a 1 MiB buffer to a temporary file, base64-encoded on
 * the way when wrapped, so memory does not grow with the C1.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "c1_int.h"
#include "zkpd/porep_c1.h"
#include "zkpd/poseidon.h"

#define BUF_SIZE (1u << 20) /* a multiple of 3: whole base64 groups */
#define BUF_CAP (BUF_SIZE + 3)

struct out {
	int fd;
	char *tmp;
	const char *path;
	uint8_t *buf;
	size_t len;
	bool b64;     /* encode what is put as base64 */
	uint8_t *enc; /* base64 of one buffer */
	int rc;
	zkp_error *err;
};

static void write_all(struct out *o, const uint8_t *p, size_t n)
{
	while (n && !o->rc) {
		ssize_t k = write(o->fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			o->rc = zkp_error_set(o->err, ZKP_ERR_IO, "%s: write to %s failed: %s",
					      o->path, o->tmp, strerror(errno));
			return;
		}
		p += k;
		n -= (size_t)k;
	}
}

/* Writes the buffer out; base64 keeps a partial group back unless last. */
static void flush(struct out *o, bool last)
{
	if (!o->b64) {
		write_all(o, o->buf, o->len);
		o->len = 0;
		return;
	}
	size_t m = last ? o->len : o->len - o->len % 3;
	int n = EVP_EncodeBlock(o->enc, o->buf, (int)m);
	write_all(o, o->enc, (size_t)n);
	memmove(o->buf, o->buf + m, o->len - m);
	o->len -= m;
}

static void put(struct out *o, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		size_t k = BUF_CAP - o->len < n ? BUF_CAP - o->len : n;
		memcpy(o->buf + o->len, b, k);
		o->len += k;
		b += k;
		n -= k;
		if (o->len >= BUF_SIZE)
			flush(o, false);
	}
}

static void puts_(struct out *o, const char *s) { put(o, s, strlen(s)); }

static void put_u64(struct out *o, uint64_t v)
{
	char t[24];
	put(o, t, (size_t)snprintf(t, sizeof(t), "%llu", (unsigned long long)v));
}

static void put_bytes(struct out *o, const uint8_t b[32])
{
	char t[32 * 4 + 2];
	size_t n = 0;
	t[n++] = '[';
	for (int i = 0; i < 32; i++) {
		unsigned v = b[i];
		if (i)
			t[n++] = ',';
		if (v >= 100)
			t[n++] = (char)('0' + v / 100);
		if (v >= 10)
			t[n++] = (char)('0' + v / 10 % 10);
		t[n++] = (char)('0' + v % 10);
	}
	t[n++] = ']';
	put(o, t, n);
}

static void put_fr(struct out *o, const zkp_fr *v)
{
	uint8_t b[32];
	zkp_fr_to_le(b, v);
	put_bytes(o, b);
}

static void put_frs(struct out *o, const zkp_fr *v, unsigned n)
{
	puts_(o, "[");
	for (unsigned i = 0; i < n; i++) {
		if (i)
			puts_(o, ",");
		put_fr(o, &v[i]);
	}
	puts_(o, "]");
}

/* InclusionPath {"path": [PathElement {hashes, index}]} of levels
 * [lvl0, lvl0 + nlev), their siblings from sib0. */
static void put_incpath(struct out *o, const zkp_tree_shape *t, const zkp_path *p, unsigned lvl0,
			unsigned nlev, unsigned sib0)
{
	puts_(o, "{\"path\":[");
	for (unsigned l = lvl0; l < lvl0 + nlev; l++) {
		unsigned a = zkp_tree_level_arity(t, l);
		if (l > lvl0)
			puts_(o, ",");
		puts_(o, "{\"hashes\":");
		put_frs(o, &p->siblings[sib0], a - 1);
		sib0 += a - 1;
		puts_(o, ",\"index\":");
		put_u64(o, p->index[l]);
		puts_(o, "}");
	}
	puts_(o, "]}");
}

/* MerkleProof {"data": ProofData}: Single {root, leaf, path}, Sub
 * {base_proof, sub_proof, root, leaf} or Top {..., top_proof, root, leaf}. */
static void put_mp(struct out *o, const zkp_tree_shape *t, const zkp_path *p, const zkp_fr *root,
		   const zkp_fr *leaf)
{
	unsigned base = t->base_levels, bsib = base * (t->arity[0] - 1);
	if (!t->arity[1]) {
		puts_(o, "{\"data\":{\"Single\":{\"root\":");
		put_fr(o, root);
		puts_(o, ",\"leaf\":");
		put_fr(o, leaf);
		puts_(o, ",\"path\":");
		put_incpath(o, t, p, 0, base, 0);
		puts_(o, "}}}");
		return;
	}
	puts_(o, t->arity[2] ? "{\"data\":{\"Top\":{\"base_proof\":"
			     : "{\"data\":{\"Sub\":{\"base_proof\":");
	put_incpath(o, t, p, 0, base, 0);
	puts_(o, ",\"sub_proof\":");
	put_incpath(o, t, p, base, 1, bsib);
	if (t->arity[2]) {
		puts_(o, ",\"top_proof\":");
		put_incpath(o, t, p, base + 1, 1, bsib + t->arity[1] - 1);
	}
	puts_(o, ",\"root\":");
	put_fr(o, root);
	puts_(o, ",\"leaf\":");
	put_fr(o, leaf);
	puts_(o, "}}}");
}

/* ColumnProof {column {index, rows, _h}, inclusion_proof}; the leaf is
 * the column's hash. */
static void put_colproof(struct out *o, const zkp_tree_shape *t, const zkp_poseidon_consts *pc,
			 uint32_t index, const zkp_fr *rows, unsigned L, const zkp_path *p,
			 const zkp_fr *root)
{
	zkp_fr leaf;
	zkp_poseidon_hash(&leaf, pc, rows);
	puts_(o, "{\"column\":{\"index\":");
	put_u64(o, index);
	puts_(o, ",\"rows\":");
	put_frs(o, rows, L);
	puts_(o, ",\"_h\":null},\"inclusion_proof\":");
	put_mp(o, t, p, root, &leaf);
	puts_(o, "}");
}

/* The 37 parent labels of layer (1-based) for a challenge. */
static void label_parents(zkp_fr out[ZKP_POREP_LABEL_PARENTS], const zkp_porep_challenge *ch,
			  unsigned layer)
{
	unsigned n = layer == 1 ? ZKP_POREP_DRG_PARENTS : ZKP_POREP_PARENTS;
	for (unsigned k = 0; k < ZKP_POREP_LABEL_PARENTS; k++) {
		unsigned p = k % n;
		out[k] = ch->parent_rows[p][p < ZKP_POREP_DRG_PARENTS ? layer - 1 : layer - 2];
	}
}

static void put_lp(struct out *o, const zkp_porep_challenge *ch, unsigned layer)
{
	zkp_fr parents[ZKP_POREP_LABEL_PARENTS];
	label_parents(parents, ch, layer);
	puts_(o, "{\"parents\":");
	put_frs(o, parents, ZKP_POREP_LABEL_PARENTS);
	puts_(o, ",\"layer_index\":");
	put_u64(o, layer);
	puts_(o, ",\"node\":");
	put_u64(o, ch->node);
	puts_(o, "}");
}

static void put_proof(struct out *o, const zkp_porep_c1 *c1, unsigned k,
		      const zkp_porep_c1_challenge *c, const zkp_tree_shape *td,
		      const zkp_tree_shape *tcr, const zkp_poseidon_consts *pc)
{
	const unsigned L = c1->shape.layers;
	const zkp_porep_challenge *ch = &c->ch;
	puts_(o, "{\"comm_d_proofs\":");
	put_mp(o, td, &ch->comm_d_path, &c->roots[0], &ch->data_leaf);
	puts_(o, ",\"comm_r_last_proof\":");
	put_mp(o, tcr, &ch->comm_r_last_path, &c->roots[1], &c->comm_r_last_leaf);
	puts_(o, ",\"replica_column_proofs\":{\"c_x\":");
	put_colproof(o, tcr, pc, c->column_index, c->column_rows, L, &ch->comm_c_path,
		     &c->roots[2]);
	for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++) {
		puts_(o, p == 0                       ? ",\"drg_parents\":["
			 : p == ZKP_POREP_DRG_PARENTS ? "],\"exp_parents\":["
						      : ",");
		put_colproof(o, tcr, pc, c->parent_nodes[p], ch->parent_rows[p], L,
			     &ch->parent_paths[p], &c1->comm_c[k]);
	}
	puts_(o, "]},\"labeling_proofs\":[");
	for (unsigned l = 1; l <= L; l++) {
		if (l > 1)
			puts_(o, ",");
		put_lp(o, ch, l);
	}
	puts_(o, "],\"encoding_proof\":");
	put_lp(o, ch, L);
	puts_(o, "}");
}

static void put_c1(struct out *o, const zkp_porep_c1 *c1, const char *tag,
		   const zkp_poseidon_consts *pc)
{
	zkp_tree_shape td, tcr;
	zkp_porep_tree_d(&c1->shape, &td);
	zkp_porep_tree_cr(&c1->shape, &tcr);
	puts_(o, "{\"registered_proof\":\"");
	puts_(o, c1->registered_proof);
	puts_(o, "\",\"vanilla_proofs\":{\"");
	puts_(o, tag);
	puts_(o, "\":[");
	for (unsigned k = 0; k < c1->partitions && !o->rc; k++) {
		puts_(o, k ? ",[" : "[");
		for (unsigned i = 0; i < c1->challenges; i++) {
			if (i)
				puts_(o, ",");
			put_proof(o, c1, k, &c1->ch[(size_t)k * c1->challenges + i], &td, &tcr, pc);
		}
		puts_(o, "]");
	}
	puts_(o, "]},\"comm_r\":");
	put_bytes(o, c1->comm_r);
	puts_(o, ",\"comm_d\":");
	put_bytes(o, c1->comm_d);
	puts_(o, ",\"replica_id\":");
	put_bytes(o, c1->replica_id);
	puts_(o, ",\"seed\":");
	put_bytes(o, c1->seed);
	puts_(o, ",\"ticket\":");
	put_bytes(o, c1->ticket);
	puts_(o, "}");
}

/* A temporary file next to path (".NAME.tmp.XXXXXX"). */
static int open_tmp(struct out *o, const char *path)
{
	char *d = strdup(path), *b = strdup(path);
	size_t n = strlen(path) + 32;
	o->tmp = malloc(n);
	if (!d || !b || !o->tmp) {
		free(d);
		free(b);
		free(o->tmp);
		o->tmp = NULL;
		return zkp_error_set(o->err, ZKP_ERR_NOMEM, "%s: out of memory", path);
	}
	snprintf(o->tmp, n, "%s/.%s.tmp.XXXXXX", dirname(d), basename(b));
	free(d);
	free(b);
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		int rc = zkp_error_set(o->err, ZKP_ERR_IO, "%s: cannot create %s: %s", path, o->tmp,
				       strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return rc;
	}
	return 0;
}

static int commit(struct out *o)
{
	if (fsync(o->fd) || fchmod(o->fd, 0644))
		return zkp_error_set(o->err, ZKP_ERR_IO, "%s: fsync of %s failed: %s", o->path,
				     o->tmp, strerror(errno));
	int rc = close(o->fd);
	o->fd = -1;
	if (rc)
		return zkp_error_set(o->err, ZKP_ERR_IO, "%s: close of %s failed: %s", o->path,
				     o->tmp, strerror(errno));
	if (rename(o->tmp, o->path))
		return zkp_error_set(o->err, ZKP_ERR_IO, "%s: rename from %s failed: %s", o->path,
				     o->tmp, strerror(errno));
	free(o->tmp);
	o->tmp = NULL;
	char *d = strdup(o->path);
	if (d) { /* the rename itself durable */
		int dfd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(d);
	}
	return 0;
}

int zkp_porep_c1_write(const zkp_porep_c1 *c1, const char *path, int wrap, int64_t sector_num,
		       zkp_error *err)
{
	struct out o = { .fd = -1, .path = path, .err = err };
	const zkp_poseidon_consts *pc;
	char tag[32] = "";
	int rc;

	int ni, size = c1_proof_size(c1->registered_proof, strnlen(c1->registered_proof, 64), &ni);
	for (unsigned i = 0; i < C1_SIZES; i++)
		if (c1_size_bytes(i) == c1->sector_bytes)
			snprintf(tag, sizeof(tag), "StackedDrg%sV1", c1_size_name(i));
	if (!tag[0] || size < 0 || c1_size_bytes((unsigned)size) != c1->sector_bytes ||
	    c1->shape.nodes == 0 || !c1->partitions || !c1->challenges || c1->shape.layers < 1 ||
	    c1->shape.layers > ZKP_POREP_MAX_LAYERS)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%s: not a complete C1 (sector size %llu, registered_proof "
				     "\"%s\", %u partitions of %u)",
				     path, (unsigned long long)c1->sector_bytes,
				     c1->registered_proof, c1->partitions, c1->challenges);
	if ((rc = zkp_poseidon_consts_get(&pc, c1->shape.layers)))
		return zkp_error_set(err, rc, "%s: Poseidon constants for arity %u", path,
				     c1->shape.layers);
	o.buf = malloc(BUF_CAP);
	o.enc = malloc(BUF_CAP / 3 * 4 + 8);
	if (!o.buf || !o.enc) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	if ((rc = open_tmp(&o, path)))
		goto out;
	if (wrap) { /* Go's json.Marshal of {SectorNum int64, Phase1Out []byte, SectorSize uint64}
		     */
		char head[64];
		snprintf(head, sizeof(head), "{\"SectorNum\":%lld,\"Phase1Out\":\"",
			 (long long)sector_num);
		puts_(&o, head);
		flush(&o, true);
		o.b64 = true;
	}
	put_c1(&o, c1, tag, pc);
	if (wrap) {
		flush(&o, true);
		o.b64 = false;
		puts_(&o, "\",\"SectorSize\":");
		put_u64(&o, c1->sector_bytes);
		puts_(&o, "}");
	}
	flush(&o, true);
	if ((rc = o.rc))
		goto out;
	rc = commit(&o);
out:
	if (o.fd >= 0)
		close(o.fd);
	if (o.tmp) {
		unlink(o.tmp);
		free(o.tmp);
	}
	free(o.buf);
	free(o.enc);
	return rc;
}
