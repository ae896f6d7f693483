/*
 * porep_graph: Filecoin's registered proofs, DRG and expander parents,
 * challenges and replica_id against values that did not come from zkpd:
 *
 *  - rust-fil-proofs' own published parent cache digests
 *    (storage-proofs-porep/parent_cache.json @ 87348a74: the SHA-256 of the
 *    whole cache file, 14 u32 LE parents per node) for the 2 KiB (porep
 *    ids 0 and 5) and 8 MiB (1 and 6) graphs, larger ones on request
 *    (ZKPD_POREP_GRAPH_MAX_NODES); the manifest key of every entry
 *    (cache.rs cache_path) is recomputed to show which porep_id it is;
 *  - the synthetic challenges hard-coded in rust-fil-proofs
 *    storage-proofs-porep/src/stacked/vanilla/challenges.rs,
 *    test_synth_challenges_against_hardcoded: sector_nodes 2^10,
 *    replica_id Fr 55, comm_r Fr 101, 21 synthetic challenges
 *    [178, 297, 869, ...] and, for rand [1; 32], 10 porep challenges
 *    [176, 781, 801, ...];
 *  - RFC 8439 2.3.2 (ChaCha20 block), draft-strombergson-chacha-test-vectors
 *    TC1 (ChaCha8, zero key), RFC 7693 appendix A (BLAKE2b-512 "abc"), and
 *    OpenSSL's ChaCha20, BLAKE2b-512 and BLAKE2BMAC on random inputs;
 *  - tests/vectors/porep_graph_vectors.json from the independent Python
 *    implementation (gen_porep_graph_vectors.py, which checks itself
 *    against all of the above first) for larger graphs (32 and 64 GiB,
 *    V1_0's 32-bit truncation), all three challenge modes and replica_id;
 *
 * and properties: DRG parents below the node with the predecessor in its
 * slot, expander parents inside the sector, the Feistel permutation a
 * bijection, partitions that concatenate to one long partition.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "testutil.h"
#include "zkpd/porep_graph.h"

static json_t *vectors(void)
{
	static json_t *root;
	if (root)
		return root;
	size_t len;
	uint8_t *buf = tu_read_vector_file("porep_graph_vectors.json", &len);
	json_error_t jerr;
	root = json_loadb((const char *)buf, len, 0, &jerr);
	free(buf);
	if (!root)
		fail_msg("porep_graph_vectors.json:%d: %s", jerr.line, jerr.text);
	return root;
}

static void hex32(uint8_t out[32], json_t *o, const char *key)
{
	const char *h = json_string_value(json_object_get(o, key));
	assert_non_null(h);
	assert_int_equal(tu_hex_to_bytes(out, 32, h), 32);
}

static uint64_t hex64(json_t *o, const char *key)
{
	const char *h = json_string_value(json_object_get(o, key));
	assert_non_null(h);
	return strtoull(h, NULL, 16);
}

static uint64_t jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	assert_true(json_is_integer(v));
	return (uint64_t)json_integer_value(v);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ primitives */

static void test_chacha(void **state)
{
	(void)state;
	/* RFC 8439 2.3.2. */
	uint8_t key[32], out[128], want[128];
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	const uint32_t w[4] = { 1, 0x09000000, 0x4a000000, 0 };
	zkp_porep_chacha_block(out, key, w, 20);
	tu_hex_to_bytes(want, 64,
			"10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
			"d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
	assert_memory_equal(out, want, 64);

	/* ChaCha8, zero key and IV, blocks 0 and 1 (TC1). */
	memset(key, 0, 32);
	const uint32_t c0[4] = { 0, 0, 0, 0 }, c1[4] = { 1, 0, 0, 0 };
	zkp_porep_chacha_block(out, key, c0, 8);
	zkp_porep_chacha_block(out + 64, key, c1, 8);
	tu_hex_to_bytes(want, 128,
			"3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e"
			"984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42"
			"d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b"
			"5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa");
	assert_memory_equal(out, want, 128);

	/* 20 rounds against OpenSSL's ChaCha20, whose 16-byte IV is the
	 * 32-bit counter LE then the 12-byte nonce: RFC 8439's words 12-15. */
	for (int t = 0; t < 50; t++) {
		uint8_t iv[16], zero[192] = { 0 }, ks[192], mine[192];
		tu_rand_bytes(key, 32);
		tu_rand_bytes(iv, 16);
		iv[3] = 0; /* keep the counter from wrapping in three blocks */
		EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
		int n = 0;
		assert_true(EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv));
		assert_true(EVP_EncryptUpdate(c, ks, &n, zero, sizeof(zero)));
		assert_int_equal(n, sizeof(zero));
		EVP_CIPHER_CTX_free(c);
		uint32_t words[4];
		for (int i = 0; i < 4; i++)
			words[i] = (uint32_t)iv[4 * i] | (uint32_t)iv[4 * i + 1] << 8 |
				   (uint32_t)iv[4 * i + 2] << 16 | (uint32_t)iv[4 * i + 3] << 24;
		for (int b = 0; b < 3; b++, words[0]++)
			zkp_porep_chacha_block(mine + 64 * b, key, words, 20);
		assert_memory_equal(mine, ks, sizeof(ks));
	}
}

