/*
 * SnapDeals proving from vanilla proofs (include/zkpd/snap_c2.h).
 */
#include <stdlib.h>
#include <string.h>

#include "le_bytes.h"
#include "zkpd/circuit.h"
#include "zkpd/snap_c2.h"

void zkp_snap_update_release(zkp_snap_update *u)
{
	if (u->parts)
		for (unsigned k = 0; k < u->partitions; k++)
			zkp_snap_vanilla_release(&u->parts[k]);
	free(u->parts);
	memset(u, 0, sizeof(*u));
}

static int commitment(zkp_fr *out, const uint8_t b[32], const char *name, zkp_error *err)
{
	if (zkp_fr_from_le(out, b))
		return zkp_error_set(err, ZKP_ERR_NOT_CANONICAL,
				     "SnapDeals update: %s is not below the scalar field modulus r",
				     name);
	return 0;
}

int zkp_snap_update_decode(zkp_snap_update *ret, const zkp_snap_shape *s,
			   const uint8_t comm_r_old[32], const uint8_t comm_d_new[32],
			   const uint8_t comm_r_new[32], const uint8_t *const *proofs,
			   const size_t *lens, unsigned n, zkp_error *err)
{
	memset(ret, 0, sizeof(*ret));
	if (n != s->partitions)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "SnapDeals update: %u vanilla proofs; a %llu-byte sector has %u partition%s",
				     n, (unsigned long long)s->sector_bytes, s->partitions,
				     s->partitions == 1 ? "" : "s");
	zkp_snap_update u = { .shape = *s, .h = s->hs[3], .partitions = n };
	int rc;
	if ((rc = commitment(&u.comm_r_old, comm_r_old, "comm_r_old", err)) ||
	    (rc = commitment(&u.comm_d_new, comm_d_new, "comm_d_new", err)) ||
	    (rc = commitment(&u.comm_r_new, comm_r_new, "comm_r_new", err)))
		return rc;
	u.parts = calloc(n, sizeof(*u.parts));
	if (!u.parts)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "SnapDeals update: no memory");
	for (unsigned k = 0; k < n; k++) {
		zkp_error e = { 0 };
		rc = zkp_snap_vanilla_decode(&u.parts[k], proofs[k], lens[k], s, &e);
		if (!rc)
			rc = zkp_snap_vanilla_check(&u.parts[k], k, u.h, &u.comm_r_old,
						    &u.comm_d_new, &u.comm_r_new, &e);
		if (rc) {
			zkp_error_set(err, rc, "partition %u: %s", k, e.msg);
			zkp_snap_update_release(&u);
			return rc;
		}
	}
	*ret = u;
	return 0;
}

int zkp_snap_update_public_inputs(zkp_fr out[4], const zkp_snap_update *u, unsigned k,
				  zkp_error *err)
{
	return zkp_snap_public_inputs(out, &u->shape, k, u->h, &u->comm_r_old, &u->comm_d_new,
				      &u->comm_r_new, err);
}

int zkp_snap_update_witness(zkp_fr *w, uint64_t inputs, uint64_t aux, const zkp_snap_update *u,
			    unsigned k, zkp_error *err)
{
	zkp_fr pub[4];
	int rc = zkp_snap_update_public_inputs(pub, u, k, err);
	if (rc)
		return rc;
	if (inputs != ZKP_SNAP_INPUTS)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "the circuit has %llu inputs; a SnapDeals partition has %d",
				     (unsigned long long)inputs, ZKP_SNAP_INPUTS);
	zkp_snap_witness wit;
	zkp_snap_vanilla_witness(&u->parts[k], k, u->h, &u->comm_r_old, &u->comm_d_new,
				 &u->comm_r_new, &wit);
	zkp_snap_job job = { &u->shape, &wit };
	zkp_circuit_dims dims = { .inputs = inputs, .aux = aux };
	if ((rc = zkp_circuit_witness(zkp_snap_circuit_fn, &job, &dims, w, err)))
		return rc;
	for (unsigned i = 0; i < 4; i++)
		if (!zkp_fr_eq(&w[1 + i], &pub[i]))
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "partition %u: public input %u of the witness differs from the one derived from the commitments",
					     k, i + 1);
	return 0;
}

