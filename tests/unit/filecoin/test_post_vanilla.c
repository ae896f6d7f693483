/*
 * PoSt vanilla proofs (include/zkpd/post_vanilla.h) against a real one:
 * tests/vectors/post-32g/post.vproof, a WindowPoSt vanilla proof of one
 * 32 GiB sector written by a storage provider's node, and postpub.json,
 * its public side (origin in tests/vectors/README.md). Checked:
 *  - it decodes: sector 1, 10 challenges, Sub proofs of tree 8-8-0 (9 base
 *    levels of arity 8, one sub level of 8), comm_r equal to the digest in
 *    the SealedCID (base32 CID decoded here) and to the raw bytes;
 *  - natively: every path hashes up to comm_r_last, and comm_r =
 *    Poseidon-2(comm_c, comm_r_last); a changed sibling, leaf, position,
 *    node or comm_c is refused naming the challenge (and level);
 *  - the opened leaves are the ones derived from the zero randomness for
 *    sector 1 (PoStProof 8, StackedDrgWindow32GiBV1), also listed here as
 *    computed by an independent Python hashlib script;
 *  - broken inputs each fail with their code and a message naming the
 *    byte offset and the field: every truncation, oversized and wrong Vec
 *    lengths, wrong and unknown variant tags, positions past the arity,
 *    non-canonical values, a root other than comm_r_last, trailing bytes,
 *    wrong tree shapes; random byte flips never crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/poseidon.h"
#include "zkpd/post_vanilla.h"

#define VPROOF "post-32g/post.vproof"
#define VPUB "post-32g/postpub.json"

/* Byte offsets in the fixture (bincode layout, docs/formats.md). */
enum {
	OFF_SECTOR_ID = 0,
	OFF_COMM_R = 8,
	OFF_SECTORS_LEN = 40,
	OFF_PROOFS_LEN = 48,
	OFF_PROOF0 = 56,   /* variant tag of inclusion_proofs[0] */
	OFF_BASE_LEN = 60, /* base_proof.path length */
	OFF_ELEM0 = 68,    /* base_proof.path[0]: hashes length */
	ELEM_BYTES = 8 + 7 * 32 + 8,
	OFF_SUB_LEN = OFF_BASE_LEN + 8 + 9 * ELEM_BYTES, /* 2228 */
	OFF_ROOT0 = OFF_SUB_LEN + 8 + ELEM_BYTES,        /* 2476 */
	PROOF_BYTES = 4 + 8 + 9 * ELEM_BYTES + 8 + ELEM_BYTES + 64,
	OFF_COMM_C = OFF_PROOF0 + 10 * PROOF_BYTES, /* 24896 */
	OFF_COMM_R_LAST = OFF_COMM_C + 32,
	FIXTURE_BYTES = OFF_COMM_R_LAST + 32,
};

static const zkp_tree_shape tree_8_8_0 = { ZKP_TREE_POSEIDON, 9, { 8, 8, 0 } };
static const uint64_t nodes_32g = (32ULL << 30) / 32;

/* The challenged leaves of sector 1 for the zero randomness, challenge
 * index n = 0..9, from Python's hashlib (SHA-256(0^32 || 1 || n) mod
 * 2^30), and the same leaves read off the fixture's paths. */
static const uint64_t want_leaves[10] = {
	707914199, 439148358,  967788220, 548708700,  1061661429,
	6202012,   1055504637, 389535735, 1000069704, 600088878,
};

static uint8_t *fixture(size_t *len)
{
	uint8_t *b = tu_read_vector_file(VPROOF, len);
	assert_int_equal(*len, FIXTURE_BYTES);
	return b;
}

static void decode_ok(zkp_post_vanilla *v, const uint8_t *b, size_t len)
{
	zkp_error err = { 0 };
	int rc = zkp_post_vanilla_decode(v, b, len, &tree_8_8_0, &err);
	if (rc)
		fail_msg("decode: %s: %s", zkp_err_name(rc), err.msg);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* ---- the public side: postpub.json ---- */

static json_t *pub_json(void)
{
	size_t len;
	uint8_t *b = tu_read_vector_file(VPUB, &len);
	json_error_t jerr;
	json_t *j = json_loadb((const char *)b, len, 0, &jerr);
	free(b);
	if (!j)
		fail_msg(VPUB ":%d: %s", jerr.line, jerr.text);
	return j;
}

static uint64_t varint(const uint8_t *b, size_t len, size_t *pos)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *pos < len && shift < 64; shift += 7) {
		uint8_t c = b[(*pos)++];
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	fail_msg("bad varint");
	return 0;
}

/* comm_r from a sealed CID: multibase 'b' (RFC 4648 base32, lower case,
 * no padding), then CIDv1 = varint version, varint codec
 * (0xf102 fil-commitment-sealed), multihash = varint code (0xb401
 * poseidon-bls12_381-a2-fc1), varint length 32, the digest: comm_r's
 * 32 bytes as rust-fil-proofs stores them. */