static void openssl_blake2bmac(uint8_t out[32], const uint8_t *key, size_t keylen,
			       const uint8_t *msg, size_t len)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
	assert_non_null(mac);
	EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
	size_t size = 32, got = 0;
	OSSL_PARAM p[] = { OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_END };
	assert_true(EVP_MAC_init(ctx, key, keylen, p));
	assert_true(EVP_MAC_update(ctx, msg, len));
	assert_true(EVP_MAC_final(ctx, out, &got, 32));
	assert_int_equal(got, 32);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
}

static void test_blake2b(void **state)
{
	(void)state;
	uint8_t out[64], want[64];
	zkp_porep_blake2b(out, 64, NULL, 0, "abc", 3);
	tu_hex_to_bytes(want, 64,
			"ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
			"7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
	assert_memory_equal(out, want, 64);

	uint8_t msg[400], key[64];
	for (size_t len = 0; len <= 300; len += (len < 20 ? 1 : 17)) {
		tu_rand_bytes(msg, len);
		unsigned n = 0;
		assert_true(EVP_Digest(msg, len, want, &n, EVP_blake2b512(), NULL));
		zkp_porep_blake2b(out, 64, NULL, 0, msg, len);
		assert_memory_equal(out, want, 64);
		/* keyed, 32-byte digest: the synthetic PoRep's key derivation */
		size_t keylen = 1 + tu_rand64() % 64;
		tu_rand_bytes(key, keylen);
		openssl_blake2bmac(want, key, keylen, msg, len);
		zkp_porep_blake2b(out, 32, key, keylen, msg, len);
		assert_memory_equal(out, want, 32);
	}
}

/* ------------------------------------------------------------ registry */

static void test_registry(void **state)
{
	(void)state;
	size_t n;
	const zkp_porep_proof *t = zkp_porep_proofs(&n);
	assert_int_equal(n, 20);
	json_t *reg = json_object_get(vectors(), "registry");
	assert_int_equal(json_array_size(reg), 20);
	static const char *modes[] = { "interactive", "synthetic", "non_interactive" };
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_array_get(reg, i);
		const zkp_porep_proof *p;
		zkp_error err = { 0 };
		assert_int_equal(t[i].id, i);
		assert_string_equal(t[i].name, json_string_value(json_object_get(r, "name")));
		assert_int_equal(t[i].id, jint(r, "id"));
		assert_int_equal(t[i].sector_bytes, jint(r, "sector_bytes"));
		assert_int_equal(t[i].nodes, t[i].sector_bytes / 32);
		assert_string_equal(zkp_porep_api_name(t[i].api),
				    json_string_value(json_object_get(r, "api")));
		assert_string_equal(modes[t[i].mode], json_string_value(json_object_get(r, "mode")));
		assert_int_equal(zkp_porep_proof_lookup(&p, t[i].name, &err), 0);
		assert_ptr_equal(p, &t[i]);
		assert_int_equal(zkp_porep_proof_from_id(&p, i, &err), 0);
		assert_ptr_equal(p, &t[i]);

		uint8_t id[32], want[32] = { 0 };
		zkp_porep_id(id, &t[i]);
		want[0] = (uint8_t)i;
		assert_memory_equal(id, want, 32);

		/* constants.rs and parameters.rs (notes 4.1). */
		int big = t[i].sector_bytes >= (32ULL << 30);
		int ni = t[i].mode == ZKP_POREP_NON_INTERACTIVE;
		assert_int_equal(t[i].layers, big ? 11 : 2);
		assert_int_equal(t[i].min_challenges, ni ? (big ? 2253 : 26) : (big ? 176 : 2));
		assert_int_equal(t[i].partitions, ni ? (big ? 126 : 13) : (big ? 10 : 1));
		assert_int_equal(t[i].challenges, big ? 18 : 2);
	}
	const zkp_porep_proof *p;
	assert_int_equal(zkp_porep_proof_lookup(&p, "StackedDrg32GiBV1_1", NULL), 0);
	assert_int_equal(p->id, 8);
	assert_int_equal(p->api, ZKP_POREP_V1_1);
	assert_int_equal(zkp_porep_proof_lookup(&p, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", NULL), 0);
	assert_int_equal(p->id, 13);
	assert_int_equal(p->api, ZKP_POREP_V1_2);
	assert_int_equal(p->mode, ZKP_POREP_SYNTHETIC);
	assert_int_equal(zkp_porep_proof_lookup(&p, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", NULL), 0);
	assert_int_equal(p->id, 18);
	assert_int_equal(p->mode, ZKP_POREP_NON_INTERACTIVE);

	zkp_error err = { 0 };
	assert_int_equal(zkp_porep_proof_lookup(&p, "StackedDrg32GiBV1_2", &err), ZKP_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "StackedDrg32GiBV1_2"));
	assert_int_equal(zkp_porep_proof_lookup(&p, "stackeddrg2kibv1", NULL), ZKP_ERR_NOT_FOUND);
	assert_int_equal(zkp_porep_proof_from_id(&p, 20, &err), ZKP_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "20"));
}

/* ------------------------------------------------------------ parent cache */

/* SHA-256 of the parent cache file of g (cache.rs ParentCache::generate:
 * per node 6 DRG then 8 expander parents, u32 little-endian). */
static void cache_digest(uint8_t out[32], const zkp_porep_graph *g)
{
	enum { CHUNK = 4096 };
	static uint32_t par[CHUNK * ZKP_POREP_PARENTS];
	static uint8_t bytes[CHUNK * ZKP_POREP_PARENTS * 4];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	assert_true(EVP_DigestInit_ex(ctx, EVP_sha256(), NULL));
	for (uint64_t v = 0; v < g->nodes; v += CHUNK) {
		uint64_t n = g->nodes - v < CHUNK ? g->nodes - v : CHUNK;
		zkp_error err = { 0 };
		assert_int_equal(zkp_porep_parents_range(g, v, n, par, &err), 0);
		for (size_t i = 0; i < n * ZKP_POREP_PARENTS; i++)
			for (int b = 0; b < 4; b++)
				bytes[4 * i + b] = (uint8_t)(par[i] >> (8 * b));
		assert_true(EVP_DigestUpdate(ctx, bytes, n * ZKP_POREP_PARENTS * 4));
	}
	unsigned len;
	assert_true(EVP_DigestFinal_ex(ctx, out, &len));
	EVP_MD_CTX_free(ctx);
}

/* cache.rs cache_path: SHA-256("poseidon_hasher" || the graph identifier ||
 * the four Feistel keys u64 LE || nodes u32 LE), the manifest key. */
static void cache_name(char out[80], const zkp_porep_graph *g)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf),
			 "poseidon_hasher"
			 "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
			 "drgraph::BucketGraph{size: %llu; degree: 6; hasher: poseidon_hasher} }",
			 (unsigned long long)g->nodes);
	for (int k = 0; k < 4; k++)
		for (int b = 0; b < 8; b++)
			buf[n++] = (char)(g->feistel_keys[k] >> (8 * b));
	for (int b = 0; b < 4; b++)
		buf[n++] = (char)(g->nodes >> (8 * b));
	uint8_t d[32];
	unsigned len;
	assert_true(EVP_Digest(buf, (size_t)n, d, &len, EVP_sha256(), NULL));
	strcpy(out, "v28-sdr-parent-");
	for (int i = 0; i < 32; i++)
		sprintf(out + 15 + 2 * i, "%02x", d[i]);
}

