/*
 * SnapDeals' native values (include/zkpd/snap.h): phi, rho and a
 * partition's challenges, as storage-proofs-update vanilla.rs and
 * challenges.rs compute them, with the "gen randomness" Poseidon.
 */
#include "zkpd/poseidon.h"
#include "zkpd/snap.h"

static int hash_gen(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b)
{
	const zkp_poseidon_consts *c;
	int rc = zkp_poseidon_consts_get_custom(&c, 2, 1);
	if (rc)
		return rc;
	zkp_fr in[2] = { *a, *b };
	zkp_poseidon_hash(ret, c, in);
	return 0;
}

int zkp_snap_phi(zkp_fr *ret, const zkp_fr *comm_d_new, const zkp_fr *comm_r_old)
{
	return hash_gen(ret, comm_d_new, comm_r_old);
}

int zkp_snap_rho(zkp_fr *ret, const zkp_fr *phi, uint64_t high)
{
	zkp_fr h;
	zkp_fr_set_u64(&h, high);
	return hash_gen(ret, phi, &h);
}

uint64_t zkp_snap_high(const zkp_snap_shape *s, unsigned h, uint64_t node)
{
	return node >> (zkp_snap_challenge_bits(s) - h);
}

int zkp_snap_challenges(uint64_t *out, const zkp_snap_shape *s, const zkp_fr *comm_r_new,
			unsigned k, zkp_error *err)
{
	if (k >= s->partitions)
		return zkp_error_set(err, ZKP_ERR_INVAL, "partition %u: this sector size has %u", k,
				     s->partitions);
	unsigned b = zkp_snap_challenge_bits(s) - zkp_snap_partition_bits(s);
	unsigned per = 254 / b, digests = (s->challenges + per - 1) / per;
	unsigned n = 0;
	for (unsigned j = 0; j < digests && n < s->challenges; j++) {
		zkp_fr index, digest;
		uint64_t limbs[ZKP_FR_LIMBS];
		zkp_fr_set_u64(&index, (uint64_t)k * digests + j);
		int rc = hash_gen(&digest, comm_r_new, &index);
		if (rc)
			return zkp_error_set(err, rc, "Poseidon constants");
		zkp_fr_to_limbs(limbs, &digest);
		for (unsigned i = 0; i < per && n < s->challenges; i++, n++) {
			uint64_t c = 0;
			for (unsigned t = 0; t < b; t++) {
				unsigned bit = i * b + t;
				c |= ((limbs[bit / 64] >> (bit % 64)) & 1) << t;
			}
			out[n] = c | ((uint64_t)k << b);
		}
	}
	return 0;
}