static void comm_r_from_cid(uint8_t out[32], const char *cid)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyz234567";
	uint8_t b[64];
	size_t n = 0;
	uint32_t acc = 0;
	unsigned bits = 0;
	assert_int_equal(cid[0], 'b');
	for (const char *p = cid + 1; *p; p++) {
		const char *q = strchr(alpha, *p);
		assert_non_null(q);
		acc = acc << 5 | (uint32_t)(q - alpha);
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			assert_true(n < sizeof(b));
			b[n++] = (uint8_t)(acc >> bits);
		}
	}
	size_t pos = 0;
	assert_int_equal(varint(b, n, &pos), 1);
	assert_int_equal(varint(b, n, &pos), 0xf102);
	assert_int_equal(varint(b, n, &pos), 0xb401);
	assert_int_equal(varint(b, n, &pos), 32);
	assert_int_equal(n - pos, 32);
	memcpy(out, b + pos, 32);
}

static void randomness_of(uint8_t out[32], json_t *pub)
{
	const char *s = json_string_value(json_object_get(pub, "Randomness"));
	assert_non_null(s);
	uint8_t b[48];
	assert_int_equal(EVP_DecodeBlock(b, (const unsigned char *)s, (int)strlen(s)), 33);
	memcpy(out, b, 32); /* 44 characters with one '=': 32 bytes */
}

/* ---- the fixture ---- */

static void test_fixture_decodes(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = fixture(&len);
	zkp_post_vanilla v;
	decode_ok(&v, b, len);
	assert_int_equal(v.sector.sector_id, 1);
	assert_int_equal(v.challenges, 10);
	assert_ptr_equal(v.sector.challenges, v.ch);
	assert_memory_equal(&v.tree, &tree_8_8_0, sizeof(tree_8_8_0));
	for (unsigned i = 0; i < 10; i++) {
		/* positions read back into the leaf index, level 0 lowest */
		uint64_t node = 0, mul = 1;
		for (unsigned l = 0; l < 10; l++) {
			assert_true(v.ch[i].path.index[l] < 8);
			node += v.ch[i].path.index[l] * mul;
			mul *= 8;
		}
		assert_int_equal(v.ch[i].node, node);
		assert_true(node < nodes_32g);
	}
	/* values kept as the canonical bytes they came from */
	uint8_t le[32];
	zkp_fr_to_le(le, &v.sector.comm_r);
	assert_memory_equal(le, b + OFF_COMM_R, 32);
	zkp_fr_to_le(le, &v.sector.comm_c);
	assert_memory_equal(le, b + OFF_COMM_C, 32);
	zkp_fr_to_le(le, &v.sector.comm_r_last);
	assert_memory_equal(le, b + OFF_COMM_R_LAST, 32);
	zkp_fr_to_le(le, &v.ch[0].path.siblings[0]);
	assert_memory_equal(le, b + OFF_ELEM0 + 8, 32);
	zkp_fr_to_le(le, &v.ch[0].path.siblings[9 * 7 + 6]); /* sub level, last */
	assert_memory_equal(le, b + OFF_ROOT0 - 8 - 32, 32);
	zkp_fr_to_le(le, &v.ch[0].leaf);
	assert_memory_equal(le, b + OFF_ROOT0 + 32, 32);

	/* comm_r is the digest of the sector's SealedCID */
	json_t *pub = pub_json();
	json_t *sec = json_array_get(json_object_get(pub, "ChallengedSectors"), 0);
	assert_int_equal(json_integer_value(json_object_get(sec, "SectorNumber")), 1);
	assert_int_equal(json_integer_value(json_object_get(sec, "SealProof")), 8);
	const char *cid =
		json_string_value(json_object_get(json_object_get(sec, "SealedCID"), "/"));
	assert_non_null(cid);
	uint8_t cid_comm_r[32];
	comm_r_from_cid(cid_comm_r, cid);
	zkp_fr_to_le(le, &v.sector.comm_r);
	assert_memory_equal(le, cid_comm_r, 32);
	json_decref(pub);

	/* decode time, averaged */
	const int reps = 2000;
	double t0 = now();
	for (int k = 0; k < reps; k++) {
		zkp_post_vanilla w;
		decode_ok(&w, b, len);
		zkp_post_vanilla_release(&w);
	}
	double t1 = now();
	print_message("decode: %zu bytes in %.1f us\n", len, 1e6 * (t1 - t0) / reps);
	zkp_post_vanilla_release(&v);
	assert_null(v.ch);
	zkp_post_vanilla_release(&v); /* a released one again */
	free(b);
}

