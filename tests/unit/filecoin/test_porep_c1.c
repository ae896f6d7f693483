/*
 * C1 files (include/zkpd/porep_c1.h): written and read back with every
 * kept field compared, for a 2 KiB C1 taken from a development sector
 * (1 and 13 partitions), and 32 GiB (tree 8-8-0, Sub proofs) and 64 GiB
 * (8-8-2, Top proofs) shaped ones of random values with their full 10
 * partitions of 18 challenges; the lotus-bench/Curio wrapper; the writer's
 * text against serde's layout, and what a Rust verifier recomputes from it
 * (labels from the regenerated parents, Merkle roots from the paths); and
 * broken inputs, each refused with its code and a message naming the
 * field: truncation at many offsets, byte counts and values, tags, path
 * lengths and arities, proof variants, roots, partition and challenge
 * counts, missing, duplicate and unknown fields, bad base64.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/fil_sha256.h"
#include "zkpd/porep_c1.h"
#include "zkpd/porep_dev.h"
#include "zkpd/porep_seal.h"
#include "zkpd/poseidon.h"

/* ---- building C1s ---- */

static zkp_porep_c1 *c1_alloc(uint64_t bytes, const char *registered, unsigned partitions)
{
	zkp_porep_c1 *c1 = calloc(1, sizeof(*c1));
	assert_non_null(c1);
	assert_int_equal(zkp_porep_shape_for_size(&c1->shape, bytes, NULL), 0);
	snprintf(c1->registered_proof, sizeof(c1->registered_proof), "%s", registered);
	c1->sector_bytes = bytes;
	c1->partitions = partitions;
	c1->challenges = c1->shape.challenges;
	c1->ch = calloc((size_t)partitions * c1->challenges, sizeof(*c1->ch));
	c1->comm_r_last = calloc(partitions, sizeof(zkp_fr));
	c1->comm_c = calloc(partitions, sizeof(zkp_fr));
	assert_true(c1->ch && c1->comm_r_last && c1->comm_c);
	tu_rand_bytes(c1->seed, 32);
	tu_rand_bytes(c1->ticket, 32);
	c1->seed[31] = 0xff; /* randomness need not be a field element */
	return c1;
}

static void c1_commitments(zkp_porep_c1 *c1, const zkp_fr *replica_id, const zkp_fr *comm_d,
			   const zkp_fr *comm_c, const zkp_fr *comm_r_last)
{
	const zkp_poseidon_consts *p2;
	assert_int_equal(zkp_poseidon_consts_get(&p2, 2), 0);
	zkp_fr in[2] = { *comm_c, *comm_r_last };
	zkp_poseidon_hash(&c1->comm_r_fr, p2, in);
	c1->comm_d_fr = *comm_d;
	c1->replica_id_fr = *replica_id;
	zkp_fr_to_le(c1->comm_r, &c1->comm_r_fr);
	zkp_fr_to_le(c1->comm_d, comm_d);
	zkp_fr_to_le(c1->replica_id, replica_id);
	for (unsigned k = 0; k < c1->partitions; k++) {
		c1->comm_c[k] = *comm_c;
		c1->comm_r_last[k] = *comm_r_last;
	}
}

/* A 2 KiB C1 from a development sector: partition 0 holds the sector's
 * own challenges, the others challenge random nodes of the same sector. */
static zkp_porep_c1 *dev_c1(zkp_porep_dev **devp, const char *registered, unsigned partitions)
{
	zkp_porep_c1 *c1 = c1_alloc(2048, registered, partitions);
	zkp_porep_dev *d;
	zkp_error err = { 0 };
	if (zkp_porep_dev_new(&d, &c1->shape, tu_rand64(), &err))
		fail_msg("dev: %s", err.msg);
	const zkp_porep_sector *sec = zkp_porep_dev_sector(d);
	const unsigned C = c1->challenges;
	for (unsigned k = 0; k < partitions; k++)
		for (unsigned i = 0; i < C; i++) {
			zkp_porep_c1_challenge *c = &c1->ch[k * C + i];
			if (k == 0)
				*c = *zkp_porep_dev_c1_challenge(d, i);
			else
				zkp_porep_sector_challenge(
					sec, 1 + tu_rand64() % (c1->shape.nodes - 1), c);
		}
	c1_commitments(c1, zkp_porep_sector_replica_id(sec), zkp_porep_sector_comm_d(sec),
		       zkp_porep_sector_comm_c(sec), zkp_porep_sector_comm_r_last(sec));
	*devp = d;
	return c1;
}

static void random_path(const zkp_tree_shape *t, uint64_t idx, zkp_path *p)
{
	unsigned s = 0;
	for (unsigned l = 0; l < zkp_tree_levels(t); l++) {
		unsigned a = zkp_tree_level_arity(t, l);
		p->index[l] = (uint8_t)(idx % a);
		idx /= a;
		for (unsigned j = 0; j + 1 < a; j++)
			tu_rand_fr(&p->siblings[s++]);
	}
}

/* A C1 of the shape of a published size, every value random but every
 * relation the reader checks holding. */
static zkp_porep_c1 *random_c1(uint64_t bytes, const char *registered, unsigned partitions)
{
	zkp_porep_c1 *c1 = c1_alloc(bytes, registered, partitions);
	zkp_tree_shape td, tcr;
	zkp_porep_tree_d(&c1->shape, &td);
	zkp_porep_tree_cr(&c1->shape, &tcr);
	zkp_fr replica_id, comm_d, comm_c, comm_r_last;
	uint8_t b[32];
	tu_rand_bytes(b, 32);
	b[31] &= 0x3f;
	assert_int_equal(zkp_fr_from_le(&comm_d, b), 0);
	tu_rand_fr(&replica_id);
	tu_rand_fr(&comm_c);
	tu_rand_fr(&comm_r_last);
	c1_commitments(c1, &replica_id, &comm_d, &comm_c, &comm_r_last);
	const unsigned L = c1->shape.layers;
	for (size_t j = 0; j < (size_t)partitions * c1->challenges; j++) {
		zkp_porep_c1_challenge *c = &c1->ch[j];
		uint64_t node = 1 + tu_rand64() % (c1->shape.nodes - 1);
		c->ch.node = node;
		c->column_index = (uint32_t)node;
		tu_rand_fr(&c->ch.data_leaf);
		tu_rand_fr(&c->comm_r_last_leaf);
		random_path(&td, node, &c->ch.comm_d_path);
		random_path(&tcr, node, &c->ch.comm_r_last_path);
		random_path(&tcr, node, &c->ch.comm_c_path);
		for (unsigned l = 0; l < L; l++)
			tu_rand_fr(&c->column_rows[l]);
		for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++) {
			c->parent_nodes[p] = (uint32_t)(tu_rand64() % c1->shape.nodes);
			random_path(&tcr, c->parent_nodes[p], &c->ch.parent_paths[p]);
			for (unsigned l = 0; l < L; l++)
				tu_rand_fr(&c->ch.parent_rows[p][l]);
		}
		c->roots[0] = comm_d;
		c->roots[1] = comm_r_last;
		c->roots[2] = comm_c;
	}
	return c1;
}

/* ---- comparing ---- */

static unsigned siblings(const zkp_tree_shape *t)
{
	unsigned n = 0;
	for (unsigned l = 0; l < zkp_tree_levels(t); l++)
		n += zkp_tree_level_arity(t, l) - 1;
	return n;
}

static void path_equal(const zkp_tree_shape *t, const zkp_path *a, const zkp_path *b,
		       const char *what, size_t j)
{
	if (memcmp(a->index, b->index, zkp_tree_levels(t)) ||
	    memcmp(a->siblings, b->siblings, siblings(t) * sizeof(zkp_fr)))
		fail_msg("challenge %zu: %s differs", j, what);
}

#define FR_EQ(a, b, ...)                                                                           \
	do {                                                                                       \
		if (!zkp_fr_eq((a), (b)))                                                          \
			fail_msg(__VA_ARGS__);                                                     \
	} while (0)