/* storage-proofs-porep/parent_cache.json, all ten entries (porep ids 0-9;
 * the synthetic and NI ids have no published cache). */
static const struct {
	uint64_t proof_id;
	const char *name, *digest;
} manifest[] = {
	{ 0, "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
	  "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d" },
	{ 5, "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
	  "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97" },
	{ 1, "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
	  "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce" },
	{ 6, "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
	  "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab" },
	{ 2, "v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42",
	  "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5" },
	{ 7, "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34",
	  "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a" },
	{ 3, "v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13",
	  "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6" },
	{ 8, "v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117",
	  "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da" },
	{ 4, "v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6",
	  "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c" },
	{ 9, "v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b",
	  "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03" },
};

static void test_parent_cache(void **state)
{
	(void)state;
	/* Every manifest key names its graph; the digests of graphs up to
	 * ZKPD_POREP_GRAPH_MAX_NODES nodes (default 2^18, 8 MiB, 0.1 s each)
	 * are recomputed. One core does 512 MiB in about 7 s, 32 GiB and
	 * 64 GiB in about 11 min each (all ten matched when this was written). */
	const char *env = getenv("ZKPD_POREP_GRAPH_MAX_NODES");
	uint64_t max_nodes = env ? strtoull(env, NULL, 0) : 1ULL << 18;
	for (size_t i = 0; i < sizeof(manifest) / sizeof(manifest[0]); i++) {
		const zkp_porep_proof *p;
		zkp_porep_graph g;
		zkp_error err = { 0 };
		assert_int_equal(zkp_porep_proof_from_id(&p, manifest[i].proof_id, &err), 0);
		assert_int_equal(zkp_porep_graph_init_proof(&g, p, &err), 0);
		char name[80], hex[65];
		cache_name(name, &g);
		assert_string_equal(name, manifest[i].name);
		if (g.nodes > max_nodes) {
			zkp_porep_graph_release(&g);
			continue;
		}
		if (g.nodes > 64)
			assert_int_equal(zkp_porep_graph_precompute(&g, &err), 0);
		double t0 = now();
		uint8_t d[32];
		cache_digest(d, &g);
		for (int b = 0; b < 32; b++)
			sprintf(hex + 2 * b, "%02x", d[b]);
		print_message("parent cache %s (%llu nodes): %.2f s\n", p->name,
			      (unsigned long long)g.nodes, now() - t0);
		assert_string_equal(hex, manifest[i].digest);
		zkp_porep_graph_release(&g);
	}
}