/* The encoder writes the real proof back byte for byte. */
static void test_fixture_reencodes(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = fixture(&len), *again;
	size_t again_len;
	zkp_post_vanilla v;
	decode_ok(&v, b, len);
	zkp_error err = { 0 };
	assert_int_equal(zkp_post_vanilla_encode(&again, &again_len, &v.sector, v.challenges,
						 &tree_8_8_0, &err), 0);
	assert_int_equal(again_len, len);
	assert_memory_equal(again, b, len);
	free(again);
	zkp_post_vanilla_release(&v);
	free(b);
}

static void test_fixture_verifies(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = fixture(&len);
	zkp_post_vanilla v;
	decode_ok(&v, b, len);
	zkp_error err = { 0 };

	const zkp_poseidon_consts *p2;
	assert_int_equal(zkp_poseidon_consts_get(&p2, 2), 0);
	zkp_fr in[2] = { v.sector.comm_c, v.sector.comm_r_last }, r;
	zkp_poseidon_hash(&r, p2, in);
	assert_true(zkp_fr_eq(&r, &v.sector.comm_r));

	/* the first call also builds the arity-8 constants */
	double t0 = now();
	int rc = zkp_post_vanilla_check(&v.sector, v.challenges, &v.tree, &err);
	double t1 = now();
	if (rc)
		fail_msg("check: %s: %s", zkp_err_name(rc), err.msg);
	assert_int_equal(zkp_post_vanilla_check(&v.sector, v.challenges, &v.tree, &err), 0);
	double t2 = now();
	print_message("native check of 10 paths: %.2f ms (first call %.2f ms)\n", 1e3 * (t2 - t1),
		      1e3 * (t1 - t0));

	/* Each change is refused, naming what broke. A copy of the sector
	 * with its own challenges, so v stays intact. */
	zkp_post_challenge ch[10];
	zkp_post_sector s = v.sector;
	s.challenges = ch;
	const zkp_fr one = v.sector.comm_c; /* some other canonical value */

	memcpy(ch, v.ch, sizeof(ch));
	ch[3].path.siblings[4 * 7 + 2] = one;
	assert_int_equal(zkp_post_vanilla_check(&s, 10, &v.tree, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "sector 1, challenge 3:"));
	assert_non_null(strstr(err.msg, "top level (9)"));

	memcpy(ch, v.ch, sizeof(ch));
	ch[9].leaf = one;
	assert_int_equal(zkp_post_vanilla_check(&s, 10, &v.tree, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "challenge 9:"));

	memcpy(ch, v.ch, sizeof(ch));
	ch[5].path.index[2] = (uint8_t)((ch[5].path.index[2] + 1) % 8);
	assert_int_equal(zkp_post_vanilla_check(&s, 10, &v.tree, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "challenge 5:"));

	memcpy(ch, v.ch, sizeof(ch));
	ch[6].path.index[4] = 8;
	assert_int_equal(zkp_post_vanilla_check(&s, 10, &v.tree, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "challenge 6, level 4"));

	memcpy(ch, v.ch, sizeof(ch));
	ch[1].node ^= 1;
	assert_int_equal(zkp_post_vanilla_check(&s, 10, &v.tree, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "challenge 1:"));

	memcpy(ch, v.ch, sizeof(ch));
	s.comm_c = v.sector.comm_r_last;
	assert_int_equal(zkp_post_vanilla_check(&s, 10, &v.tree, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "Poseidon-2(comm_c, comm_r_last)"));
	s.comm_c = v.sector.comm_c;
	assert_int_equal(zkp_post_vanilla_check(&s, 10, &v.tree, &err), 0);

	zkp_tree_shape sha = tree_8_8_0;
	sha.hash = ZKP_TREE_SHA256;
	assert_int_equal(zkp_post_vanilla_check(&s, 10, &sha, &err), ZKP_ERR_INVAL);
	zkp_post_vanilla_release(&v);
	free(b);
}