/* Every field a reader keeps; want was built by hand, got read back. */
static void c1_equal(const zkp_porep_c1 *want, const zkp_porep_c1 *got)
{
	assert_string_equal(want->registered_proof, got->registered_proof);
	assert_int_equal(want->sector_bytes, got->sector_bytes);
	assert_int_equal(want->shape.nodes, got->shape.nodes);
	assert_int_equal(want->shape.layers, got->shape.layers);
	assert_int_equal(want->shape.challenges, got->shape.challenges);
	assert_memory_equal(want->shape.tree, got->shape.tree, sizeof(want->shape.tree));
	assert_int_equal(want->partitions, got->partitions);
	assert_int_equal(want->challenges, got->challenges);
	assert_memory_equal(want->comm_r, got->comm_r, 32);
	assert_memory_equal(want->comm_d, got->comm_d, 32);
	assert_memory_equal(want->replica_id, got->replica_id, 32);
	assert_memory_equal(want->seed, got->seed, 32);
	assert_memory_equal(want->ticket, got->ticket, 32);
	FR_EQ(&want->comm_r_fr, &got->comm_r_fr, "comm_r");
	FR_EQ(&want->comm_d_fr, &got->comm_d_fr, "comm_d");
	FR_EQ(&want->replica_id_fr, &got->replica_id_fr, "replica_id");
	zkp_tree_shape td, tcr;
	zkp_porep_tree_d(&got->shape, &td);
	zkp_porep_tree_cr(&got->shape, &tcr);
	const unsigned L = got->shape.layers;
	for (unsigned k = 0; k < got->partitions; k++) {
		FR_EQ(&want->comm_c[k], &got->comm_c[k], "comm_c of partition %u", k);
		FR_EQ(&want->comm_r_last[k], &got->comm_r_last[k], "comm_r_last of partition %u",
		      k);
		zkp_porep_witness w;
		zkp_porep_c1_witness(got, k, &w);
		FR_EQ(&w.comm_c, &want->comm_c[k], "witness comm_c");
		FR_EQ(&w.comm_r, &want->comm_r_fr, "witness comm_r");
		assert_ptr_equal(w.challenges, &got->wit[(size_t)k * got->challenges]);
	}
	for (size_t j = 0; j < (size_t)got->partitions * got->challenges; j++) {
		const zkp_porep_c1_challenge *a = &want->ch[j], *b = &got->ch[j];
		assert_memory_equal(&got->wit[j], &b->ch, sizeof(b->ch));
		FR_EQ(&a->ch.data_leaf, &b->ch.data_leaf, "challenge %zu: data_leaf", j);
		assert_int_equal(a->ch.node, b->ch.node);
		path_equal(&td, &a->ch.comm_d_path, &b->ch.comm_d_path, "comm_d_path", j);
		path_equal(&tcr, &a->ch.comm_r_last_path, &b->ch.comm_r_last_path,
			   "comm_r_last_path", j);
		path_equal(&tcr, &a->ch.comm_c_path, &b->ch.comm_c_path, "comm_c_path", j);
		for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++) {
			path_equal(&tcr, &a->ch.parent_paths[p], &b->ch.parent_paths[p],
				   "parent path", j);
			assert_memory_equal(a->ch.parent_rows[p], b->ch.parent_rows[p],
					    L * sizeof(zkp_fr));
		}
		assert_memory_equal(a->parent_nodes, b->parent_nodes, sizeof(a->parent_nodes));
		assert_int_equal(a->column_index, b->column_index);
		assert_memory_equal(a->column_rows, b->column_rows, L * sizeof(zkp_fr));
		FR_EQ(&a->comm_r_last_leaf, &b->comm_r_last_leaf, "challenge %zu: leaf", j);
		for (int r = 0; r < 3; r++)
			FR_EQ(&a->roots[r], &b->roots[r], "challenge %zu: root %d", j, r);
	}
}

static void c1_free_built(zkp_porep_c1 *c1) { zkp_porep_c1_free(c1); }

/* ---- files and text ---- */

static char *tmp_path(void)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/zkpd-c1-%d-%llu.json", (int)getpid(),
		 (unsigned long long)(tu_rand64() % 1000000));
	return path;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Writes c1 and returns the file's text. */
static char *write_text(const zkp_porep_c1 *c1, int wrap, size_t *len)
{
	zkp_error err = { 0 };
	char *path = tmp_path();
	if (zkp_porep_c1_write(c1, path, wrap, 7, &err))
		fail_msg("write: %s", err.msg);
	char *t = slurp(path, len);
	unlink(path);
	return t;
}

static int parse_text(zkp_porep_c1 **ret, const char *t, size_t len, zkp_error *err)
{
	memset(err, 0, sizeof(*err));
	return zkp_porep_c1_parse(ret, (const uint8_t *)t, len, err);
}

static zkp_porep_c1 *parse_ok(const char *t, size_t len)
{
	zkp_porep_c1 *c1;
	zkp_error err;
	if (parse_text(&c1, t, len, &err))
		fail_msg("parse: %s", err.msg);
	return c1;
}

/* t with the n-th (from 1) occurrence of from, at or after the first
 * occurrence of anchor, replaced by to. */
static char *edit(const char *t, const char *anchor, unsigned n, const char *from, const char *to)
{
	const char *p = strstr(t, anchor);
	if (!p)
		fail_msg("no \"%s\" in the text", anchor);
	for (unsigned i = 0; i < n; i++) {
		p = strstr(i ? p + 1 : p, from);
		if (!p)
			fail_msg("no \"%s\" after \"%s\"", from, anchor);
	}
	size_t head = (size_t)(p - t), fl = strlen(from), tl = strlen(to), len = strlen(t);
	char *out = malloc(len - fl + tl + 1);
	assert_non_null(out);
	memcpy(out, t, head);
	memcpy(out + head, to, tl);
	memcpy(out + head + tl, p + fl, len - head - fl + 1);
	return out;
}

/* t without [start, end] where start is the first occurrence of s after
 * anchor and end the end of the first e after it. */
static char *cut(const char *t, const char *anchor, const char *s, const char *e)
{
	const char *a = strstr(t, anchor);
	assert_non_null(a);
	const char *p = strstr(a, s);
	assert_non_null(p);
	const char *q = strstr(p + 1, e);
	assert_non_null(q);
	q += strlen(e);
	size_t len = strlen(t);
	char *out = malloc(len + 1);
	assert_non_null(out);
	memcpy(out, t, (size_t)(p - t));
	memcpy(out + (p - t), q, len - (size_t)(q - t) + 1);
	return out;
}

/* t without the first element (a number or an array) of the array that
 * anchor (ending in '[') opens, at or after region. */
static char *drop_first(const char *t, const char *region, const char *anchor)
{
	const char *r = strstr(t, region);
	assert_non_null(r);
	const char *p = strstr(r, anchor);
	assert_non_null(p);
	p += strlen(anchor);
	const char *q = *p == '[' ? strchr(p, ']') + 1 : p + strcspn(p, ",");
	assert_int_equal(*q, ',');
	q++;
	size_t len = strlen(t);
	char *out = malloc(len + 1);
	assert_non_null(out);
	memcpy(out, t, (size_t)(p - t));
	memcpy(out + (p - t), q, len - (size_t)(q - t) + 1);
	return out;
}

/* t without [start, end) where start is the first s after anchor and end
 * the first e after it. */
static char *cut_before(const char *t, const char *anchor, const char *s, const char *e)
{
	const char *a = strstr(t, anchor);
	assert_non_null(a);
	const char *p = strstr(a, s);
	assert_non_null(p);
	const char *q = strstr(p + 1, e);
	assert_non_null(q);
	size_t len = strlen(t);
	char *out = malloc(len + 1);
	assert_non_null(out);
	memcpy(out, t, (size_t)(p - t));
	memcpy(out + (p - t), q, len - (size_t)(q - t) + 1);
	return out;
}

/* A 32-byte array's text with its first byte changed (to 0, or 1 if it
 * was 0): still canonical, but a different value. */
static char *bump(const char *arr)
{
	size_t n = strcspn(arr + 1, ",");
	char *out = malloc(strlen(arr) + 2);
	assert_non_null(out);
	sprintf(out, "[%s%s", n == 1 && arr[1] == '0' ? "1" : "0", arr + 1 + n);
	return out;
}

