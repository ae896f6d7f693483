/*
 * PoSt challenge derivation (include/zkpd/post_vanilla.h), written from
 * rust-fil-proofs storage-proofs-post/src/fallback/vanilla.rs
 * (generate_leaf_challenge, generate_leaf_challenge_inner) and
 * fallback/utils.rs (get_challenge_index), the registered proof numbers
 * from go-state-types abi (RegisteredPoStProof) and their API versions
 * from rust-filecoin-proofs-api registry.rs.
 */
#include <inttypes.h>
#include <string.h>

#include <openssl/evp.h>

#include "le_bytes.h"
#include "zkpd/post_vanilla.h"

static const struct {
	const char *name;
	uint64_t bytes;
} sizes[5] = {
	{ "2KiB", 2048 },         { "8MiB", 8ULL << 20 },   { "512MiB", 512ULL << 20 },
	{ "32GiB", 32ULL << 30 }, { "64GiB", 64ULL << 30 },
};

int zkp_post_proof_type_from_id(zkp_post_proof_type *ret, int64_t id, zkp_error *err)
{
	/* go-state-types' names, the Go spelling of the V1_2 ones */
	static const char *const names[15] = {
		"StackedDrgWinning2KiBV1",    "StackedDrgWinning8MiBV1",
		"StackedDrgWinning512MiBV1",  "StackedDrgWinning32GiBV1",
		"StackedDrgWinning64GiBV1",   "StackedDrgWindow2KiBV1",
		"StackedDrgWindow8MiBV1",     "StackedDrgWindow512MiBV1",
		"StackedDrgWindow32GiBV1",    "StackedDrgWindow64GiBV1",
		"StackedDrgWindow2KiBV1_1",   "StackedDrgWindow8MiBV1_1",
		"StackedDrgWindow512MiBV1_1", "StackedDrgWindow32GiBV1_1",
		"StackedDrgWindow64GiBV1_1",
	};
	if (id < 0 || id >= 15)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "registered PoSt proof %" PRId64
				     ": known are 0-4 (WinningPoSt), 5-9 (WindowPoSt V1) and "
				     "10-14 (WindowPoSt V1_1)",
				     id);
	*ret = (zkp_post_proof_type){
		.kind = id < 5 ? ZKP_POST_WINNING : ZKP_POST_WINDOW,
		.version = id < 10 ? ZKP_POST_V1 : ZKP_POST_V1_2,
		.sector_bytes = sizes[id % 5].bytes,
		.name = names[id],
	};
	return 0;
}

uint64_t zkp_post_challenge_index(enum zkp_post_version v, uint64_t sector_index,
				  unsigned challenges, unsigned n)
{
	return v == ZKP_POST_V1_2 ? n : sector_index * challenges + n;
}

int zkp_post_leaf_challenge(uint64_t *ret, const uint8_t randomness[32], uint64_t sector_id,
			    uint64_t challenge_index, uint64_t nodes, zkp_error *err)
{
	uint8_t msg[48], d[32];
	unsigned dlen = 0;
	if (nodes == 0)
		return zkp_error_set(err, ZKP_ERR_INVAL, "PoSt challenge: a sector of 0 nodes");
	memcpy(msg, randomness, 32);
	zkp_put_le(msg + 32, sector_id, 8);
	zkp_put_le(msg + 40, challenge_index, 8);
	if (!EVP_Digest(msg, sizeof(msg), d, &dlen, EVP_sha256(), NULL) || dlen != 32)
		return zkp_error_set(err, ZKP_ERR_UNSUPPORTED,
				     "PoSt challenge: OpenSSL SHA-256 failed");
	*ret = zkp_get_le(d, 8) % nodes;
	return 0;
}

int zkp_post_vanilla_check_challenges(const zkp_post_sector *s, unsigned challenges,
				      enum zkp_post_version v, const uint8_t randomness[32],
				      uint64_t sector_index, uint64_t nodes, zkp_error *err)
{
	zkp_fr tmp;
	if (zkp_fr_from_le(&tmp, randomness))
		return zkp_error_set(
			err, ZKP_ERR_NOT_CANONICAL,
			"PoSt randomness is not below the BLS12-381 scalar field modulus r");
	for (unsigned n = 0; n < challenges; n++) {
		uint64_t ci = zkp_post_challenge_index(v, sector_index, challenges, n), want;
		int rc = zkp_post_leaf_challenge(&want, randomness, s->sector_id, ci, nodes, err);
		if (rc)
			return rc;
		if (s->challenges[n].node != want)
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "sector %" PRIu64 ", challenge %u opens leaf %" PRIu64
					     "; the randomness derives leaf %" PRIu64
					     " (challenge index %" PRIu64 ", %s)",
					     s->sector_id, n, s->challenges[n].node, want, ci,
					     v == ZKP_POST_V1_2 ? "V1_2" : "V1");
	}
	return 0;
}