static void test_fixture_challenges(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = fixture(&len);
	zkp_post_vanilla v;
	decode_ok(&v, b, len);
	zkp_error err = { 0 };

	json_t *pub = pub_json();
	uint8_t rnd[32], zero[32] = { 0 };
	randomness_of(rnd, pub);
	assert_memory_equal(rnd, zero, 32);
	assert_int_equal(json_integer_value(json_object_get(pub, "Prover")), 1000);
	zkp_post_proof_type pt;
	json_int_t id = json_integer_value(
		json_object_get(json_array_get(json_object_get(pub, "Proofs"), 0), "PoStProof"));
	assert_int_equal(zkp_post_proof_type_from_id(&pt, id, &err), 0);
	json_decref(pub);
	assert_string_equal(pt.name, "StackedDrgWindow32GiBV1");
	assert_int_equal(pt.kind, ZKP_POST_WINDOW);
	assert_int_equal(pt.version, ZKP_POST_V1);
	assert_int_equal(pt.sector_bytes, 32ULL << 30);

	for (unsigned n = 0; n < 10; n++) {
		uint64_t leaf;
		assert_int_equal(v.ch[n].node, want_leaves[n]);
		assert_int_equal(zkp_post_leaf_challenge(&leaf, rnd, 1, n, nodes_32g, &err), 0);
		assert_int_equal(leaf, want_leaves[n]);
	}
	/* The only sector of the proof: index 0, where V1 and V1_2 agree. */
	int rc = zkp_post_vanilla_check_challenges(&v.sector, 10, pt.version, rnd, 0,
						   pt.sector_bytes / 32, &err);
	if (rc)
		fail_msg("challenges: %s: %s", zkp_err_name(rc), err.msg);
	assert_int_equal(zkp_post_vanilla_check_challenges(&v.sector, 10, ZKP_POST_V1_2, rnd, 7,
							   nodes_32g, &err),
			 0);
	/* As the second sector of a V1 proof it would have had other leaves. */
	assert_int_equal(zkp_post_vanilla_check_challenges(&v.sector, 10, ZKP_POST_V1, rnd, 1,
							   nodes_32g, &err),
			 ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "sector 1, challenge 0 opens leaf 707914199"));
	assert_non_null(strstr(err.msg, "challenge index 10, V1"));
	/* other randomness */
	uint8_t r2[32] = { 1 };
	assert_int_equal(zkp_post_vanilla_check_challenges(&v.sector, 10, ZKP_POST_V1, r2, 0,
							   nodes_32g, &err),
			 ZKP_ERR_MISMATCH);
	/* randomness that is not a field element */
	uint8_t big[32];
	memset(big, 0xff, sizeof(big));
	assert_int_equal(zkp_post_vanilla_check_challenges(&v.sector, 10, ZKP_POST_V1, big, 0,
							   nodes_32g, &err),
			 ZKP_ERR_NOT_CANONICAL);
	uint64_t leaf;
	assert_int_equal(zkp_post_leaf_challenge(&leaf, rnd, 1, 0, 0, &err), ZKP_ERR_INVAL);

	/* challenge indices and the registered proof numbers */
	assert_int_equal(zkp_post_challenge_index(ZKP_POST_V1, 3, 10, 4), 34);
	assert_int_equal(zkp_post_challenge_index(ZKP_POST_V1_2, 3, 10, 4), 4);
	assert_int_equal(zkp_post_challenge_index(ZKP_POST_V1, 0, 66, 65), 65);
	assert_int_equal(zkp_post_proof_type_from_id(&pt, 3, &err), 0);
	assert_int_equal(pt.kind, ZKP_POST_WINNING);
	assert_int_equal(pt.version, ZKP_POST_V1);
	assert_int_equal(zkp_post_proof_type_from_id(&pt, 13, &err), 0);
	assert_string_equal(pt.name, "StackedDrgWindow32GiBV1_1");
	assert_int_equal(pt.version, ZKP_POST_V1_2);
	assert_int_equal(zkp_post_proof_type_from_id(&pt, 9, &err), 0);
	assert_int_equal(pt.sector_bytes, 64ULL << 30);
	assert_int_equal(zkp_post_proof_type_from_id(&pt, 15, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "registered PoSt proof 15"));
	assert_int_equal(zkp_post_proof_type_from_id(&pt, -1, &err), ZKP_ERR_INVAL);
	zkp_post_vanilla_release(&v);
	free(b);
}

/* ---- broken inputs ---- */

/* Decodes b and expects code, a zeroed result, and a message holding
 * every given fragment. */
static void refused(const uint8_t *b, size_t len, const zkp_tree_shape *t, int code, ...)
{
	zkp_post_vanilla v;
	memset(&v, 0xa5, sizeof(v));
	zkp_error err = { 0 };
	int rc = zkp_post_vanilla_decode(&v, b, len, t, &err);
	if (rc != code)
		fail_msg("expected %s, got %s: %s", zkp_err_name(code), zkp_err_name(rc),
			 rc ? err.msg : "accepted");
	assert_null(v.ch);
	assert_int_equal(v.challenges, 0);
	va_list ap;
	va_start(ap, code);
	for (const char *s; (s = va_arg(ap, const char *));)
		if (!strstr(err.msg, s))
			fail_msg("message lacks \"%s\": %s", s, err.msg);
	va_end(ap);
}

/* ---- other tree shapes, through a writer of the documented layout ---- */

struct tree {
	zkp_tree_shape t;
	unsigned levels;
	zkp_fr *node[8]; /* node[0] the leaves, node[levels][0] the root */
};

static void tree_build(struct tree *tr, const zkp_tree_shape *t)
{
	tr->t = *t;
	tr->levels = zkp_tree_levels(t);
	assert_true(tr->levels < 8);
	size_t n = 1;
	for (unsigned l = 0; l < tr->levels; l++)
		n *= zkp_tree_level_arity(t, l);
	tr->node[0] = malloc(n * sizeof(zkp_fr));
	for (size_t i = 0; i < n; i++)
		tu_rand_fr(&tr->node[0][i]);
	for (unsigned l = 0; l < tr->levels; l++) {
		unsigned a = zkp_tree_level_arity(t, l);
		const zkp_poseidon_consts *pc;
		assert_int_equal(zkp_poseidon_consts_get(&pc, a), 0);
		n /= a;
		tr->node[l + 1] = malloc(n * sizeof(zkp_fr));
		for (size_t i = 0; i < n; i++)
			zkp_poseidon_hash(&tr->node[l + 1][i], pc, &tr->node[l][i * a]);
	}
}