/* The text of the first 32-byte array starting at anchor's end. */
static char *array_at(const char *t, const char *anchor)
{
	const char *p = strstr(t, anchor);
	assert_non_null(p);
	p += strlen(anchor);
	assert_int_equal(*p, '[');
	const char *q = strchr(p, ']');
	char *out = strndup(p, (size_t)(q - p + 1));
	assert_non_null(out);
	return out;
}

/* Expects the parse of t to fail with code and a message holding each
 * of the NULL-terminated strings. */
static void refused(const char *t, size_t len, int code, ...)
{
	zkp_porep_c1 *c1 = (zkp_porep_c1 *)1;
	zkp_error err;
	int rc = parse_text(&c1, t, len, &err);
	assert_null(c1);
	if (getenv("ZKPD_TEST_VERBOSE"))
		print_message("%s: %s\n", zkp_err_name(rc), err.msg);
	if (rc != code)
		fail_msg("expected %s, got %s: %s", zkp_err_name(code), zkp_err_name(rc), err.msg);
	assert_int_equal(err.code, code);
	va_list ap;
	va_start(ap, code);
	for (const char *s; (s = va_arg(ap, const char *));)
		if (!strstr(err.msg, s))
			fail_msg("message \"%s\" lacks \"%s\"", err.msg, s);
	va_end(ap);
}

#define REFUSED(t, code, ...) refused((t), strlen(t), (code), __VA_ARGS__, NULL)
#define REFUSED_FREE(t, code, ...)                                                                 \
	do {                                                                                       \
		char *t_ = (t);                                                                    \
		REFUSED(t_, code, __VA_ARGS__);                                                    \
		free(t_);                                                                          \
	} while (0)

/* The text with every 32-byte array as B and every other number as N. */
static char *skeleton(const char *t)
{
	size_t len = strlen(t), o = 0;
	char *s = malloc(len + 1);
	assert_non_null(s);
	bool str = false;
	for (size_t i = 0; i < len;) {
		if (t[i] == '"')
			str = !str;
		if (str) {
			s[o++] = t[i++];
		} else if (t[i] == '[' && t[i + 1] >= '0' && t[i + 1] <= '9') {
			while (t[i] != ']')
				i++;
			i++;
			s[o++] = 'B';
		} else if (t[i] >= '0' && t[i] <= '9') {
			while (t[i] >= '0' && t[i] <= '9')
				i++;
			s[o++] = 'N';
		} else {
			s[o++] = t[i++];
		}
	}
	s[o] = 0;
	return s;
}

static char *repeat(const char *unit, unsigned n, const char *sep)
{
	size_t len = n * (strlen(unit) + strlen(sep)) + 1;
	char *s = calloc(1, len);
	assert_non_null(s);
	for (unsigned i = 0; i < n; i++) {
		if (i)
			strcat(s, sep);
		strcat(s, unit);
	}
	return s;
}

/* ---- tests ---- */

/* 2 KiB: round trip, the writer's determinism, the witness equal to the
 * development sector's, and serde's layout. */
static void test_roundtrip_2kib(void **state)
{
	(void)state;
	zkp_porep_dev *d;
	zkp_porep_c1 *c1 = dev_c1(&d, "StackedDrg2KiBV1_1", 1);
	size_t len;
	char *t = write_text(c1, 0, &len);
	assert_true(len > 50000 && len < 200000);
	zkp_porep_c1 *back = parse_ok(t, len);
	c1_equal(c1, back);
	assert_string_equal(back->proofs_tag, "StackedDrg2KiBV1");
	assert_int_equal(back->wrapper_sector_num, 0);

	/* the witness of partition 0 is the development sector's */
	zkp_porep_witness w;
	const zkp_porep_witness *dw = zkp_porep_dev_witness(d);
	zkp_porep_c1_witness(back, 0, &w);
	FR_EQ(&w.replica_id, &dw->replica_id, "replica_id");
	FR_EQ(&w.comm_d, &dw->comm_d, "comm_d");
	FR_EQ(&w.comm_r, &dw->comm_r, "comm_r");
	FR_EQ(&w.comm_r_last, &dw->comm_r_last, "comm_r_last");
	FR_EQ(&w.comm_c, &dw->comm_c, "comm_c");
	for (unsigned i = 0; i < back->challenges; i++)
		assert_memory_equal(&w.challenges[i], &dw->challenges[i], sizeof(w.challenges[i]));

	/* what is read writes the same bytes */
	size_t len2;
	char *t2 = write_text(back, 0, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(t, t2, len);

	/* serde_json's layout: compact, declaration order, externally tagged */
	char *s = skeleton(t);
	char *h7 = repeat("B", 7, ","), *h37 = repeat("B", 37, ",");
	char want[4096];
	snprintf(want, sizeof(want), "%s%s%s",
		 "{\"registered_proof\":\"StackedDrg2KiBV1_1\","
		 "\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[",
		 "{\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":B,\"leaf\":B,",
		 "\"path\":{\"path\":[{\"hashes\":[B],\"index\":N},{\"hashes\":[B],\"index\":N},");
	assert_memory_equal(s, want, strlen(want));
	snprintf(want, sizeof(want),
		 "}}},\"comm_r_last_proof\":{\"data\":{\"Single\":{\"root\":B,\"leaf\":B,"
		 "\"path\":{\"path\":[{\"hashes\":[%s],\"index\":N},"
		 "{\"hashes\":[%s],\"index\":N}]}}}},"
		 "\"replica_column_proofs\":{\"c_x\":{"
		 "\"column\":{\"index\":N,\"rows\":[B,B],\"_h\":null},"
		 "\"inclusion_proof\":{\"data\":{\"Single\":{\"root\":B,\"leaf\":B,"
		 "\"path\":{\"path\":[{\"hashes\":[%s],\"index\":N},"
		 "{\"hashes\":[%s],\"index\":N}]}}}}},"
		 "\"drg_parents\":[{",
		 h7, h7, h7, h7);
	assert_non_null(strstr(s, want));
	snprintf(want, sizeof(want),
		 "\"labeling_proofs\":["
		 "{\"parents\":[%s],\"layer_index\":N,\"node\":N},"
		 "{\"parents\":[%s],\"layer_index\":N,\"node\":N}],"
		 "\"encoding_proof\":{\"parents\":[%s],\"layer_index\":N,\"node\":N}}",
		 h37, h37, h37);
	assert_non_null(strstr(s, want));
	const char *tail =
		"}]]},\"comm_r\":B,\"comm_d\":B,\"replica_id\":B,\"seed\":B,\"ticket\":B}";
	assert_string_equal(s + strlen(s) - strlen(tail), tail);
	assert_non_null(strstr(t, "\"layer_index\":1,\"node\":"));
	assert_non_null(strstr(t, "}],\"exp_parents\":[{\"column\""));
	assert_null(strchr(t, ' '));
	assert_null(strchr(t, '\n'));
	free(h7);
	free(h37);
	free(s);
	free(t2);
	free(t);
	zkp_porep_c1_free(back);
	c1_free_built(c1);
	zkp_porep_dev_free(d);
}

/* What a Rust verifier recomputes from the text (read with jansson):
 * every label from replica_id, layer, node and the regenerated parents
 * (LabelingProof::create_label), the encoding proof's parents, and every
 * inclusion path's root (InclusionPath::root: the current node inserted
 * at index among the hashes, hashed). */
static void fr_of(zkp_fr *out, json_t *a)
{
	uint8_t b[32];
	assert_true(json_is_array(a) && json_array_size(a) == 32);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)json_integer_value(json_array_get(a, (size_t)i));
	assert_int_equal(zkp_fr_from_le(out, b), 0);
}

