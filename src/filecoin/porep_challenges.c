/*
 * PoRep challenge derivation and replica_id (include/zkpd/porep_graph.h),
 * written from rust-fil-proofs storage-proofs-porep/src/stacked/vanilla/
 * challenges.rs and params.rs (generate_replica_id).
 */
#include <string.h>

#include <openssl/evp.h>

#include "zkpd/porep_graph.h"

#define SYNTH_DEFAULT (1ULL << 18) /* DEFAULT_SYNTH_CHALLENGE_COUNT */

static const uint8_t synth_nonce[12] = "synth-porep"; /* CHACHA20_NONCE, NUL included */

/* challenges.rs bigint_to_challenge: X mod (nodes - 1) + 1 for the 256-bit
 * little-endian X. Horner over 32-bit digits from the top; the remainder
 * stays below nodes - 1 < 2^32, so r * 2^32 + digit fits in 64 bits. */
static uint64_t to_challenge(const uint8_t x[32], uint64_t nodes)
{
	uint64_t m = nodes - 1, r = 0;
	for (int i = 7; i >= 0; i--) {
		const uint8_t *p = x + 4 * i;
		uint64_t d = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
			     (uint64_t)p[3] << 24;
		r = (r << 32 | d) % m;
	}
	return r + 1;
}

/* The chacha20 crate's ChaCha20 (IETF, RFC 8439: 32-bit block counter in
 * word 12 starting at 0, the 96-bit nonce in words 13-15) seeked to byte
 * offset and applied to n zero bytes: the keystream [offset, offset + n).
 * Rust seeks with a u32 byte position, so offset + n stays below 2^32. */
static void chacha20_stream(uint8_t *out, const uint8_t key[32], uint64_t offset, size_t n)
{
	uint32_t w[4] = { (uint32_t)(offset / 64), 0, 0, 0 };
	for (int i = 0; i < 3; i++) {
		const uint8_t *p = synth_nonce + 4 * i;
		w[1 + i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			   (uint32_t)p[3] << 24;
	}
	size_t skip = offset % 64;
	uint8_t blk[64];
	while (n) {
		zkp_porep_chacha_block(blk, key, w, 20);
		size_t take = 64 - skip < n ? 64 - skip : n;
		memcpy(out, blk + skip, take);
		out += take;
		n -= take;
		skip = 0;
		w[0]++;
	}
}

static int nodes_ok(uint64_t nodes, zkp_error *err)
{
	if (nodes < 2 || nodes > UINT32_MAX)
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "porep challenges: %llu nodes; a sector has 2 to 2^32-1 nodes",
				     (unsigned long long)nodes);
	return 0;
}

int zkp_porep_synth_init(zkp_porep_synth *s, uint64_t nodes, uint64_t num_synth,
			 const uint8_t replica_id[32], const uint8_t comm_r[32], zkp_error *err)
{
	memset(s, 0, sizeof(*s));
	int rc = nodes_ok(nodes, err);
	if (rc)
		return rc;
	if (num_synth == 0)
		num_synth = nodes < SYNTH_DEFAULT ? nodes : SYNTH_DEFAULT;
	if (num_synth > (1ULL << 27))
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "synthetic porep: %llu synthetic challenges; at most 2^27 fit the u32 keystream offset",
				     (unsigned long long)num_synth);
	static const char tag[] = "filecoin.io|PoRep|1|Synthetic|1|Generation";
	uint8_t msg[64];
	memcpy(msg, replica_id, 32);
	memcpy(msg + 32, comm_r, 32);
	zkp_porep_blake2b(s->key, 32, (const uint8_t *)tag, sizeof(tag) - 1, msg, sizeof(msg));
	s->nodes = nodes;
	s->num_synth = num_synth;
	memcpy(s->replica_id, replica_id, 32);
	return 0;
}

uint64_t zkp_porep_synth_challenge(const zkp_porep_synth *s, uint64_t i)
{
	if (i >= s->num_synth)
		return 0;
	uint8_t x[32];
	chacha20_stream(x, s->key, 32 * i, 32); /* SYNTH_CHALLENGE_SIZE */
	return to_challenge(x, s->nodes);
}

static int partition_range(unsigned per_partition, unsigned k, zkp_error *err)
{
	if (per_partition == 0)
		return zkp_error_set(err, ZKP_ERR_RANGE, "porep challenges: 0 challenges per partition");
	if (k > 255)
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "porep challenges: partition %u; rust-fil-proofs passes k as u8",
				     k);
	/* j = per_partition * k + i is a u32, and 4 j a u32 keystream offset. */
	if ((uint64_t)per_partition * (k + 1) > (1ULL << 30))
		return zkp_error_set(err, ZKP_ERR_RANGE,
				     "porep challenges: %u per partition at partition %u passes 2^30 challenges",
				     per_partition, k);
	return 0;
}