static void tree_free(struct tree *tr)
{
	for (unsigned l = 0; l <= tr->levels; l++)
		free(tr->node[l]);
}

static uint8_t *put_fr(uint8_t *p, const zkp_fr *a)
{
	zkp_fr_to_le(p, a);
	return p + 32;
}

/* One part of a path: levels [l0, l0 + count) for leaf x. */
static uint8_t *put_path(uint8_t *p, const struct tree *tr, uint64_t x, unsigned l0, unsigned count)
{
	put_u64(p, count);
	p += 8;
	for (unsigned l = 0; l < l0; l++)
		x /= zkp_tree_level_arity(&tr->t, l);
	for (unsigned l = l0; l < l0 + count; l++) {
		unsigned a = zkp_tree_level_arity(&tr->t, l), pos = (unsigned)(x % a);
		uint64_t group = x / a;
		put_u64(p, a - 1);
		p += 8;
		for (unsigned k = 0; k < a; k++)
			if (k != pos)
				p = put_fr(p, &tr->node[l][group * a + k]);
		put_u64(p, pos);
		p += 8;
		x = group;
	}
	return p;
}

/* A FallbackPoStSectorProof of tree tr opening the given leaves, in
 * bincode as docs/formats.md describes it; *len gets its size. */
static uint8_t *encode(const struct tree *tr, uint64_t sector_id, const zkp_fr *comm_c,
		       const uint64_t *leaves, unsigned n, size_t *len)
{
	const zkp_tree_shape *t = &tr->t;
	const zkp_fr *root = &tr->node[tr->levels][0];
	const zkp_poseidon_consts *p2;
	assert_int_equal(zkp_poseidon_consts_get(&p2, 2), 0);
	zkp_fr in[2] = { *comm_c, *root }, comm_r;
	zkp_poseidon_hash(&comm_r, p2, in);
	uint8_t *b = malloc(64 + 64 + (size_t)n * (4 + 64 + 3 * 8 + tr->levels * (16 + 7 * 32))),
		*p = b;
	put_u64(p, sector_id);
	p = put_fr(p + 8, &comm_r);
	put_u64(p, 1);
	put_u64(p + 8, n);
	p += 16;
	unsigned tag = t->arity[2] ? 2 : t->arity[1] ? 1 : 0;
	for (unsigned i = 0; i < n; i++) {
		const zkp_fr *leaf = &tr->node[0][leaves[i]];
		p[0] = (uint8_t)tag;
		p[1] = p[2] = p[3] = 0;
		p += 4;
		if (tag == 0) {
			p = put_fr(p, root);
			p = put_fr(p, leaf);
			p = put_path(p, tr, leaves[i], 0, t->base_levels);
			continue;
		}
		p = put_path(p, tr, leaves[i], 0, t->base_levels);
		for (unsigned part = 1; part <= tag; part++)
			p = put_path(p, tr, leaves[i], t->base_levels + part - 1, 1);
		p = put_fr(p, root);
		p = put_fr(p, leaf);
	}
	p = put_fr(p, comm_c);
	p = put_fr(p, root);
	*len = (size_t)(p - b);
	return b;
}