static void check_path(json_t *single, bool sha, unsigned arity)
{
	zkp_fr cur, root;
	fr_of(&cur, json_object_get(single, "leaf"));
	fr_of(&root, json_object_get(single, "root"));
	json_t *path = json_object_get(json_object_get(single, "path"), "path");
	const zkp_poseidon_consts *pc;
	assert_int_equal(zkp_poseidon_consts_get(&pc, arity), 0);
	for (size_t l = 0; l < json_array_size(path); l++) {
		json_t *e = json_array_get(path, l), *hashes = json_object_get(e, "hashes");
		size_t idx = (size_t)json_integer_value(json_object_get(e, "index"));
		zkp_fr nodes[8];
		assert_int_equal(json_array_size(hashes), arity - 1);
		for (size_t j = 0, h = 0; j < arity; j++) {
			if (j == idx)
				nodes[j] = cur;
			else
				fr_of(&nodes[j], json_array_get(hashes, h++));
		}
		if (sha) {
			uint8_t a[32], b[32], o[32];
			zkp_fr_to_le(a, &nodes[0]);
			zkp_fr_to_le(b, &nodes[1]);
			assert_int_equal(zkp_fil_sha256_node(o, a, b), 0);
			assert_int_equal(zkp_fr_from_le(&cur, o), 0);
		} else {
			zkp_poseidon_hash(&cur, pc, nodes);
		}
	}
	FR_EQ(&cur, &root, "an inclusion path does not lead to its root");
}

static void test_rust_verifier_view(void **state)
{
	(void)state;
	zkp_porep_dev *d;
	zkp_porep_c1 *c1 = dev_c1(&d, "StackedDrg2KiBV1_1", 1);
	size_t len;
	char *t = write_text(c1, 0, &len);
	json_error_t je;
	json_t *root = json_loadb(t, len, 0, &je);
	assert_non_null(root);
	json_t *proofs = json_array_get(
		json_object_get(json_object_get(root, "vanilla_proofs"), "StackedDrg2KiBV1"), 0);
	assert_int_equal(json_array_size(proofs), 2);
	const unsigned L = c1->shape.layers;
	for (size_t i = 0; i < 2; i++) {
		json_t *p = json_array_get(proofs, i);
		const zkp_porep_c1_challenge *c = &c1->ch[i];
		json_t *lps = json_object_get(p, "labeling_proofs");
		for (unsigned l = 0; l < L; l++) {
			json_t *lp = json_array_get(lps, l),
			       *parents = json_object_get(lp, "parents");
			uint8_t msg[64 + 37 * 32] = { 0 }, digest[32], want[32];
			uint32_t layer =
				(uint32_t)json_integer_value(json_object_get(lp, "layer_index"));
			uint64_t node = (uint64_t)json_integer_value(json_object_get(lp, "node"));
			assert_int_equal(layer, l + 1);
			assert_int_equal(node, c->ch.node);
			memcpy(msg, c1->replica_id, 32);
			for (int b = 0; b < 4; b++)
				msg[32 + b] = (uint8_t)(layer >> (24 - 8 * b));
			for (int b = 0; b < 8; b++)
				msg[36 + b] = (uint8_t)(node >> (56 - 8 * b));
			assert_int_equal(json_array_size(parents), 37);
			for (size_t k = 0; k < 37; k++)
				for (int b = 0; b < 32; b++)
					msg[64 + 32 * k + b] =
						(uint8_t)json_integer_value(json_array_get(
							json_array_get(parents, k), (size_t)b));
			assert_int_equal(zkp_fil_sha256_trim(digest, msg, sizeof(msg)), 0);
			zkp_fr_to_le(want, &c->column_rows[l]);
			assert_memory_equal(digest, want, 32);
			if (l == L - 1) {
				json_t *enc = json_object_get(p, "encoding_proof");
				assert_true(json_equal(json_object_get(enc, "parents"), parents));
				assert_int_equal(
					json_integer_value(json_object_get(enc, "layer_index")), L);
			}
		}
		json_t *rcp = json_object_get(p, "replica_column_proofs");
		check_path(json_object_get(
				   json_object_get(json_object_get(p, "comm_d_proofs"), "data"),
				   "Single"),
			   true, 2);
		check_path(json_object_get(
				   json_object_get(json_object_get(p, "comm_r_last_proof"), "data"),
				   "Single"),
			   false, 8);
		json_t *cols[15] = { json_object_get(rcp, "c_x") };
		for (size_t j = 0; j < 6; j++)
			cols[1 + j] = json_array_get(json_object_get(rcp, "drg_parents"), j);
		for (size_t j = 0; j < 8; j++)
			cols[7 + j] = json_array_get(json_object_get(rcp, "exp_parents"), j);
		for (int j = 0; j < 15; j++)
			check_path(
				json_object_get(
					json_object_get(json_object_get(cols[j], "inclusion_proof"),
							"data"),
					"Single"),
				false, 8);
	}
	json_decref(root);
	free(t);
	c1_free_built(c1);
	zkp_porep_dev_free(d);
}

/* NI-PoRep: 13 partitions of a 2 KiB sector; and fields in another order
 * (Curio's Go types write comm_d first) or pretty-printed. */
