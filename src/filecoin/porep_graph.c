/*
 * Filecoin's registered seal proofs and the StackedDRG parent graph
 * (include/zkpd/porep_graph.h), written from rust-fil-proofs
 * storage-proofs-core/src/drgraph.rs, crypto/feistel.rs and
 * storage-proofs-porep/src/stacked/vanilla/graph.rs, with the ChaCha block
 * (RFC 8439 section 2.3) and BLAKE2b (RFC 7693) they rely on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "le_bytes.h"
#include "zkpd/porep_graph.h"

/* ---------------------------------------------------------------- registry */

/* filecoin-proofs-api registry.rs: ids in enum order; constants.rs: layers,
 * minimum challenges (interactive 2 / 176, NI 26 / 2253) and partitions
 * (POREP_PARTITIONS 1 / 10, get_porep_non_interactive_partitions 13 / 126);
 * parameters.rs select_challenges: per partition = ceil(min / partitions). */
#define KIB2 (2ULL << 10)
#define MIB8 (8ULL << 20)
#define MIB512 (512ULL << 20)
#define GIB32 (32ULL << 30)
#define GIB64 (64ULL << 30)
#define ROW(name, id, bytes, api, mode, layers, minc, parts)                                  \
	{ name, id, bytes, (bytes) / 32, api, mode, layers, minc, parts,                       \
	  ((minc) + (parts) - 1) / (parts) }
#define FAMILY(suffix, base, api, mode, small_min, big_min, small_parts, big_parts)           \
	ROW("StackedDrg2KiB" suffix, (base) + 0, KIB2, api, mode, 2, small_min, small_parts),  \
	ROW("StackedDrg8MiB" suffix, (base) + 1, MIB8, api, mode, 2, small_min, small_parts),  \
	ROW("StackedDrg512MiB" suffix, (base) + 2, MIB512, api, mode, 2, small_min,            \
	    small_parts),                                                                      \
	ROW("StackedDrg32GiB" suffix, (base) + 3, GIB32, api, mode, 11, big_min, big_parts),   \
	ROW("StackedDrg64GiB" suffix, (base) + 4, GIB64, api, mode, 11, big_min, big_parts)

static const zkp_porep_proof proofs[] = {
	FAMILY("V1", 0, ZKP_POREP_V1_0, ZKP_POREP_INTERACTIVE, 2, 176, 1, 10),
	FAMILY("V1_1", 5, ZKP_POREP_V1_1, ZKP_POREP_INTERACTIVE, 2, 176, 1, 10),
	FAMILY("V1_1_Feat_SyntheticPoRep", 10, ZKP_POREP_V1_2, ZKP_POREP_SYNTHETIC, 2, 176, 1,
	       10),
	FAMILY("V1_2_Feat_NonInteractivePoRep", 15, ZKP_POREP_V1_2, ZKP_POREP_NON_INTERACTIVE,
	       26, 2253, 13, 126),
};
#define NPROOFS (sizeof(proofs) / sizeof(proofs[0]))

const zkp_porep_proof *zkp_porep_proofs(size_t *count)
{
	*count = NPROOFS;
	return proofs;
}

int zkp_porep_proof_lookup(const zkp_porep_proof **ret, const char *name, zkp_error *err)
{
	for (size_t i = 0; i < NPROOFS; i++)
		if (name && strcmp(proofs[i].name, name) == 0) {
			*ret = &proofs[i];
			return 0;
		}
	return zkp_error_set(err, ZKP_ERR_NOT_FOUND,
			     "registered seal proof \"%s\": not one of StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}{V1,V1_1,V1_1_Feat_SyntheticPoRep,V1_2_Feat_NonInteractivePoRep}",
			     name ? name : "(null)");
}

int zkp_porep_proof_from_id(const zkp_porep_proof **ret, uint64_t id, zkp_error *err)
{
	if (id >= NPROOFS)
		return zkp_error_set(err, ZKP_ERR_NOT_FOUND,
				     "registered seal proof id %llu: known ids are 0 to %zu",
				     (unsigned long long)id, NPROOFS - 1);
	*ret = &proofs[id];
	return 0;
}

void zkp_porep_id(uint8_t out[32], const zkp_porep_proof *p)
{
	memset(out, 0, 32);
	zkp_put_le(out, p->id, 8);
	zkp_put_le(out + 8, 0, 8); /* RegisteredSealProof::nonce is 0 for every proof */
}