/* ------------------------------------------------------------ parents */

static void check_graph_vectors(json_t *gv, int with_table)
{
	uint8_t porep_id[32], seed[32];
	hex32(porep_id, gv, "porep_id");
	const char *api = json_string_value(json_object_get(gv, "api"));
	zkp_porep_api a = strcmp(api, "V1_0") == 0   ? ZKP_POREP_V1_0
			  : strcmp(api, "V1_1") == 0 ? ZKP_POREP_V1_1
						     : ZKP_POREP_V1_2;
	const zkp_porep_proof *p;
	assert_int_equal(zkp_porep_proof_from_id(&p, jint(gv, "proof_id"), NULL), 0);
	assert_int_equal(p->api, a);
	assert_int_equal(p->nodes, jint(gv, "nodes"));

	zkp_porep_graph g;
	zkp_error err = { 0 };
	assert_int_equal(zkp_porep_graph_init_proof(&g, p, &err), 0);
	memset(seed, 0, 32);
	const char *sh = json_string_value(json_object_get(gv, "drg_seed"));
	assert_int_equal(tu_hex_to_bytes(seed, 28, sh), 28);
	assert_memory_equal(g.drg_seed, seed, 28);
	json_t *keys = json_object_get(gv, "feistel_keys");
	for (int k = 0; k < 4; k++)
		assert_int_equal(g.feistel_keys[k],
				 strtoull(json_string_value(json_array_get(keys, k)), NULL, 16));
	assert_int_equal(g.half_bits, jint(gv, "feistel_half_bits"));
	if (with_table)
		assert_int_equal(zkp_porep_graph_precompute(&g, &err), 0);

	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(gv, "parents"), i, e) {
		uint64_t node = jint(e, "node");
		uint32_t drg[6], exp[8], all[14];
		assert_int_equal(zkp_porep_drg_parents(&g, node, drg, &err), 0);
		assert_int_equal(zkp_porep_exp_parents(&g, node, exp, &err), 0);
		zkp_porep_graph_parents_fn(&g, node, all);
		assert_memory_equal(all, drg, sizeof(drg));
		assert_memory_equal(all + 6, exp, sizeof(exp));
		for (int k = 0; k < 6; k++) {
			json_int_t want = json_integer_value(json_array_get(json_object_get(e, "drg"), k));
			if (drg[k] != (uint64_t)want)
				fail_msg("%s node %llu: drg[%d] = %u, want %lld", p->name,
					 (unsigned long long)node, k, drg[k], (long long)want);
		}
		for (int k = 0; k < 8; k++) {
			json_int_t want = json_integer_value(json_array_get(json_object_get(e, "exp"), k));
			if (exp[k] != (uint64_t)want)
				fail_msg("%s node %llu: exp[%d] = %u, want %lld (table %d)", p->name,
					 (unsigned long long)node, k, exp[k], (long long)want,
					 with_table);
		}
	}
	zkp_porep_graph_release(&g);
}