static void test_ni_and_layouts(void **state)
{
	(void)state;
	zkp_porep_dev *d;
	zkp_porep_c1 *c1 = dev_c1(&d, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 13);
	size_t len;
	char *t = write_text(c1, 0, &len);
	zkp_porep_c1 *back = parse_ok(t, len);
	c1_equal(c1, back);
	zkp_porep_c1_free(back);

	/* registered_proof last, and seed before comm_r */
	char *reg = "\"registered_proof\":\"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep\",";
	char *a = edit(t, "{", 1, reg, "");
	char *seed = array_at(t, "\"seed\":");
	char field[256];
	snprintf(field, sizeof(field), ",\"seed\":%s", seed);
	char *b = edit(a, "\"comm_r\":", 1, field, "");
	snprintf(field, sizeof(field), "]]},\"seed\":%s,\"comm_r\":", seed);
	char *c = edit(b, "{", 1, "]]},\"comm_r\":", field);
	c[strlen(c) - 1] = 0;
	size_t n = strlen(c);
	char *e = malloc(n + strlen(reg) + 8);
	snprintf(e, n + strlen(reg) + 8, "%s,%.*s}", c, (int)strlen(reg) - 1, reg);
	back = parse_ok(e, strlen(e));
	c1_equal(c1, back);
	zkp_porep_c1_free(back);
	free(a);
	free(b);
	free(c);
	free(e);
	free(seed);

	/* whitespace anywhere JSON allows it */
	char *p = malloc(len * 3 + 2);
	size_t o = 0;
	p[o++] = '\n';
	for (size_t i = 0; i < len; i++) {
		p[o++] = t[i];
		if (t[i] == ',' || t[i] == ':' || t[i] == '{')
			p[o++] = i % 3 ? ' ' : '\n';
	}
	back = parse_ok(p, o);
	c1_equal(c1, back);
	zkp_porep_c1_free(back);
	free(p);
	free(t);
	c1_free_built(c1);
	zkp_porep_dev_free(d);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 32 GiB (Sub proofs) and 64 GiB (Top proofs) shapes with their full
 * 10 x 18 challenges: about 45 MB of JSON each. */
static void big(uint64_t bytes, const char *registered, const char *tag, const char *variant)
{
	zkp_porep_c1 *c1 = random_c1(bytes, registered, 10);
	double t0 = now();
	size_t len;
	char *t = write_text(c1, 0, &len);
	double t1 = now();
	zkp_porep_c1 *back = parse_ok(t, len);
	double t2 = now();
	print_message("%s: %zu bytes, written in %.2f s, read in %.2f s\n", tag, len, t1 - t0,
		      t2 - t1);
	c1_equal(c1, back);
	assert_string_equal(back->proofs_tag, tag);
	zkp_porep_c1_free(back);

	char single[64], other[64];
	snprintf(other, sizeof(other), "\"comm_r_last_proof\":{\"data\":{\"%s\":", variant);
	snprintf(single, sizeof(single), "\"comm_r_last_proof\":{\"data\":{\"Single\":");
	char *e = edit(t, other, 1, other, single);
	REFUSED_FREE(e, ZKP_ERR_FORMAT,
		     "vanilla_proofs[0][0].comm_r_last_proof.data: a Single proof", variant);
	/* the sub level holds one element of arity 8 */
	e = edit(t, "\"sub_proof\":{\"path\":[{\"hashes\":[", 1,
		 "\"sub_proof\":{\"path\":[{\"hashes\":[",
		 "\"sub_proof\":{\"path\":[{\"hashes\":[[1],");
	REFUSED_FREE(e, ZKP_ERR_FORMAT, "comm_r_last_proof.data.", ".sub_proof.path[0].hashes[0]",
		     "expected 32 bytes, found 1");
	if (!strcmp(variant, "Top")) {
		e = edit(t, "\"top_proof\":{\"path\":[{\"hashes\":[", 1,
			 "],\"index\":", "],\"index\":2");
		REFUSED_FREE(e, ZKP_ERR_FORMAT, ".top_proof.path[0].index",
			     "is not a position among 2 siblings");
	}
	/* 9 partitions (once: it reads the whole text) */
	if (!strcmp(variant, "Sub")) {
		const char *end = strstr(t, "]]},\"comm_r\":");
		const char *p = end;
		while (strncmp(p, "],[{\"comm_d_proofs\"", 19))
			p--;
		size_t head = (size_t)(p - t) + 1;
		char *nine = malloc(len + 1);
		memcpy(nine, t, head);
		strcpy(nine + head, end + 1);
		refused(nine, strlen(nine), ZKP_ERR_MISMATCH, "vanilla_proofs has 9 partitions;",
			"has 10", NULL);
		free(nine);
	}
	free(t);
	c1_free_built(c1);
}

static void test_big_shapes(void **state)
{
	(void)state;
	big(32ULL << 30, "StackedDrg32GiBV1_1", "StackedDrg32GiBV1", "Sub");
	big(64ULL << 30, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", "StackedDrg64GiBV1", "Top");
}

/* The lotus-bench/Curio wrapper. */
static void test_wrapper(void **state)
{
	(void)state;
	zkp_porep_dev *d;
	zkp_porep_c1 *c1 = dev_c1(&d, "StackedDrg2KiBV1", 1);
	size_t len, plen;
	char *w = write_text(c1, 1, &len), *plain = write_text(c1, 0, &plen);
	const char *head = "{\"SectorNum\":7,\"Phase1Out\":\"", *tail = "\",\"SectorSize\":2048}";
	assert_memory_equal(w, head, strlen(head));
	assert_string_equal(w + len - strlen(tail), tail);
	/* Phase1Out is standard base64 (padded) of the plain file */
	size_t blen = len - strlen(head) - strlen(tail);
	assert_int_equal(blen, (plen + 2) / 3 * 4);
	uint8_t *dec = malloc(blen);
	int n = EVP_DecodeBlock(dec, (const uint8_t *)w + strlen(head), (int)blen);
	assert_true(n >= (int)plen && n <= (int)plen + 2);
	assert_memory_equal(dec, plain, plen);
	free(dec);

	zkp_porep_c1 *back = parse_ok(w, len);
	c1_equal(c1, back);
	assert_int_equal(back->wrapper_sector_num, 7);
	assert_int_equal(back->wrapper_sector_size, 2048);
	zkp_porep_c1_free(back);

	/* the fields in another order */
	char *phase = strndup(w + strlen(head) - 1, blen + 2);
	size_t ol = blen + 128;
	char *o = malloc(ol);
	snprintf(o, ol, "{\"SectorSize\":2048,\"Phase1Out\":%s,\"SectorNum\":9}", phase);
	back = parse_ok(o, strlen(o));
	assert_int_equal(back->wrapper_sector_num, 9);
	zkp_porep_c1_free(back);

	REFUSED_FREE(edit(w, head, 1, "Phase1Out\":\"", "Phase1Out\":\"!"), ZKP_ERR_FORMAT,
		     "Phase1Out", "not a multiple of 4");
	REFUSED_FREE(edit(w, head, 1, "Phase1Out\":\"", "Phase1Out\":\"!!!!"), ZKP_ERR_FORMAT,
		     "Phase1Out", "character 0 (0x21) is not standard base64");
	REFUSED_FREE(edit(w, head, 1, "Phase1Out\":\"", "Phase1Out\":\"QQ==QQ=="), ZKP_ERR_FORMAT,
		     "Phase1Out", "not standard base64");
	REFUSED("{\"SectorNum\":1,\"Phase1Out\":\"bm90IGpzb24=\",\"SectorSize\":2048}",
		ZKP_ERR_FORMAT, "Phase1Out", "not JSON");
	REFUSED("{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}", ZKP_ERR_FORMAT,
		"Phase1Out", "missing field \"registered_proof\"");
	REFUSED("{\"SectorNum\":1,\"Phase1Out\":\"\",\"SectorSize\":2048}", ZKP_ERR_FORMAT,
		"Phase1Out: empty");
	REFUSED("{\"SectorNum\":1,\"Phase1Out\":null,\"SectorSize\":2048}", ZKP_ERR_FORMAT,
		"Phase1Out: expected a string, found null");
	REFUSED("{\"SectorNum\":-1,\"Phase1Out\":\"e30=\"}", ZKP_ERR_FORMAT, "SectorNum: expected");
	REFUSED_FREE(edit(w, tail, 1, "2048", "4096"), ZKP_ERR_MISMATCH, "SectorSize 4096");
	REFUSED_FREE(edit(w, tail, 1, ",\"SectorSize\":2048", ""), ZKP_ERR_FORMAT,
		     "missing field \"SectorSize\"");
	/* a truncated inner JSON, and a truncated wrapper */
	char *inner = malloc(plen);
	size_t il = (plen / 2) / 3 * 3;
	int el = EVP_EncodeBlock((uint8_t *)inner, (const uint8_t *)plain, (int)il);
	snprintf(o, ol, "{\"SectorNum\":1,\"Phase1Out\":\"%.*s\",\"SectorSize\":2048}", el, inner);
	REFUSED(o, ZKP_ERR_TRUNCATED, "Phase1Out JSON: vanilla_proofs[0][", "ends early");
	for (size_t cutlen = 1; cutlen < len; cutlen += 997)
		refused(w, cutlen, ZKP_ERR_TRUNCATED, "ends early", NULL);
	free(inner);
	free(o);
	free(phase);
	free(w);
	free(plain);
	c1_free_built(c1);
	zkp_porep_dev_free(d);
}

/* Unknown fields are skipped as serde skips them, whatever their value
 * (nested objects and arrays included) and wherever they stand, in the C1
 * and in the wrapper, with keys in any order; what serde refuses (a wrong
 * type, a missing field, an unknown variant or tag) is still refused. */
static void test_unknown_fields(void **state)
{
	(void)state;
	zkp_porep_dev *d;
	zkp_porep_c1 *c1 = dev_c1(&d, "StackedDrg2KiBV1", 1);
	size_t len, wlen;
	char *t = write_text(c1, 0, &len), *w = write_text(c1, 1, &wlen);
	static const char odd[] = "{\"a\":[1,{\"b\":null,\"c\":[[\"x\"]]}],\"d\":\"e\"}";
	char extra[128];
	snprintf(extra, sizeof(extra), "{\"_lotus\":%s,\"registered_proof\"", odd);
	static const struct {
		const char *anchor, *from, *to;
	} edits[] = {
		{ "{", "{\"registered_proof\"", NULL }, /* first key of the top level */
		{ "{", "{\"column\":{", "{\"column\":{\"extra\":1," },
		{ "{", "\"encoding_proof\":{", "\"encoding_proof\":{\"x\":{},\"y\":[[],{}]," },
		{ "{", ",\"seed\":", ",\"future\":true,\"seed\":" },
		{ "{", "\"_h\":null", "\"_h\":null,\"_h2\":-1.5e3" },
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char *e = edit(t, edits[i].anchor, 1, edits[i].from,
			       edits[i].to ? edits[i].to : extra);
		zkp_porep_c1 *back = parse_ok(e, strlen(e));
		c1_equal(c1, back);
		zkp_porep_c1_free(back);
		free(e);
	}
	/* the wrapper: an unknown field first (the next key decides what
	 * the object is), its keys in another order */
	const char *head = "{\"SectorNum\":7,\"Phase1Out\":";
	const char *phase = w + strlen(head);
	size_t plen = (size_t)(strstr(phase, ",\"SectorSize\"") - phase);
	size_t ol = plen + 256;
	char *o = malloc(ol);
	snprintf(o, ol, "{\"Proof\":{\"x\":[1]},\"SectorSize\":2048,\"Phase1Out\":%.*s,"
		 "\"Miner\":1000,\"SectorNum\":9}", (int)plen, phase);
	zkp_porep_c1 *back = parse_ok(o, strlen(o));
	c1_equal(c1, back);
	assert_int_equal(back->wrapper_sector_num, 9);
	zkp_porep_c1_free(back);
	free(o);
	/* still refused */
	REFUSED_FREE(edit(t, "{", 1, "\"_h\":null", "\"_h\":null,\"x\":1,\"_h\":0"),
		     ZKP_ERR_FORMAT, "c_x.column: duplicate field \"_h\"");
	REFUSED_FREE(edit(t, "{", 1, "\"_h\":null", "\"x\":{},\"_h\":0"), ZKP_ERR_FORMAT,
		     "c_x.column._h: expected null, found a number");
	/* a misspelt field is skipped, then missing */
	REFUSED_FREE(edit(t, "{", 1, "{\"registered_proof\"", "{\"registered_prof\""),
		     ZKP_ERR_FORMAT, "top level: missing field \"registered_proof\"");
	REFUSED_FREE(edit(t, "{", 1, "{\"data\":{\"Single\":", "{\"data\":{\"Double\":"),
		     ZKP_ERR_FORMAT, "unknown variant \"Double\" (expected Single, Sub or Top)");
	REFUSED_FREE(edit(t, "{", 1, "\"StackedDrg2KiBV1\":[", "\"StackedDrg4KiBV1\":["),
		     ZKP_ERR_FORMAT, "unknown sector size tag \"StackedDrg4KiBV1\"");
	REFUSED_FREE(edit(t, "{", 1, "{\"registered_proof\"", "{\"x\":[1,{]},\"registered_proof\""),
		     ZKP_ERR_FORMAT, "not JSON");
	REFUSED("{\"x\":{\"registered_proof\":1}}", ZKP_ERR_FORMAT,
		"no field of a C1 or of its wrapper");
	free(t);
	free(w);
	c1_free_built(c1);
	zkp_porep_dev_free(d);
}

/* Cut anywhere, the reader says the JSON ends early. */
static void test_truncated(void **state)
{
	(void)state;
	zkp_porep_dev *d;
	zkp_porep_c1 *c1 = dev_c1(&d, "StackedDrg2KiBV1_1", 1);
	size_t len;
	char *t = write_text(c1, 0, &len);
	unsigned tried = 0;
	for (size_t n = 0; n < len; n += n < 400 || n > len - 400 ? 1 : 101) {
		refused(t, n, ZKP_ERR_TRUNCATED, n ? "ends early" : "empty", NULL);
		tried++;
	}
	print_message("%u cut points\n", tried);
	free(t);
	c1_free_built(c1);
	zkp_porep_dev_free(d);
}

/* t with the text from replaced by to, at the n-th occurrence of from
 * after the first of region. */
#define EDIT(region, n, from, to) edit(t, (region), (n), (from), (to))

static void test_malformed(void **state)
{
	(void)state;
	zkp_porep_dev *d;
	zkp_porep_c1 *c1 = dev_c1(&d, "StackedDrg2KiBV1_1", 1);
	size_t len;
	char *t = write_text(c1, 0, &len), *e, *arr, *arr2;
	char from[512], to[512];
	const char *droot = "\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":";
	const char *rroot = "\"comm_r_last_proof\":{\"data\":{\"Single\":{\"root\":";
	char dopen[128];
	snprintf(dopen, sizeof(dopen), "%s[", droot);

	/* bytes */
	snprintf(to, sizeof(to), "%s[0,", droot);
	REFUSED_FREE(EDIT(droot, 1, dopen, to), ZKP_ERR_FORMAT,
		     "vanilla_proofs[0][0].comm_d_proofs.data.Single.root: expected 32 bytes, "
		     "found more",
		     "(partition 0, challenge 0)");
	REFUSED_FREE(
		drop_first(t, droot, dopen), ZKP_ERR_FORMAT,
		"vanilla_proofs[0][0].comm_d_proofs.data.Single.root: expected 32 bytes, found 31");
	static const char *const bad[][2] = {
		{ "256", "root[0]: expected a byte 0..255, found 256" },
		{ "-1", "root[0]: expected a byte 0..255, found -1" },
		{ "1.0", "root[0]: expected a byte 0..255, found 1.0" },
		{ "1e2", "found 1e2" },
		{ "\"1\"", "root[0]: expected a byte 0..255, found a string" },
		{ "[1]", "root[0]: expected a byte 0..255, found an array" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(to, sizeof(to), "%s[%s,", droot, bad[i][0]);
		REFUSED_FREE(EDIT(droot, 1, dopen, to), ZKP_ERR_FORMAT, bad[i][1]);
	}
	char *ff = repeat("255", 32, ",");
	arr = array_at(t, rroot);
	snprintf(from, sizeof(from), "%s%s", rroot, arr);
	snprintf(to, sizeof(to), "%s[%s]", rroot, ff);
	REFUSED_FREE(EDIT(rroot, 1, from, to), ZKP_ERR_NOT_CANONICAL,
		     "vanilla_proofs[0][0].comm_r_last_proof.data.Single.root: value is not below");
	free(arr);
	arr = array_at(t, "\"replica_id\":");
	snprintf(from, sizeof(from), "\"replica_id\":%s", arr);
	snprintf(to, sizeof(to), "\"replica_id\":[%s]", ff);
	REFUSED_FREE(EDIT("\"comm_r\":", 1, from, to), ZKP_ERR_NOT_CANONICAL,
		     "replica_id: value is not below");
	free(arr);
	arr = array_at(t, "\"seed\":");
	snprintf(from, sizeof(from), "\"seed\":%s", arr);
	snprintf(to, sizeof(to), "\"seed\":[%s]", ff);
	e = EDIT("\"comm_r\":", 1, from, to);
	zkp_porep_c1 *ok = parse_ok(e, strlen(e)); /* seed is randomness, not a field element */
	assert_int_equal(ok->seed[0], 255);
	zkp_porep_c1_free(ok);
	free(e);
	free(arr);
	free(ff);

	/* tags and names */
	REFUSED_FREE(EDIT("{", 1, "\"StackedDrg2KiBV1\":", "\"StackedDrg4KiBV1\":"), ZKP_ERR_FORMAT,
		     "vanilla_proofs: unknown sector size tag \"StackedDrg4KiBV1\"");
	REFUSED_FREE(EDIT("{", 1, "StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1"), ZKP_ERR_FORMAT,
		     "tagged StackedDrg2KiBV1 (2KiB sectors)", "StackedDrg8MiBV1_1 is for 8MiB");
	REFUSED_FREE(EDIT("{", 1, "StackedDrg2KiBV1_1", "StackedDrg2KiBV2"), ZKP_ERR_FORMAT,
		     "registered_proof: unknown proof \"StackedDrg2KiBV2\"");
	REFUSED_FREE(EDIT("{", 1, "\"StackedDrg2KiBV1_1\"", "17"), ZKP_ERR_FORMAT,
		     "registered_proof: expected a string, found a number");

	/* paths */
	REFUSED_FREE(cut(t, droot, "{\"hashes\":", "},"), ZKP_ERR_FORMAT,
		     "vanilla_proofs[0][0].comm_d_proofs.data.Single.path.path: expected 6 path "
		     "elements, found 5");
	{
		const char *p = strstr(strstr(t, droot), "{\"hashes\":");
		char *elem = strndup(p, strcspn(p, "}") + 1);
		snprintf(to, sizeof(to), ",%s]}}}},\"comm_r_last_proof\"", elem);
		REFUSED_FREE(EDIT("{", 1, "]}}}},\"comm_r_last_proof\"", to), ZKP_ERR_FORMAT,
			     "comm_d_proofs.data.Single.path.path: expected 6 path elements, found "
			     "more");
		free(elem);
	}
	REFUSED_FREE(drop_first(t, rroot, "\"hashes\":["), ZKP_ERR_FORMAT,
		     "vanilla_proofs[0][0].comm_r_last_proof.data.Single.path.path[0].hashes: "
		     "expected 7 values, found 6");
	REFUSED_FREE(
		EDIT(rroot, 1, "\"hashes\":[[", "\"hashes\":[[0],["), ZKP_ERR_FORMAT,
		"comm_r_last_proof.data.Single.path.path[0].hashes[0]: expected 32 bytes, found 1");
	REFUSED_FREE(EDIT(rroot, 1, "],\"index\":", "],\"index\":9"), ZKP_ERR_FORMAT,
		     "comm_r_last_proof.data.Single.path.path[0].index: 9", "among 8 siblings");
	REFUSED_FREE(EDIT(rroot, 1, "{\"data\":{\"Single\":", "{\"data\":{\"Sub\":"),
		     ZKP_ERR_FORMAT,
		     "comm_r_last_proof.data: a Sub proof, but trees C/R (8-0-0) of 2KiB sectors "
		     "need Single");
	REFUSED_FREE(EDIT(droot, 1, "{\"data\":{\"Single\":", "{\"data\":{\"Top\":"),
		     ZKP_ERR_FORMAT,
		     "comm_d_proofs.data: a Top proof, but tree D (binary) of 2KiB sectors needs "
		     "Single");
	REFUSED_FREE(EDIT(droot, 1, "{\"data\":{\"Single\":", "{\"data\":{\"Double\":"),
		     ZKP_ERR_FORMAT, "comm_d_proofs.data: unknown variant \"Double\"");
	{
		const char *p = strstr(strstr(t, droot), "\"index\":") + 8;
		snprintf(from, sizeof(from), "\"index\":%c}", *p);
		snprintf(to, sizeof(to), "\"index\":%c}", *p == '0' ? '1' : '0');
		REFUSED_FREE(EDIT(droot, 1, from, to), ZKP_ERR_MISMATCH,
			     "vanilla_proofs[0][0]: comm_d_proofs opens leaf",
			     "(partition 0, challenge 0)");
	}
	REFUSED_FREE(EDIT("\"replica_column_proofs\"", 1, "\"drg_parents\":[",
			  "\"drg_parents\":[{}]],\"x\":["),
		     ZKP_ERR_FORMAT,
		     "replica_column_proofs.drg_parents[0]: missing field \"column\"");
	REFUSED_FREE(cut(t, "\"drg_parents\"", "{\"column\"", "}}}},"), ZKP_ERR_FORMAT,
		     "replica_column_proofs.drg_parents: expected 6 column proofs, found 5");

	/* roots */
	arr = array_at(t, rroot);
	arr2 = bump(arr);
	snprintf(from, sizeof(from), "%s%s", rroot, arr);
	snprintf(to, sizeof(to), "%s%s", rroot, arr2);
	REFUSED_FREE(
		EDIT("{", 2, from, to), ZKP_ERR_MISMATCH,
		"vanilla_proofs[0][1]: comm_r_last_proof.root differs from the partition's first",
		"(partition 0, challenge 1)");
	free(arr);
	free(arr2);
	const char *cx = "\"inclusion_proof\":{\"data\":{\"Single\":{\"root\":";
	arr = array_at(t, cx);
	arr2 = bump(arr);
	snprintf(from, sizeof(from), "%s%s", cx, arr);
	snprintf(to, sizeof(to), "%s%s", cx, arr2);
	REFUSED_FREE(
		EDIT("\"drg_parents\"", 1, from, to), ZKP_ERR_MISMATCH,
		"replica_column_proofs.drg_parents[0].inclusion_proof.root differs from c_x's");
	REFUSED_FREE(
		EDIT("\"exp_parents\"", 8, from, to), ZKP_ERR_MISMATCH,
		"replica_column_proofs.exp_parents[7].inclusion_proof.root differs from c_x's");
	free(arr);
	free(arr2);
	arr = array_at(t, "\"comm_d\":");
	arr2 = bump(arr);
	snprintf(from, sizeof(from), "\"comm_d\":%s", arr);
	snprintf(to, sizeof(to), "\"comm_d\":%s", arr2);
	REFUSED_FREE(EDIT("\"comm_r\":", 1, from, to), ZKP_ERR_MISMATCH,
		     "vanilla_proofs[0][0].comm_d_proofs.root differs from comm_d");
	free(arr);
	free(arr2);
	arr = array_at(t, "\"comm_r\":");
	arr2 = bump(arr);
	snprintf(from, sizeof(from), "\"comm_r\":%s", arr);
	snprintf(to, sizeof(to), "\"comm_r\":%s", arr2);
	REFUSED_FREE(EDIT("\"comm_r\":", 1, from, to), ZKP_ERR_MISMATCH,
		     "comm_r is not Poseidon(comm_c, comm_r_last) of partition 0");
	free(arr);
	free(arr2);

	/* labeling and encoding proofs, columns */
	REFUSED_FREE(EDIT("\"labeling_proofs\"", 1,
			  "\"layer_index\":2,\"node\":", "\"layer_index\":2,\"node\":9"),
		     ZKP_ERR_MISMATCH, "labeling_proofs[1].node 9",
		     "differs from labeling_proofs[0].node");
	REFUSED_FREE(EDIT("\"encoding_proof\"", 1, "\"node\":", "\"node\":9"), ZKP_ERR_MISMATCH,
		     "encoding_proof.node 9");
	REFUSED_FREE(EDIT("\"labeling_proofs\"", 1, "\"layer_index\":1,", "\"layer_index\":3,"),
		     ZKP_ERR_FORMAT, "labeling_proofs[0].layer_index is 3, expected 1");
	REFUSED_FREE(EDIT("\"encoding_proof\"", 1, "\"layer_index\":2,", "\"layer_index\":1,"),
		     ZKP_ERR_FORMAT, "encoding_proof.layer_index is 1, expected 2");
	REFUSED_FREE(EDIT("\"c_x\"", 1, "{\"index\":", "{\"index\":9"), ZKP_ERR_MISMATCH,
		     "differs from replica_column_proofs.c_x.column.index");
	REFUSED_FREE(EDIT("\"c_x\"", 1, "{\"index\":", "{\"index\":4294967296"), ZKP_ERR_FORMAT,
		     "c_x.column.index: expected an integer 0..4294967295, found 4294967296");
	REFUSED_FREE(cut(t, "\"labeling_proofs\"", "{\"parents\":", "},"), ZKP_ERR_FORMAT,
		     "vanilla_proofs[0][0].labeling_proofs: expected 2 labeling proofs, found 1");
	REFUSED_FREE(drop_first(t, "\"labeling_proofs\"", "\"parents\":["), ZKP_ERR_FORMAT,
		     "labeling_proofs[0].parents: expected 37 values, found 36");
	REFUSED_FREE(drop_first(t, "\"c_x\"", "\"rows\":["), ZKP_ERR_FORMAT,
		     "replica_column_proofs.c_x.column.rows: expected 2 values, found 1");
	{
		const char *anchor = "\"inclusion_proof\":{\"data\":{\"Single\":{\"root\":";
		const char *p = strstr(strstr(t, "\"drg_parents\""), anchor) + strlen(anchor);
		p = strstr(p, "\"leaf\":") + 7;
		char *leaf = strndup(p, (size_t)(strchr(p, ']') - p + 1));
		snprintf(from, sizeof(from), "\"leaf\":%s", leaf);
		char *ffl = repeat("255", 32, ",");
		snprintf(to, sizeof(to), "\"leaf\":[%s]", ffl);
		REFUSED_FREE(EDIT("\"drg_parents\"", 1, from, to), ZKP_ERR_NOT_CANONICAL,
			     "drg_parents[0].inclusion_proof.data.Single.leaf: value is not below");
		free(ffl);
		free(leaf);
	}

	/* partitions and challenges */
	{
		const char *p =
			strstr(t, "\"StackedDrg2KiBV1\":[") + strlen("\"StackedDrg2KiBV1\":[");
		const char *q = strstr(p, "]},\"comm_r\":");
		size_t plen = (size_t)(q - p), o = (size_t)(p - t);
		char *two = malloc(len + plen + 2);
		memcpy(two, t, o);
		memcpy(two + o, p, plen);
		two[o + plen] = ',';
		strcpy(two + o + plen + 1, p);
		REFUSED(two, ZKP_ERR_MISMATCH,
			"vanilla_proofs: more than the 1 partitions of StackedDrg2KiBV1_1");
		/* registered_proof after vanilla_proofs: counted at the end */
		e = edit(two, "{", 1, "\"registered_proof\":\"StackedDrg2KiBV1_1\",", "");
		e[strlen(e) - 1] = 0;
		char *b = malloc(strlen(e) + 64);
		sprintf(b, "%s,\"registered_proof\":\"StackedDrg2KiBV1_1\"}", e);
		REFUSED_FREE(b, ZKP_ERR_MISMATCH,
			     "vanilla_proofs has 2 partitions; StackedDrg2KiBV1_1 has 1");
		free(e);
		free(two);
	}
	REFUSED_FREE(cut_before(t, "[[{\"comm_d_proofs\"", ",{\"comm_d_proofs\"", "]]},\"comm_r\""),
		     ZKP_ERR_MISMATCH, "vanilla_proofs[0]: 1 proofs, but 2KiB partitions have 2",
		     "(partition 0)");
	REFUSED_FREE(EDIT("{", 1, "[[{\"comm_d_proofs\"", "[[],[{\"comm_d_proofs\""),
		     ZKP_ERR_MISMATCH, "vanilla_proofs[0]: 0 proofs");
	{
		const char *p = strstr(t, "[[{\"comm_d_proofs\"") + 1;
		const char *q = strstr(p, ",{\"comm_d_proofs\"");
		char *proof = strndup(p, (size_t)(q - p));
		snprintf(from, sizeof(from), "]]},\"comm_r\":");
		char *three = malloc(len + strlen(proof) + 2);
		size_t at = (size_t)(strstr(t, from) - t);
		memcpy(three, t, at);
		three[at] = ',';
		strcpy(three + at + 1, proof);
		strcat(three, t + at);
		REFUSED_FREE(three, ZKP_ERR_MISMATCH,
			     "vanilla_proofs[0]: more than the 2 proofs of a 2KiB partition");
		free(proof);
	}
	REFUSED_FREE(EDIT("{", 1, "\"StackedDrg2KiBV1\":[[", "\"StackedDrg2KiBV1\":[]},\"x\":[["),
		     ZKP_ERR_MISMATCH, "vanilla_proofs: no partitions");

	/* fields */
	REFUSED_FREE(EDIT("{", 1, ",\"_h\":null", ""), ZKP_ERR_FORMAT,
		     "vanilla_proofs[0][0].replica_column_proofs.c_x.column: missing field \"_h\"");
	REFUSED_FREE(EDIT("{", 1, "\"_h\":null", "\"_h\":0"), ZKP_ERR_FORMAT,
		     "c_x.column._h: expected null, found a number");
	REFUSED_FREE(EDIT("{", 1, "\"_h\":null", "\"_h\":null,\"_h\":null"), ZKP_ERR_FORMAT,
		     "c_x.column: duplicate field \"_h\"");
	arr = array_at(t, "\"seed\":");
	snprintf(from, sizeof(from), ",\"seed\":%s", arr);
	REFUSED_FREE(EDIT("\"comm_r\":", 1, from, ""), ZKP_ERR_FORMAT,
		     "top level: missing field \"seed\"");
	free(arr);
	REFUSED_FREE(EDIT("{", 1, "{\"data\":{\"Single\":", "{\"data\":{}, \"y\":{\"Single\":"),
		     ZKP_ERR_FORMAT,
		     "comm_d_proofs.data: empty, expected one of Single, Sub or Top");
	REFUSED_FREE(
		EDIT("{", 1, "}}}},\"comm_r_last_proof\"", "}},\"Sub\":{}}},\"comm_r_last_proof\""),
		ZKP_ERR_FORMAT, "comm_d_proofs.data: \"Sub\" after another variant");
	REFUSED_FREE(EDIT("{", 1, "\"labeling_proofs\":[", "\"labeling_proofs\":true,\"q\":["),
		     ZKP_ERR_FORMAT, "labeling_proofs: expected an array, found a boolean");
	REFUSED_FREE(EDIT("{", 1, "\"StackedDrg2KiBV1\":[[", "\"StackedDrg2KiBV1\":[[],\"q\":[["),
		     ZKP_ERR_MISMATCH, "vanilla_proofs[0]: 0 proofs");

	/* not JSON, or not a C1 */
	REFUSED("{]", ZKP_ERR_FORMAT, "top level: not JSON at byte 2: parse error");
	REFUSED("[]", ZKP_ERR_FORMAT, "top level: expected an object, found an array");
	REFUSED("{}", ZKP_ERR_FORMAT, "empty object");
	REFUSED("   ", ZKP_ERR_TRUNCATED, "ends early");
	REFUSED("{\"comm_r\":[1,2,3", ZKP_ERR_TRUNCATED, "comm_r", "ends early");
	e = malloc(len + 3);
	memcpy(e, t, len);
	memcpy(e + len, " x", 3);
	REFUSED_FREE(e, ZKP_ERR_FORMAT, "not JSON", "trailing garbage");
	e = malloc(len + 3);
	memcpy(e, t, len);
	memcpy(e + len, "{}", 3);
	REFUSED_FREE(e, ZKP_ERR_FORMAT, "not JSON");
	e = EDIT("{", 1, "\"registered_proof\":\"", "\"registered_proof\":\"\\u0000");
	REFUSED_FREE(e, ZKP_ERR_FORMAT, "registered_proof: unknown proof \"?StackedDrg2KiBV1_1\"");

	free(t);
	c1_free_built(c1);
	zkp_porep_dev_free(d);
}

static void test_files(void **state)
{
	(void)state;
	zkp_porep_dev *d;
	zkp_porep_c1 *c1 = dev_c1(&d, "StackedDrg2KiBV1_1", 1), *back;
	zkp_error err = { 0 };
	char *path = tmp_path();
	assert_int_equal(zkp_porep_c1_write(c1, path, 1, 3, &err), 0);
	assert_int_equal(zkp_porep_c1_load(&back, path, &err), 0);
	c1_equal(c1, back);
	zkp_porep_c1_free(back);
	/* a message names the file */
	FILE *f = fopen(path, "w");
	fputs("{\"SectorNum\":3}", f);
	fclose(f);
	assert_int_equal(zkp_porep_c1_load(&back, path, &err), ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "missing field \"Phase1Out\""));
	unlink(path);
	assert_int_equal(zkp_porep_c1_load(&back, "/nonexistent/c1.json", &err), ZKP_ERR_IO);
	assert_null(back);
	assert_int_equal(zkp_porep_c1_write(c1, "/nonexistent/c1.json", 0, 0, &err), ZKP_ERR_IO);
	/* the writer refuses what it could not name */
	strcpy(c1->registered_proof, "StackedDrg8MiBV1_1");
	assert_int_equal(zkp_porep_c1_write(c1, path, 0, 0, &err), ZKP_ERR_INVAL);
	strcpy(c1->registered_proof, "Stacked\"Drg");
	assert_int_equal(zkp_porep_c1_write(c1, path, 0, 0, &err), ZKP_ERR_INVAL);
	assert_int_equal(access(path, F_OK), -1);
	c1_free_built(c1);
	zkp_porep_dev_free(d);
}

int main(int argc, char **argv)
{
	tu_seed();
	if (argc > 1) /* a test's name, or a pattern with * and ? */
		cmocka_set_test_filter(argv[1]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_2kib), cmocka_unit_test(test_rust_verifier_view),
		cmocka_unit_test(test_ni_and_layouts), cmocka_unit_test(test_big_shapes),
		cmocka_unit_test(test_wrapper),        cmocka_unit_test(test_unknown_fields),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed),      cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