const char *zkp_porep_api_name(zkp_porep_api api)
{
	switch (api) {
	case ZKP_POREP_V1_0: return "V1_0";
	case ZKP_POREP_V1_1: return "V1_1";
	case ZKP_POREP_V1_2: return "V1_2";
	}
	return "?";
}

const char *zkp_porep_mode_name(zkp_porep_mode mode)
{
	switch (mode) {
	case ZKP_POREP_INTERACTIVE: return "interactive";
	case ZKP_POREP_SYNTHETIC: return "synthetic";
	case ZKP_POREP_NON_INTERACTIVE: return "non-interactive";
	}
	return "?";
}

/* ---------------------------------------------------------------- ChaCha */

static inline uint32_t rotl32(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

#define QR(a, b, c, d)                                                                         \
	do {                                                                                   \
		a += b; d = rotl32(d ^ a, 16);                                                 \
		c += d; b = rotl32(b ^ c, 12);                                                 \
		a += b; d = rotl32(d ^ a, 8);                                                  \
		c += d; b = rotl32(b ^ c, 7);                                                  \
	} while (0)

/* RFC 8439 2.3: rounds/2 double rounds (columns, then diagonals), then the
 * input added back. The words, not bytes, for the RNG's direct use. */
static void chacha_words(uint32_t out[16], const uint32_t in[16], unsigned rounds)
{
	uint32_t x[16];
	memcpy(x, in, sizeof(x));
	for (unsigned r = 0; r < rounds; r += 2) {
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	for (int i = 0; i < 16; i++)
		out[i] = x[i] + in[i];
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void chacha_init(uint32_t s[16], const uint8_t key[32], const uint32_t w12_15[4])
{
	s[0] = 0x61707865; /* "expand 32-byte k" */
	s[1] = 0x3320646e;
	s[2] = 0x79622d32;
	s[3] = 0x6b206574;
	for (int i = 0; i < 8; i++)
		s[4 + i] = get_le32(key + 4 * i);
	memcpy(s + 12, w12_15, 4 * sizeof(uint32_t));
}

void zkp_porep_chacha_block(uint8_t out[64], const uint8_t key[32], const uint32_t w12_15[4],
			    unsigned rounds)
{
	uint32_t s[16], o[16];
	chacha_init(s, key, w12_15);
	chacha_words(o, s, rounds);
	for (int i = 0; i < 16; i++)
		for (int b = 0; b < 4; b++)
			out[4 * i + b] = (uint8_t)(o[i] >> (8 * b));
}

/* ---------------------------------------------------------------- BLAKE2b */

static const uint64_t b2b_iv[8] = {
	0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
	0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
	0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t b2b_sigma[12][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
};

static inline uint64_t rotr64(uint64_t x, unsigned n)
{
	return (x >> n) | (x << (64 - n));
}

/* RFC 7693 3.2, F: 12 rounds over one 128-byte block m (16 LE words), t the
 * byte count so far (< 2^64 here), last on the final block. */
static void b2b_compress(uint64_t h[8], const uint64_t m[16], uint64_t t, int last)
{
	uint64_t v[16];
	for (int i = 0; i < 8; i++) {
		v[i] = h[i];
		v[i + 8] = b2b_iv[i];
	}
	v[12] ^= t;
	if (last)
		v[14] = ~v[14];
#define G(a, b, c, d, x, y)                                                                    \
	do {                                                                                   \
		v[a] += v[b] + (x); v[d] = rotr64(v[d] ^ v[a], 32);                            \
		v[c] += v[d];       v[b] = rotr64(v[b] ^ v[c], 24);                            \
		v[a] += v[b] + (y); v[d] = rotr64(v[d] ^ v[a], 16);                            \
		v[c] += v[d];       v[b] = rotr64(v[b] ^ v[c], 63);                            \
	} while (0)
	for (int r = 0; r < 12; r++) {
		const uint8_t *s = b2b_sigma[r];
		G(0, 4, 8, 12, m[s[0]], m[s[1]]);
		G(1, 5, 9, 13, m[s[2]], m[s[3]]);
		G(2, 6, 10, 14, m[s[4]], m[s[5]]);
		G(3, 7, 11, 15, m[s[6]], m[s[7]]);
		G(0, 5, 10, 15, m[s[8]], m[s[9]]);
		G(1, 6, 11, 12, m[s[10]], m[s[11]]);
		G(2, 7, 8, 13, m[s[12]], m[s[13]]);
		G(3, 4, 9, 14, m[s[14]], m[s[15]]);
	}
#undef G
	for (int i = 0; i < 8; i++)
		h[i] ^= v[i] ^ v[i + 8];
}

static void b2b_load(uint64_t m[16], const uint8_t *p, size_t n)
{
	uint8_t blk[128] = { 0 };
	memcpy(blk, p, n);
	for (int i = 0; i < 16; i++)
		m[i] = zkp_get_le(blk + 8 * i, 8);
}

void zkp_porep_blake2b(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen,
		       const void *data, size_t len)
{
	const uint8_t *in = data;
	uint64_t h[8], m[16], t = 0;
	memcpy(h, b2b_iv, sizeof(h));
	/* Parameter block: digest length, key length, fanout 1, depth 1. */
	h[0] ^= 0x01010000ULL ^ ((uint64_t)keylen << 8) ^ outlen;
	if (keylen) {
		/* The key, zero-padded to a block, is the first block. */
		b2b_load(m, key, keylen);
		t = 128;
		b2b_compress(h, m, t, len == 0);
	}
	while (len > 128) {
		b2b_load(m, in, 128);
		t += 128;
		b2b_compress(h, m, t, 0);
		in += 128;
		len -= 128;
	}
	if (len || !keylen) {
		b2b_load(m, in, len);
		t += len;
		b2b_compress(h, m, t, 1);
	}
	uint8_t full[64];
	for (int i = 0; i < 8; i++)
		zkp_put_le(full + 8 * i, h[i], 8);
	memcpy(out, full, outlen);
}

/* ---------------------------------------------------------------- Feistel */

/* feistel.rs feistel(): BLAKE2b-512 (unkeyed) of right || key, both u64
 * big-endian (FEISTEL_BYTES is 16, so the 8-byte branch is dead code), the
 * digest's first 8 bytes read big-endian. One compression of a single
 * 16-byte block. BLAKE2b reads message words little-endian, hence the
 * byte swaps. */
static uint64_t feistel_round(uint64_t right, uint64_t key)
{
	uint64_t h[8], m[16] = { 0 };
	memcpy(h, b2b_iv, sizeof(h));
	h[0] ^= 0x01010000ULL ^ 64;
	m[0] = __builtin_bswap64(right);
	m[1] = __builtin_bswap64(key);
	b2b_compress(h, m, 16, 1);
	return __builtin_bswap64(h[0]);
}

/* feistel.rs precompute(): the least log4 >= 1 with 4^log4 >= n. */
static unsigned feistel_half_bits(uint64_t n)
{
	unsigned log4 = 1;
	uint64_t p = 4;
	while (p < n) {
		p *= 4;
		log4++;
	}
	return log4;
}

/* feistel.rs encode(): three rounds (L, R) <- (R, L ^ F(R, key_r)). */
static uint64_t feistel_encode(uint64_t x, unsigned hb, const uint64_t keys[3],
			       const uint32_t *table)
{
	uint64_t mask = (1ULL << hb) - 1;
	uint64_t left = (x >> hb) & mask, right = x & mask;
	for (int r = 0; r < 3; r++) {
		uint64_t f = table ? table[((size_t)r << hb) + right]
				   : feistel_round(right, keys[r]) & mask;
		uint64_t nl = right;
		right = left ^ f;
		left = nl;
	}
	return left << hb | right;
}

/* feistel.rs permute(): cycle-walk until the value is in range; it ends
 * because index < n lies on its own cycle. */
static uint64_t feistel_permute(uint64_t n, uint64_t index, unsigned hb, const uint64_t keys[3],
				const uint32_t *table)
{
	uint64_t u = feistel_encode(index, hb, keys, table);
	while (u >= n)
		u = feistel_encode(u, hb, keys, table);
	return u;
}

uint64_t zkp_porep_feistel_permute(uint64_t num_elements, uint64_t index,
				   const uint64_t keys[3])
{
	if (index >= num_elements || num_elements > (1ULL << 62))
		return index;
	return feistel_permute(num_elements, index, feistel_half_bits(num_elements), keys, NULL);
}

/* ---------------------------------------------------------------- graph */

static int sha256_tagged(uint8_t out[32], const char *tag, const uint8_t porep_id[32],
			 zkp_error *err)
{
	uint8_t buf[64];
	size_t n = strlen(tag);
	unsigned len = 0;
	memcpy(buf, tag, n);
	memcpy(buf + n, porep_id, 32);
	if (!EVP_Digest(buf, n + 32, out, &len, EVP_sha256(), NULL) || len != 32)
		return zkp_error_set(err, ZKP_ERR_UNSUPPORTED, "porep graph: OpenSSL SHA-256 failed");
	return 0;
}

int zkp_porep_graph_init(zkp_porep_graph *g, uint64_t nodes, const uint8_t porep_id[32],
			 zkp_porep_api api, zkp_error *err)
{
	memset(g, 0, sizeof(*g));
	if (nodes < 2 || nodes > UINT32_MAX)
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "porep graph: %llu nodes; a graph has 2 to 2^32-1 nodes",
				     (unsigned long long)nodes);
	if (api != ZKP_POREP_V1_0 && api != ZKP_POREP_V1_1 && api != ZKP_POREP_V1_2)
		return zkp_error_set(err, ZKP_ERR_INVAL, "porep graph: unknown api version %d",
				     (int)api);
	uint8_t d[32];
	int rc = sha256_tagged(d, "Filecoin_DRSample", porep_id, err); /* DRSAMPLE_DST */
	if (rc)
		return rc;
	memcpy(g->drg_seed, d, 28);
	if ((rc = sha256_tagged(d, "Filecoin_Feistel", porep_id, err))) /* FEISTEL_DST */
		return rc;
	for (int i = 0; i < 4; i++)
		g->feistel_keys[i] = zkp_get_le(d + 8 * i, 8);
	g->nodes = nodes;
	g->api = api;
	g->half_bits = feistel_half_bits(8 * nodes); /* EXP_DEGREE * nodes */
	return 0;
}

int zkp_porep_graph_init_proof(zkp_porep_graph *g, const zkp_porep_proof *p, zkp_error *err)
{
	uint8_t id[32];
	zkp_porep_id(id, p);
	return zkp_porep_graph_init(g, p->nodes, id, p->api, err);
}

int zkp_porep_graph_precompute(zkp_porep_graph *g, zkp_error *err)
{
	if (g->round_table)
		return 0;
	size_t n = (size_t)1 << g->half_bits;
	uint32_t *t = malloc(3 * n * sizeof(*t));
	if (!t)
		return zkp_error_set(err, ZKP_ERR_NOMEM,
				     "porep graph: no memory for the %zu-entry Feistel table", 3 * n);
	for (int r = 0; r < 3; r++)
		for (size_t x = 0; x < n; x++)
			t[r * n + x] = (uint32_t)(feistel_round(x, g->feistel_keys[r]) & (n - 1));
	g->round_table = t;
	return 0;
}

void zkp_porep_graph_release(zkp_porep_graph *g)
{
	free(g->round_table);
	g->round_table = NULL;
}

static int node_range(const zkp_porep_graph *g, uint64_t node, zkp_error *err)
{
	return zkp_error_set(err, ZKP_ERR_RANGE, "porep graph: node %llu of a %llu-node graph",
			     (unsigned long long)node, (unsigned long long)g->nodes);
}

/* ceil(log2(x)) for x >= 2. drgraph.rs computes (x as f64).log2().ceil();
 * x < 5 * 2^32 is exact as a double and log2 of a non-power of two lies at
 * least 1 / (x ln 2) > 2^-36 above the integer below it, far beyond
 * rounding, so the integer form agrees (the test sweeps both). */
static uint64_t ceil_log2(uint64_t x)
{
	return 64 - (uint64_t)__builtin_clzll(x - 1);
}

static void drg(const zkp_porep_graph *g, uint32_t node, uint32_t out[6])
{
	if (node < 2) {
		memset(out, 0, 6 * sizeof(*out));
		return;
	}
	/* ChaCha8Rng::from_seed(drg_seed || node LE): key = the seed, block
	 * counter (words 12-13) and stream (14-15) 0. gen::<u64>() is
	 * BlockRng::next_u64: words 2i (low) and 2i+1 (high) of the keystream,
	 * whose 64-word buffer never splits a pair when all draws are u64. Ten
	 * draws use 20 words: blocks 0 and 1. */
	uint8_t seed[32];
	memcpy(seed, g->drg_seed, 28);
	for (int i = 0; i < 4; i++)
		seed[28 + i] = (uint8_t)(node >> (8 * i));
	uint32_t s[16], w[32];
	const uint32_t ctr0[4] = { 0, 0, 0, 0 };
	chacha_init(s, seed, ctr0);
	chacha_words(w, s, 8);
	s[12] = 1;
	chacha_words(w + 16, s, 8);

	const uint64_t m_prime = 5; /* BASE_DEGREE - 1 */
	uint64_t meta = (uint64_t)node * m_prime, n_buckets = ceil_log2(meta);
	unsigned first = g->api == ZKP_POREP_V1_0 ? 0 : 1, pred = g->api == ZKP_POREP_V1_0 ? 5 : 0;
	const uint32_t *r = w;
	for (unsigned k = 0; k < m_prime; k++) {
		uint64_t a = r[0] | (uint64_t)r[1] << 32, b = r[2] | (uint64_t)r[3] << 32;
		r += 4;
		uint64_t bucket = a % n_buckets + 1;
		uint64_t largest = 1ULL << bucket;
		if (largest > meta)
			largest = meta;
		uint64_t smallest = largest >> 1;
		if (smallest < 2)
			smallest = 2;
		uint64_t dist = smallest + b % (largest - smallest + 1);
		uint32_t p = (uint32_t)((meta - dist) / m_prime);
		out[first + k] = p == node ? node - 1 : p;
	}
	out[pred] = node - 1;
}

static void expander(const zkp_porep_graph *g, uint64_t node, uint32_t out[8])
{
	uint64_t n = 8 * g->nodes;
	for (unsigned i = 0; i < 8; i++) {
		uint64_t t = feistel_permute(n, 8 * node + i, g->half_bits, g->feistel_keys,
					     g->round_table);
		/* graph.rs correspondent(): V1_0 casts to u32 before dividing,
		 * which loses the high bits from 32 GiB (8 * 2^30 = 2^33) up. */
		out[i] = g->api == ZKP_POREP_V1_0 ? (uint32_t)t / 8 : (uint32_t)(t / 8);
	}
}

int zkp_porep_drg_parents(const zkp_porep_graph *g, uint64_t node,
			  uint32_t out[ZKP_POREP_DRG_PARENTS], zkp_error *err)
{
	if (node >= g->nodes)
		return node_range(g, node, err);
	drg(g, (uint32_t)node, out);
	return 0;
}

int zkp_porep_exp_parents(const zkp_porep_graph *g, uint64_t node,
			  uint32_t out[ZKP_POREP_EXP_PARENTS], zkp_error *err)
{
	if (node >= g->nodes)
		return node_range(g, node, err);
	expander(g, node, out);
	return 0;
}

int zkp_porep_parents_range(const zkp_porep_graph *g, uint64_t first, uint64_t count,
			    uint32_t *out, zkp_error *err)
{
	if (first > g->nodes || count > g->nodes - first)
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "porep graph: nodes %llu..%llu of a %llu-node graph",
				     (unsigned long long)first,
				     (unsigned long long)(first + count),
				     (unsigned long long)g->nodes);
	for (uint64_t v = first; v < first + count; v++, out += ZKP_POREP_PARENTS) {
		drg(g, (uint32_t)v, out);
		expander(g, v, out + ZKP_POREP_DRG_PARENTS);
	}
	return 0;
}

void zkp_porep_graph_parents_fn(void *ctx, uint64_t node, uint32_t out[ZKP_POREP_PARENTS])
{
	const zkp_porep_graph *g = ctx;
	if (node >= g->nodes) {
		fprintf(stderr, "zkp_porep_graph_parents_fn: node %llu of a %llu-node graph\n",
			(unsigned long long)node, (unsigned long long)g->nodes);
		abort();
	}
	drg(g, (uint32_t)node, out);
	expander(g, node, out + ZKP_POREP_DRG_PARENTS);
}