static void test_other_shapes(void **state)
{
	(void)state;
	static const zkp_tree_shape shapes[] = {
		{ ZKP_TREE_POSEIDON, 2, { 8, 0, 0 } }, /* 2 KiB: Single */
		{ ZKP_TREE_POSEIDON, 1, { 8, 8, 0 } }, /* Sub */
		{ ZKP_TREE_POSEIDON, 1, { 8, 8, 2 } }, /* Top, as 64 GiB */
		{ ZKP_TREE_POSEIDON, 2, { 4, 2, 0 } }, { ZKP_TREE_POSEIDON, 5, { 2, 0, 0 } },
	};
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		struct tree tr;
		tree_build(&tr, &shapes[k]);
		uint64_t nleaves = 1, leaves[66];
		for (unsigned l = 0; l < tr.levels; l++)
			nleaves *= zkp_tree_level_arity(&tr.t, l);
		const unsigned n = k == 0 ? 66 : 5; /* WinningPoSt's count once */
		for (unsigned i = 0; i < n; i++)
			leaves[i] = tu_rand64() % nleaves;
		leaves[0] = nleaves - 1;
		zkp_fr comm_c;
		tu_rand_fr(&comm_c);
		size_t len;
		uint8_t *b = encode(&tr, 77 + k, &comm_c, leaves, n, &len);

		zkp_post_vanilla v;
		zkp_error err = { 0 };
		int rc = zkp_post_vanilla_decode(&v, b, len, &tr.t, &err);
		if (rc)
			fail_msg("shape %zu: %s: %s", k, zkp_err_name(rc), err.msg);
		assert_int_equal(v.challenges, n);
		assert_int_equal(v.sector.sector_id, 77 + k);
		assert_true(zkp_fr_eq(&v.sector.comm_c, &comm_c));
		assert_true(zkp_fr_eq(&v.sector.comm_r_last, &tr.node[tr.levels][0]));
		for (unsigned i = 0; i < n; i++) {
			assert_int_equal(v.ch[i].node, leaves[i]);
			assert_true(zkp_fr_eq(&v.ch[i].leaf, &tr.node[0][leaves[i]]));
		}
		rc = zkp_post_vanilla_check(&v.sector, v.challenges, &v.tree, &err);
		if (rc)
			fail_msg("shape %zu: %s: %s", k, zkp_err_name(rc), err.msg);
		/* every prefix is refused as short */
		for (size_t cut = 0; cut < len; cut += 1 + cut / 64) {
			zkp_post_vanilla w;
			assert_int_equal(zkp_post_vanilla_decode(&w, b, cut, &tr.t, &err),
					 ZKP_ERR_TRUNCATED);
		}
		/* a leaf that is not the one opened fails the check */
		v.ch[n - 1].leaf = comm_c;
		assert_int_equal(zkp_post_vanilla_check(&v.sector, v.challenges, &v.tree, &err),
				 ZKP_ERR_MISMATCH);
		zkp_post_vanilla_release(&v);
		/* the same bytes against the fixture's shape */
		if (k != 1)
			refused(b, len, &tree_8_8_0, ZKP_ERR_FORMAT, NULL);
		free(b);
		tree_free(&tr);
	}
}

static void test_truncated(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = fixture(&len);
	/* every prefix: the decoder reads nothing past the end (the prefix
	 * is copied so a sanitizer sees any over-read) */
	for (size_t n = 0; n < len; n++) {
		uint8_t *cut = malloc(n ? n : 1);
		memcpy(cut, b, n);
		zkp_post_vanilla v;
		zkp_error err = { 0 };
		int rc = zkp_post_vanilla_decode(&v, cut, n, &tree_8_8_0, &err);
		if (rc != ZKP_ERR_TRUNCATED)
			fail_msg("cut at %zu: %s: %s", n, zkp_err_name(rc),
				 rc ? err.msg : "accepted");
		free(cut);
	}
	refused(b, 0, &tree_8_8_0, ZKP_ERR_TRUNCATED, "byte 0: sector_id", NULL);
	refused(b, 20, &tree_8_8_0, ZKP_ERR_TRUNCATED, "byte 8: comm_r", "ends 12 bytes into",
		NULL);
	refused(b, 44, &tree_8_8_0, ZKP_ERR_TRUNCATED, "byte 40: vanilla_proof.sectors", NULL);
	refused(b, 2000, &tree_8_8_0, ZKP_ERR_TRUNCATED,
		"byte 1996: "
		"vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.base_proof.path[8]"
		".hashes[0]:",
		"ends 4 bytes into this 32-byte field element", NULL);
	refused(b, OFF_SUB_LEN + 3, &tree_8_8_0, ZKP_ERR_TRUNCATED,
		"byte 2228: vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.sub_proof.path:",
		NULL);
	refused(b, OFF_PROOF0 + 7 * PROOF_BYTES + 2, &tree_8_8_0, ZKP_ERR_TRUNCATED,
		"inclusion_proofs[7].data:", "4-byte variant tag", NULL);
	refused(b, len - 1, &tree_8_8_0, ZKP_ERR_TRUNCATED,
		"byte 24928: vanilla_proof.sectors[0].comm_r_last:", "ends 31 bytes into", NULL);
	free(b);
}