static void test_parent_vectors(void **state)
{
	(void)state;
	size_t i;
	json_t *gv;
	json_array_foreach(json_object_get(vectors(), "graphs"), i, gv) {
		check_graph_vectors(gv, 0);
		check_graph_vectors(gv, 1);
	}
}

static void test_parent_properties(void **state)
{
	(void)state;
	static const uint64_t proof_ids[] = { 0, 5, 1, 6, 3, 8, 4, 9, 13, 18 };
	for (size_t t = 0; t < sizeof(proof_ids) / sizeof(proof_ids[0]); t++) {
		const zkp_porep_proof *p;
		zkp_porep_graph g;
		zkp_error err = { 0 };
		assert_int_equal(zkp_porep_proof_from_id(&p, proof_ids[t], &err), 0);
		assert_int_equal(zkp_porep_graph_init_proof(&g, p, &err), 0);
		uint32_t drg[6], exp[8];
		assert_int_equal(zkp_porep_drg_parents(&g, 0, drg, &err), 0);
		for (int k = 0; k < 6; k++)
			assert_int_equal(drg[k], 0);
		assert_int_equal(zkp_porep_drg_parents(&g, 1, drg, &err), 0);
		for (int k = 0; k < 6; k++)
			assert_int_equal(drg[k], 0);
		for (int s = 0; s < 300; s++) {
			uint64_t v = s < 20 ? (uint64_t)s + 2 : 2 + tu_rand64() % (g.nodes - 2);
			if (s == 20)
				v = g.nodes - 1;
			assert_int_equal(zkp_porep_drg_parents(&g, v, drg, &err), 0);
			assert_int_equal(drg[p->api == ZKP_POREP_V1_0 ? 5 : 0], v - 1);
			for (int k = 0; k < 6; k++)
				if (drg[k] >= v)
					fail_msg("%s node %llu: DRG parent %u", p->name,
						 (unsigned long long)v, drg[k]);
			assert_int_equal(zkp_porep_exp_parents(&g, v, exp, &err), 0);
			for (int k = 0; k < 8; k++)
				assert_true(exp[k] < g.nodes);
		}
		/* V1_0 truncates the permuted index to 32 bits: from 32 GiB
		 * up its expander parents stay below 2^29. */
		if (p->api == ZKP_POREP_V1_0 && g.nodes >= (1ULL << 30))
			for (uint64_t v = 0; v < 200; v++) {
				assert_int_equal(zkp_porep_exp_parents(&g, v, exp, &err), 0);
				for (int k = 0; k < 8; k++)
					assert_true(exp[k] < (1U << 29));
			}

		assert_int_equal(zkp_porep_drg_parents(&g, g.nodes, drg, &err), ZKP_ERR_RANGE);
		assert_non_null(strstr(err.msg, "node"));
		assert_int_equal(zkp_porep_exp_parents(&g, g.nodes + 5, exp, &err), ZKP_ERR_RANGE);
		uint32_t all[28];
		assert_int_equal(zkp_porep_parents_range(&g, g.nodes - 1, 2, all, &err), ZKP_ERR_RANGE);
		assert_int_equal(zkp_porep_parents_range(&g, g.nodes - 2, 2, all, &err), 0);
		zkp_porep_graph_release(&g);
	}

	/* The table and the hash agree (8 MiB V1_1, random nodes). */
	const zkp_porep_proof *p;
	zkp_porep_graph a, b;
	assert_int_equal(zkp_porep_proof_from_id(&p, 6, NULL), 0);
	assert_int_equal(zkp_porep_graph_init_proof(&a, p, NULL), 0);
	assert_int_equal(zkp_porep_graph_init_proof(&b, p, NULL), 0);
	assert_int_equal(zkp_porep_graph_precompute(&b, NULL), 0);
	assert_int_equal(zkp_porep_graph_precompute(&b, NULL), 0); /* idempotent */
	for (int s = 0; s < 2000; s++) {
		uint64_t v = tu_rand64() % a.nodes;
		uint32_t x[8], y[8];
		assert_int_equal(zkp_porep_exp_parents(&a, v, x, NULL), 0);
		assert_int_equal(zkp_porep_exp_parents(&b, v, y, NULL), 0);
		assert_memory_equal(x, y, sizeof(x));
	}
	zkp_porep_graph_release(&a);
	zkp_porep_graph_release(&b);
	zkp_porep_graph_release(&b);

	/* Graph limits. */
	uint8_t id[32] = { 0 };
	zkp_error err = { 0 };
	assert_int_equal(zkp_porep_graph_init(&a, 1, id, ZKP_POREP_V1_1, &err), ZKP_ERR_RANGE);
	assert_int_equal(zkp_porep_graph_init(&a, 1ULL << 32, id, ZKP_POREP_V1_1, &err),
			 ZKP_ERR_RANGE);
	assert_int_equal(zkp_porep_graph_init(&a, 64, id, (zkp_porep_api)7, &err), ZKP_ERR_INVAL);
	zkp_porep_graph_release(&a); /* zeroed by the failed init */
	assert_int_equal(zkp_porep_graph_init(&a, 24, id, ZKP_POREP_V1_0, &err), 0);
}