int zkp_porep_synth_indexes(uint64_t *out, const zkp_porep_synth *s, const uint8_t seed[32],
			    unsigned per_partition, unsigned k, zkp_error *err)
{
	int rc = partition_range(per_partition, k, err);
	if (rc)
		return rc;
	if (s->num_synth == 0)
		return zkp_error_set(err, ZKP_ERR_INVAL, "synthetic porep: generator not initialised");
	static const char tag[] = "filecoin.io|PoRep|1|Synthetic|1|Selection";
	uint8_t msg[64], key[32], w[64];
	memcpy(msg, s->replica_id, 32);
	memcpy(msg + 32, seed, 32);
	zkp_porep_blake2b(key, 32, (const uint8_t *)tag, sizeof(tag) - 1, msg, sizeof(msg));
	/* gen_partition_synth_indexes: u32 LE words (SYNTH_INDEX_SIZE 4) from
	 * the first porep challenge of the partition, k * per_partition. */
	uint64_t off = 4ULL * per_partition * k;
	for (unsigned c = 0; c < per_partition; c += 16) {
		unsigned n = per_partition - c < 16 ? per_partition - c : 16;
		chacha20_stream(w, key, off + 4ULL * c, 4 * n);
		for (unsigned i = 0; i < n; i++) {
			const uint8_t *p = w + 4 * i;
			uint64_t v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
				     (uint64_t)p[3] << 24;
			out[c + i] = v % s->num_synth;
		}
	}
	return 0;
}

/* SHA-256 of the n parts, concatenated. */
static int sha256_parts(EVP_MD_CTX *ctx, uint8_t out[32], const void *const *parts,
			const size_t *lens, int n)
{
	unsigned len = 0;
	if (!EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		return ZKP_ERR_UNSUPPORTED;
	for (int i = 0; i < n; i++)
		if (!EVP_DigestUpdate(ctx, parts[i], lens[i]))
			return ZKP_ERR_UNSUPPORTED;
	if (!EVP_DigestFinal_ex(ctx, out, &len) || len != 32)
		return ZKP_ERR_UNSUPPORTED;
	return 0;
}

static const char ni_tag[] = "filecoin.io|PoRep|1|NonInteractive|1";

int zkp_porep_challenges(uint64_t *out, zkp_porep_mode mode, uint64_t nodes,
			 unsigned per_partition, unsigned k, const uint8_t replica_id[32],
			 const uint8_t seed[32], const uint8_t comm_r[32], zkp_error *err)
{
	int rc = nodes_ok(nodes, err);
	if (!rc)
		rc = partition_range(per_partition, k, err);
	if (rc)
		return rc;
	if (!replica_id)
		return zkp_error_set(err, ZKP_ERR_INVAL, "porep challenges: no replica_id");
	if (mode != ZKP_POREP_NON_INTERACTIVE && !seed)
		return zkp_error_set(err, ZKP_ERR_INVAL, "%s porep challenges need the seed",
				     zkp_porep_mode_name(mode));
	if (mode != ZKP_POREP_INTERACTIVE && !comm_r)
		return zkp_error_set(err, ZKP_ERR_INVAL, "%s porep challenges need comm_r",
				     zkp_porep_mode_name(mode));

	if (mode == ZKP_POREP_SYNTHETIC) {
		zkp_porep_synth s;
		if ((rc = zkp_porep_synth_init(&s, nodes, 0, replica_id, comm_r, err)) ||
		    (rc = zkp_porep_synth_indexes(out, &s, seed, per_partition, k, err)))
			return rc;
		for (unsigned i = 0; i < per_partition; i++)
			out[i] = zkp_porep_synth_challenge(&s, out[i]);
		return 0;
	}
	if (mode != ZKP_POREP_INTERACTIVE && mode != ZKP_POREP_NON_INTERACTIVE)
		return zkp_error_set(err, ZKP_ERR_INVAL, "porep challenges: unknown mode %d",
				     (int)mode);

	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "porep challenges: no OpenSSL digest context");
	for (unsigned i = 0; i < per_partition; i++) {
		uint32_t j = per_partition * k + i;
		uint8_t jle[4] = { (uint8_t)j, (uint8_t)(j >> 8), (uint8_t)(j >> 16),
				   (uint8_t)(j >> 24) };
		uint8_t x[32];
		if (mode == ZKP_POREP_INTERACTIVE) {
			const void *p[3] = { replica_id, seed, jle };
			const size_t l[3] = { 32, 32, 4 };
			rc = sha256_parts(ctx, x, p, l, 3);
		} else {
			const void *p[4] = { ni_tag, replica_id, comm_r, jle };
			const size_t l[4] = { sizeof(ni_tag) - 1, 32, 32, 4 };
			rc = sha256_parts(ctx, x, p, l, 4);
		}
		if (rc) {
			rc = zkp_error_set(err, rc, "porep challenges: OpenSSL SHA-256 failed");
			goto out;
		}
		out[i] = to_challenge(x, nodes);
	}
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

int zkp_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
			 const uint8_t ticket[32], const uint8_t comm_d[32],
			 const uint8_t porep_id[32], zkp_error *err)
{
	uint8_t buf[32 + 8 + 32 + 32 + 32];
	unsigned len = 0;
	memcpy(buf, prover_id, 32);
	for (int i = 0; i < 8; i++)
		buf[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i)); /* to_be_bytes */
	memcpy(buf + 40, ticket, 32);
	memcpy(buf + 72, comm_d, 32);
	memcpy(buf + 104, porep_id, 32);
	if (!EVP_Digest(buf, sizeof(buf), out, &len, EVP_sha256(), NULL) || len != 32)
		return zkp_error_set(err, ZKP_ERR_UNSUPPORTED, "replica_id: OpenSSL SHA-256 failed");
	out[31] &= 0x3f; /* bytes_into_fr_repr_safe */
	return 0;
}