static void test_malformed(void **state)
{
	(void)state;
	size_t len;
	uint8_t *orig = fixture(&len);
	uint8_t *b = malloc(len + 1);
	const zkp_tree_shape *t = &tree_8_8_0;
#define RESET() memcpy(b, orig, len)

	/* Vec lengths too large, and wrong */
	RESET();
	put_u64(b + OFF_SECTORS_LEN, UINT64_MAX);
	refused(b, len, t, ZKP_ERR_FORMAT, "byte 40: vanilla_proof.sectors:", "exactly 1", NULL);
	put_u64(b + OFF_SECTORS_LEN, 2);
	refused(b, len, t, ZKP_ERR_FORMAT, "byte 40", NULL);
	RESET();
	put_u64(b + OFF_PROOFS_LEN, 1ULL << 62);
	refused(b, len, t, ZKP_ERR_FORMAT,
		"byte 48: vanilla_proof.sectors[0].inclusion_proofs:", "1 to 66 challenges", NULL);
	put_u64(b + OFF_PROOFS_LEN, 0);
	refused(b, len, t, ZKP_ERR_FORMAT, "byte 48", NULL);
	put_u64(b + OFF_PROOFS_LEN, 67);
	refused(b, len, t, ZKP_ERR_FORMAT, "byte 48", "length 67", NULL);
	/* one proof more than there are: comm_c's bytes read as its tag */
	put_u64(b + OFF_PROOFS_LEN, 11);
	refused(b, len, t, ZKP_ERR_FORMAT, "byte 24896:", "inclusion_proofs[10].data:", NULL);
	/* one fewer: proof 9's bytes read as comm_c, comm_r_last and more */
	put_u64(b + OFF_PROOFS_LEN, 9);
	refused(b, len, t, ZKP_ERR_FORMAT, NULL);
	RESET();
	put_u64(b + OFF_BASE_LEN, 1ULL << 40);
	refused(b, len, t, ZKP_ERR_FORMAT,
		"byte 60: vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.base_proof.path:",
		"9 levels", NULL);
	RESET();
	put_u64(b + OFF_SUB_LEN, 2);
	refused(b, len, t, ZKP_ERR_FORMAT, "byte 2228:", "data.Sub.sub_proof.path:", "1 level",
		NULL);
	RESET();
	put_u64(b + OFF_ELEM0 + 3 * ELEM_BYTES, UINT64_MAX);
	refused(b, len, t, ZKP_ERR_FORMAT,
		"byte 788:", "base_proof.path[3].hashes:", "arity 8 has 7", NULL);
	RESET();
	put_u64(b + OFF_ELEM0 + ELEM_BYTES - 8, 8); /* path[0].index */
	refused(b, len, t, ZKP_ERR_FORMAT,
		"byte 300:", "base_proof.path[0].index:", "position 8 is not below the arity 8",
		NULL);
	RESET();
	put_u64(b + OFF_PROOF0 + PROOF_BYTES + OFF_ROOT0 - OFF_PROOF0 - 8, 1ULL << 32);
	refused(b, len, t, ZKP_ERR_FORMAT, "inclusion_proofs[1].data.Sub.sub_proof.path[0].index",
		NULL);

	/* variant tags: unknown, and known but not the tree's */
	RESET();
	b[OFF_PROOF0] = 7;
	refused(b, len, t, ZKP_ERR_FORMAT,
		"byte 56: vanilla_proof.sectors[0].inclusion_proofs[0].data:", "variant tag 7",
		NULL);
	RESET();
	b[OFF_PROOF0 + 3] = 1; /* 2^24 + 1 */
	refused(b, len, t, ZKP_ERR_FORMAT, "variant tag 16777217", NULL);
	RESET();
	b[OFF_PROOF0 + 4 * PROOF_BYTES] = 0;
	refused(b, len, t, ZKP_ERR_FORMAT, "inclusion_proofs[4].data:", "a Single proof",
		"takes Sub proofs", NULL);
	b[OFF_PROOF0 + 4 * PROOF_BYTES] = 2;
	refused(b, len, t, ZKP_ERR_FORMAT, "a Top proof", NULL);

	/* non-canonical values: r itself and all ones, in several places */
	uint8_t r_le[32];
	assert_int_equal(
		tu_hex_to_bytes(r_le, 32,
				"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"),
		32);
	for (int i = 0; i < 16; i++) {
		uint8_t x = r_le[i];
		r_le[i] = r_le[31 - i];
		r_le[31 - i] = x;
	}
	static const struct {
		size_t off;
		const char *field;
	} vals[] = {
		{ OFF_COMM_R, "byte 8: comm_r:" },
		{ OFF_ELEM0 + 8, "byte 76: vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub"
				 ".base_proof.path[0].hashes[0]:" },
		{ OFF_ELEM0 + 8 + 2 * ELEM_BYTES + 6 * 32, "base_proof.path[2].hashes[6]:" },
		{ OFF_SUB_LEN + 16 + 32, "sub_proof.path[0].hashes[1]:" },
		{ OFF_ROOT0,
		  "byte 2476: vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.root:" },
		{ OFF_ROOT0 + 32 + 5 * PROOF_BYTES, "inclusion_proofs[5].data.Sub.leaf:" },
		{ OFF_COMM_C, "byte 24896: vanilla_proof.sectors[0].comm_c:" },
		{ OFF_COMM_R_LAST, "byte 24928: vanilla_proof.sectors[0].comm_r_last:" },
	};
	for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
		RESET();
		memcpy(b + vals[k].off, r_le, 32);
		refused(b, len, t, ZKP_ERR_NOT_CANONICAL, vals[k].field, "not below", NULL);
		memset(b + vals[k].off, 0xff, 32);
		refused(b, len, t, ZKP_ERR_NOT_CANONICAL, vals[k].field, NULL);
	}
	/* r - 1 is canonical: the path no longer verifies, but it decodes */
	RESET();
	r_le[0] -= 1;
	memcpy(b + OFF_ELEM0 + 8, r_le, 32);
	zkp_post_vanilla v;
	zkp_error err = { 0 };
	assert_int_equal(zkp_post_vanilla_decode(&v, b, len, t, &err), 0);
	assert_int_equal(zkp_post_vanilla_check(&v.sector, v.challenges, t, &err),
			 ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "challenge 0:"));
	zkp_post_vanilla_release(&v);

	/* a root other than comm_r_last */
	RESET();
	memset(b + OFF_ROOT0 + 2 * PROOF_BYTES, 0, 32);
	refused(b, len, t, ZKP_ERR_MISMATCH,
		"byte 7444:", "inclusion_proofs[2].data.Sub.root:", "differs from comm_r_last",
		NULL);

	/* bytes after the end */
	RESET();
	b[len] = 0;
	refused(b, len + 1, t, ZKP_ERR_FORMAT, "byte 24960", "1 more bytes follow", NULL);

	/* the wrong tree for the proof */
	RESET();
	const zkp_tree_shape t882 = { ZKP_TREE_POSEIDON, 9, { 8, 8, 2 } };
	refused(b, len, &t882, ZKP_ERR_FORMAT, "a Sub proof", "takes Top proofs", NULL);
	const zkp_tree_shape t800 = { ZKP_TREE_POSEIDON, 10, { 8, 0, 0 } };
	refused(b, len, &t800, ZKP_ERR_FORMAT, "takes Single proofs", NULL);
	const zkp_tree_shape t880 = { ZKP_TREE_POSEIDON, 8, { 8, 8, 0 } };
	refused(b, len, &t880, ZKP_ERR_FORMAT, "byte 60:", "base_proof.path:", "8 levels", NULL);
	const zkp_tree_shape t840 = { ZKP_TREE_POSEIDON, 9, { 8, 4, 0 } };
	refused(b, len, &t840, ZKP_ERR_FORMAT, "sub_proof.path[0].hashes:", "arity 4 has 3", NULL);
	const zkp_tree_shape sha = { ZKP_TREE_SHA256, 30, { 2, 0, 0 } };
	refused(b, len, &sha, ZKP_ERR_INVAL, "Poseidon", NULL);
	const zkp_tree_shape bad = { ZKP_TREE_POSEIDON, 9, { 3, 0, 0 } };
	refused(b, len, &bad, ZKP_ERR_INVAL, NULL);