/* drgraph.rs takes ceil(log2(x as f64)); zkpd the integer bit length of
 * x - 1. Both agree on every metagraph node 5 * node of a u32 node. */
static void test_bucket_count(void **state)
{
	(void)state;
	for (uint64_t x = 2; x < (1u << 20); x++)
		assert_int_equal((uint64_t)ceil(log2((double)x)), 64 - __builtin_clzll(x - 1));
	for (unsigned k = 3; k < 35; k++)
		for (int64_t d = -3; d <= 3; d++) {
			uint64_t x = (1ULL << k) + (uint64_t)d;
			assert_int_equal((uint64_t)ceil(log2((double)x)), 64 - __builtin_clzll(x - 1));
		}
	for (int s = 0; s < 100000; s++) {
		uint64_t x = 10 + tu_rand64() % (5ULL * UINT32_MAX - 10);
		assert_int_equal((uint64_t)ceil(log2((double)x)), 64 - __builtin_clzll(x - 1));
	}
}

static void test_feistel(void **state)
{
	(void)state;
	/* A bijection on [0, n), powers of four or not (feistel.rs tests use
	 * 5, 6, 8, 12, 17 as the awkward ones), with random keys. */
	static const uint64_t ns[] = { 4, 5, 6, 8, 12, 16, 17, 64, 100, 512, 1000, 4096, 5000 };
	static uint8_t seen[5000];
	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++)
		for (int r = 0; r < 3; r++) {
			uint64_t keys[3] = { tu_rand64(), tu_rand64(), tu_rand64() };
			if (r == 0) {
				keys[0] = 1;
				keys[1] = 2;
				keys[2] = 3;
			}
			memset(seen, 0, sizeof(seen));
			for (uint64_t i = 0; i < ns[t]; i++) {
				uint64_t v = zkp_porep_feistel_permute(ns[t], i, keys);
				assert_true(v < ns[t]);
				assert_int_equal(seen[v], 0);
				seen[v] = 1;
			}
		}
	uint64_t keys[3] = { 1, 2, 3 };
	assert_int_equal(zkp_porep_feistel_permute(10, 12, keys), 12);
}

/* ------------------------------------------------------------ challenges */

static zkp_porep_mode mode_of(json_t *o)
{
	const char *m = json_string_value(json_object_get(o, "mode"));
	return strcmp(m, "interactive") == 0 ? ZKP_POREP_INTERACTIVE
	       : strcmp(m, "synthetic") == 0 ? ZKP_POREP_SYNTHETIC
					     : ZKP_POREP_NON_INTERACTIVE;
}