int zkp_snap_prove_partition(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			     const zkp_snap_prover *pr, const zkp_snap_update *u, unsigned k,
			     zkp_error *err)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(pr->pce);
	zkp_fr pub[4];
	int rc = zkp_snap_update_public_inputs(pub, u, k, err);
	if (rc)
		return rc;
	zkp_fr *w = malloc((d->n_inputs + d->n_aux) * sizeof(zkp_fr));
	if (!w)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for partition %u's witness", k);
	if ((rc = zkp_snap_update_witness(w, d->n_inputs, d->n_aux, u, k, err)))
		goto out;
	if ((rc = zkp_groth16_prove(proof, times, pr->pce, pr->pk, w,
				    (size_t)(d->n_inputs + d->n_aux), pr->be, pr->pool, err)))
		goto out;
	rc = zkp_groth16_verify(pr->pvk, pub, 4, proof);
	if (rc)
		rc = zkp_error_set(err, rc == ZKP_GROTH16_INVALID ? ZKP_ERR_MISMATCH : rc,
				   "partition %u: the proof does not verify with the derived public inputs",
				   k);
out:
	free(w);
	return rc;
}

int zkp_snap_verify(const zkp_groth16_pvk *pvk, const zkp_groth16_proof *proofs,
		    const zkp_snap_shape *s, const uint8_t comm_r_old[32],
		    const uint8_t comm_d_new[32], const uint8_t comm_r_new[32], zkp_error *err)
{
	zkp_fr ro, dn, rn, pub[4];
	int rc;
	if ((rc = commitment(&ro, comm_r_old, "comm_r_old", err)) ||
	    (rc = commitment(&dn, comm_d_new, "comm_d_new", err)) ||
	    (rc = commitment(&rn, comm_r_new, "comm_r_new", err)))
		return rc;
	for (unsigned k = 0; k < s->partitions; k++) {
		if ((rc = zkp_snap_public_inputs(pub, s, k, s->hs[3], &ro, &dn, &rn, err)))
			return rc;
		rc = zkp_groth16_verify(pvk, pub, 4, &proofs[k]);
		if (rc == ZKP_GROTH16_INVALID)
			return zkp_error_set(err, ZKP_ERR_MISMATCH, "partition %u: the proof is not valid", k);
		if (rc)
			return zkp_error_set(err, rc, "partition %u: the key has %s inputs", k,
					     "a different number of");
	}
	return 0;
}

#define BUNDLE_MAX_PARTITIONS 16

int zkp_snap_bundle_encode(uint8_t **out, size_t *len, const uint8_t comm_r_old[32],
			   const uint8_t comm_d_new[32], const uint8_t comm_r_new[32],
			   const uint8_t *const *proofs, const size_t *lens, unsigned n,
			   zkp_error *err)
{
	size_t total = 96 + 4;
	for (unsigned k = 0; k < n; k++)
		total += 8 + lens[k];
	uint8_t *b = malloc(total), *p = b;
	if (!b)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a SnapDeals update");
	memcpy(p, comm_r_old, 32);
	memcpy(p + 32, comm_d_new, 32);
	memcpy(p + 64, comm_r_new, 32);
	zkp_put_le(p + 96, n, 4);
	p += 100;
	for (unsigned k = 0; k < n; k++) {
		zkp_put_le(p, lens[k], 8);
		memcpy(p + 8, proofs[k], lens[k]);
		p += 8 + lens[k];
	}
	*out = b;
	*len = total;
	return 0;
}

int zkp_snap_update_from_bundle(zkp_snap_update *ret, const zkp_snap_shape *s, const uint8_t *b,
				size_t len, zkp_error *err)
{
	const uint8_t *proofs[BUNDLE_MAX_PARTITIONS];
	size_t lens[BUNDLE_MAX_PARTITIONS];
	memset(ret, 0, sizeof(*ret));
	if (len < 100)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "SnapDeals update: %zu bytes; the commitments and count take 100",
				     len);
	uint64_t n = zkp_get_le(b + 96, 4);
	if (n > BUNDLE_MAX_PARTITIONS)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "SnapDeals update, byte 96: %llu partitions; at most %d",
				     (unsigned long long)n, BUNDLE_MAX_PARTITIONS);
	size_t off = 100;
	for (unsigned k = 0; k < n; k++) {
		if (len - off < 8)
			return zkp_error_set(err, ZKP_ERR_FORMAT,
					     "SnapDeals update, byte %zu: partition %u's length is cut short",
					     off, k);
		uint64_t l = zkp_get_le(b + off, 8);
		if (l > len - off - 8)
			return zkp_error_set(err, ZKP_ERR_FORMAT,
					     "SnapDeals update, byte %zu: partition %u's %llu bytes run past the end",
					     off, k, (unsigned long long)l);
		proofs[k] = b + off + 8;
		lens[k] = (size_t)l;
		off += 8 + (size_t)l;
	}
	if (off != len)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "SnapDeals update, byte %zu: %zu more bytes follow the last partition",
				     off, len - off);
	return zkp_snap_update_decode(ret, s, b, b + 32, b + 64, proofs, lens, (unsigned)n, err);
}