#undef RESET
	free(b);
	free(orig);
}

/* Random byte changes: the decoder refuses or accepts, never crashes;
 * whatever it accepts the check and the challenge check handle. */
static void test_random_damage(void **state)
{
	(void)state;
	size_t len;
	uint8_t *orig = fixture(&len), *b = malloc(len);
	unsigned accepted = 0, codes[64] = { 0 };
	const int copies = 600;
	for (int k = 0; k < copies; k++) {
		memcpy(b, orig, len);
		int flips = 1 + (int)(tu_rand64() % 3);
		for (int f = 0; f < flips; f++) {
			size_t at = (size_t)(tu_rand64() % len);
			b[at] ^= (uint8_t)(1 + tu_rand64() % 255);
		}
		if (!memcmp(b, orig, len)) /* two flips undid each other */
			continue;
		zkp_post_vanilla v;
		zkp_error err = { 0 };
		int rc = zkp_post_vanilla_decode(&v, b, len, &tree_8_8_0, &err);
		assert_true(rc <= 0 && rc > -64);
		codes[-rc]++;
		if (rc)
			continue;
		accepted++;
		uint8_t zero[32] = { 0 };
		/* a changed byte that decodes changes a leaf index or a hash
		 * input: one of the checks must notice (the cheap one first) */
		int c = zkp_post_vanilla_check_challenges(&v.sector, v.challenges, ZKP_POST_V1,
							  zero, 0, nodes_32g, &err);
		if (!c)
			c = zkp_post_vanilla_check(&v.sector, v.challenges, &v.tree, &err);
		assert_true(c != 0);
		zkp_post_vanilla_release(&v);
	}
	print_message("%d damaged copies: %u decoded (all then refused by a check), %u truncated, "
		      "%u format, %u non-canonical, %u mismatch\n",
		      copies, accepted, codes[-ZKP_ERR_TRUNCATED], codes[-ZKP_ERR_FORMAT],
		      codes[-ZKP_ERR_NOT_CANONICAL], codes[-ZKP_ERR_MISMATCH]);
	free(b);
	free(orig);
}

int main(int argc, char **argv)
{
	tu_seed();
	if (argc > 1) /* a test's name, or a pattern with * and ? */
		cmocka_set_test_filter(argv[1]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_decodes),
		cmocka_unit_test(test_fixture_reencodes),    cmocka_unit_test(test_fixture_verifies),
		cmocka_unit_test(test_fixture_challenges), cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed),          cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_other_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