static void test_challenge_vectors(void **state)
{
	(void)state;
	size_t i, n = 0;
	json_t *c;
	json_array_foreach(json_object_get(vectors(), "challenges"), i, c) {
		uint8_t rid[32], seed[32], comm_r[32];
		hex32(rid, c, "replica_id");
		hex32(seed, c, "seed");
		hex32(comm_r, c, "comm_r");
		zkp_porep_mode m = mode_of(c);
		unsigned per = (unsigned)jint(c, "per_partition"), k = (unsigned)jint(c, "k");
		uint64_t nodes = jint(c, "nodes"), out[64];
		zkp_error err = { 0 };
		/* Each mode reads only its inputs. */
		int rc = zkp_porep_challenges(out, m, nodes, per, k, rid,
					      m == ZKP_POREP_NON_INTERACTIVE ? NULL : seed,
					      m == ZKP_POREP_INTERACTIVE ? NULL : comm_r, &err);
		assert_int_equal(rc, 0);
		json_t *want = json_object_get(c, "challenges");
		assert_int_equal(json_array_size(want), per);
		for (unsigned j = 0; j < per; j++) {
			if (out[j] != (uint64_t)json_integer_value(json_array_get(want, j)))
				fail_msg("%s challenges, %llu nodes, partition %u, #%u: %llu, want %lld",
					 zkp_porep_mode_name(m), (unsigned long long)nodes, k, j,
					 (unsigned long long)out[j],
					 (long long)json_integer_value(json_array_get(want, j)));
			assert_true(out[j] >= 1 && out[j] < nodes);
		}
		n++;
	}
	assert_true(n >= 20);

	json_array_foreach(json_object_get(vectors(), "synthetic_sets"), i, c) {
		uint8_t rid[32], comm_r[32], key[32];
		hex32(rid, c, "replica_id");
		hex32(comm_r, c, "comm_r");
		hex32(key, c, "key");
		zkp_porep_synth s;
		assert_int_equal(zkp_porep_synth_init(&s, jint(c, "nodes"), 0, rid, comm_r, NULL), 0);
		assert_int_equal(s.num_synth, jint(c, "num_synth"));
		assert_memory_equal(s.key, key, 32);
		size_t j;
		json_t *at;
		json_array_foreach(json_object_get(c, "at"), j, at) {
			uint64_t idx = (uint64_t)json_integer_value(json_array_get(at, 0));
			assert_int_equal(zkp_porep_synth_challenge(&s, idx),
					 json_integer_value(json_array_get(at, 1)));
		}
		assert_int_equal(zkp_porep_synth_challenge(&s, s.num_synth), 0);
	}
}

/* rust-fil-proofs challenges.rs test_synth_challenges_against_hardcoded. */
static void test_synth_hardcoded(void **state)
{
	(void)state;
	static const uint64_t synth[21] = { 178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856,
					    801, 176, 692, 429, 691, 290, 204, 986, 210, 973 };
	static const uint64_t porep[10] = { 176, 781, 801, 986, 290, 211, 692, 856, 986, 332 };
	uint8_t rid[32] = { 55 }, comm_r[32] = { 101 }, rand[32];
	memset(rand, 1, 32);
	zkp_porep_synth s;
	assert_int_equal(zkp_porep_synth_init(&s, 1 << 10, 21, rid, comm_r, NULL), 0);
	for (int i = 20; i >= 0; i--)
		assert_int_equal(zkp_porep_synth_challenge(&s, (uint64_t)i), synth[i]);
	uint64_t idx[10];
	assert_int_equal(zkp_porep_synth_indexes(idx, &s, rand, 10, 0, NULL), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(zkp_porep_synth_challenge(&s, idx[i]), porep[i]);
	/* Partition k of 2 challenges selects indexes 2k and 2k + 1. */
	for (unsigned k = 0; k < 5; k++) {
		uint64_t two[2];
		assert_int_equal(zkp_porep_synth_indexes(two, &s, rand, 2, k, NULL), 0);
		assert_int_equal(two[0], idx[2 * k]);
		assert_int_equal(two[1], idx[2 * k + 1]);
	}
}

static void test_challenge_properties(void **state)
{
	(void)state;
	uint8_t rid[32], seed[32], comm_r[32];
	tu_rand_bytes(rid, 32);
	tu_rand_bytes(seed, 32);
	tu_rand_bytes(comm_r, 32);
	rid[31] &= 0x3f;
	comm_r[31] &= 0x3f;
	static const zkp_porep_mode modes[] = { ZKP_POREP_INTERACTIVE, ZKP_POREP_SYNTHETIC,
						ZKP_POREP_NON_INTERACTIVE };
	for (int m = 0; m < 3; m++) {
		/* challenge_partition_equivalence: 5 partitions of 40 are one of 200. */
		uint64_t one[200], many[200];
		assert_int_equal(zkp_porep_challenges(one, modes[m], 1ULL << 30, 200, 0, rid, seed,
						      comm_r, NULL),
				 0);
		for (unsigned k = 0; k < 5; k++)
			assert_int_equal(zkp_porep_challenges(many + 40 * k, modes[m], 1ULL << 30, 40,
							      k, rid, seed, comm_r, NULL),
					 0);
		assert_memory_equal(one, many, sizeof(one));
		/* Node 0 is never challenged; 2 nodes leave only node 1. */
		assert_int_equal(zkp_porep_challenges(one, modes[m], 2, 18, 3, rid, seed, comm_r,
						      NULL),
				 0);
		for (int i = 0; i < 18; i++)
			assert_int_equal(one[i], 1);
	}

	zkp_error err = { 0 };
	uint64_t out[18];
	assert_int_equal(zkp_porep_challenges(out, ZKP_POREP_INTERACTIVE, 64, 2, 256, rid, seed,
					      NULL, &err),
			 ZKP_ERR_RANGE);
	assert_non_null(strstr(err.msg, "256"));
	assert_int_equal(zkp_porep_challenges(out, ZKP_POREP_INTERACTIVE, 64, 0, 0, rid, seed,
					      NULL, &err),
			 ZKP_ERR_RANGE);
	assert_int_equal(zkp_porep_challenges(out, ZKP_POREP_INTERACTIVE, 1, 2, 0, rid, seed,
					      NULL, &err),
			 ZKP_ERR_RANGE);
	assert_int_equal(zkp_porep_challenges(out, ZKP_POREP_INTERACTIVE, 64, 2, 0, rid, NULL,
					      comm_r, &err),
			 ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "seed"));
	assert_int_equal(zkp_porep_challenges(out, ZKP_POREP_NON_INTERACTIVE, 64, 2, 0, rid, seed,
					      NULL, &err),
			 ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "comm_r"));
	assert_int_equal(zkp_porep_challenges(out, ZKP_POREP_SYNTHETIC, 64, 2, 0, rid, seed, NULL,
					      &err),
			 ZKP_ERR_INVAL);
	assert_int_equal(zkp_porep_challenges(out, (zkp_porep_mode)9, 64, 2, 0, rid, seed, comm_r,
					      &err),
			 ZKP_ERR_INVAL);
	zkp_porep_synth s;
	assert_int_equal(zkp_porep_synth_init(&s, 64, (1ULL << 27) + 1, rid, comm_r, &err),
			 ZKP_ERR_RANGE);
}

static void test_replica_id_vectors(void **state)
{
	(void)state;
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(vectors(), "replica_ids"), i, r) {
		uint8_t prover[32], ticket[32], comm_d[32], porep_id[32], want[32], out[32];
		hex32(prover, r, "prover_id");
		hex32(ticket, r, "ticket");
		hex32(comm_d, r, "comm_d");
		hex32(porep_id, r, "porep_id");
		hex32(want, r, "replica_id");
		assert_int_equal(zkp_porep_replica_id(out, prover, hex64(r, "sector_id"), ticket,
						      comm_d, porep_id, NULL),
				 0);
		assert_memory_equal(out, want, 32);
		assert_int_equal(out[31] & 0xc0, 0);
	}
	assert_true(i >= 5);
}

/* The development sealer's use: every parent of an 8 MiB sector. */
static void test_sector_speed(void **state)
{
	(void)state;
	const zkp_porep_proof *p;
	zkp_porep_graph g;
	assert_int_equal(zkp_porep_proof_from_id(&p, 6, NULL), 0);
	assert_int_equal(zkp_porep_graph_init_proof(&g, p, NULL), 0);
	double t0 = now();
	assert_int_equal(zkp_porep_graph_precompute(&g, NULL), 0);
	uint32_t *all = malloc(g.nodes * ZKP_POREP_PARENTS * sizeof(*all));
	assert_non_null(all);
	assert_int_equal(zkp_porep_parents_range(&g, 0, g.nodes, all, NULL), 0);
	double t = now() - t0;
	print_message("8 MiB graph: all %llu x 14 parents in %.2f s\n",
		      (unsigned long long)g.nodes, t);
	for (uint64_t v = 2; v < g.nodes; v++)
		assert_int_equal(all[v * ZKP_POREP_PARENTS], v - 1);
	free(all);
	zkp_porep_graph_release(&g);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chacha),
		cmocka_unit_test(test_blake2b),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_parent_cache),
		cmocka_unit_test(test_parent_vectors),
		cmocka_unit_test(test_parent_properties),
		cmocka_unit_test(test_bucket_count),
		cmocka_unit_test(test_feistel),
		cmocka_unit_test(test_challenge_vectors),
		cmocka_unit_test(test_synth_hardcoded),
		cmocka_unit_test(test_challenge_properties),
		cmocka_unit_test(test_replica_id_vectors),
		cmocka_unit_test(test_sector_speed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
