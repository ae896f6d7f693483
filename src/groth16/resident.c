/*
 * A proving key's MSM queries held by a backend (groth16_job.h,
 * zkp_groth16_resident): imported once, read by every job on that backend.
 */
#include <stdlib.h>

#include "groth16_int.h"
#include "zkpd/groth16_job.h"

int zkp_groth16_resident_new(zkp_groth16_resident **ret, const zkp_groth16_pk *pk,
			     zkp_backend *be, bool with_g2, zkp_error *err)
{
	static const enum zkp_groth16_section sections[G16_RES_G1_QUERIES] = {
		ZKP_GROTH16_H, ZKP_GROTH16_L, ZKP_GROTH16_A, ZKP_GROTH16_B_G1
	};
	const zkp_g1_affine *const src[G16_RES_G1_QUERIES] = { pk->h, pk->l, pk->a, pk->b_g1 };
	*ret = NULL;
	zkp_groth16_resident *rk = calloc(1, sizeof(*rk));
	if (!rk)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "prove: no memory for a resident key");
	rk->pk = pk;
	rk->be = be;
	for (int i = 0; i < G16_RES_G1_QUERIES; i++) {
		size_t bytes = pk->n[sections[i]] * sizeof(zkp_g1_affine);
		int rc = zkp_backend_import_host(be, &rk->q[i], src[i], bytes);
		if (rc) {
			zkp_error_set(err, rc, "prove: backend %s cannot hold the key's %s query "
					       "(%zu bytes)", be->ops->name,
				      zkp_groth16_section_name(sections[i]), bytes);
			zkp_groth16_resident_free(rk);
			return rc;
		}
		if (rk->q[i].owned)
			rk->bytes += bytes;
	}
	/* B_G2 last and optional: a device too small for it still runs the G1
	 * MSMs, and the G2 one runs on the host. */
	size_t g2_bytes = pk->n[ZKP_GROTH16_B_G2] * sizeof(zkp_g2_affine);
	if (with_g2 && zkp_backend_import_host(be, &rk->b_g2, pk->b_g2, g2_bytes) == 0) {
		rk->has_g2 = true;
		if (rk->b_g2.owned)
			rk->bytes += g2_bytes;
	}
	*ret = rk;
	return 0;
}

int zkp_groth16_resident_hold_circuit(zkp_groth16_resident *rk, const zkp_pce *pce,
				      zkp_error *err)
{
	if (rk->has_circuit)
		return rk->circuit == pce ? 0 : zkp_error_set(err, ZKP_ERR_INVAL,
							      "prove: the resident key already "
							      "holds another circuit");
	zkp_backend *be = rk->be;
	if (be->host_visible || !be->ops->spmv)
		return zkp_error_set(err, ZKP_ERR_UNSUPPORTED,
				     "prove: backend %s evaluates in host memory already",
				     be->ops->name);
	for (int k = 0; k < 3; k++) {
		int rc = zkp_backend_csr_import(be, &rk->m[k],
						zkp_pce_matrix(pce, (enum zkp_pce_matrix)k));
		if (rc) {
			for (int i = 0; i < k; i++)
				zkp_backend_csr_release(be, &rk->m[i]);
			return zkp_error_set(err, rc, "prove: backend %s cannot hold the circuit's "
						      "matrix %c", be->ops->name, "ABC"[k]);
		}
	}
	for (int k = 0; k < 3; k++)
		rk->bytes += zkp_backend_csr_bytes(&rk->m[k]);
	rk->circuit = pce;
	rk->has_circuit = true;
	return 0;
}

size_t zkp_groth16_resident_bytes(const zkp_groth16_resident *rk)
{
	return rk ? rk->bytes : 0;
}

bool zkp_groth16_resident_has_g2(const zkp_groth16_resident *rk)
{
	return rk && rk->has_g2;
}

void zkp_groth16_resident_free(zkp_groth16_resident *rk)
{
	if (!rk)
		return;
	for (int i = 0; i < G16_RES_G1_QUERIES; i++)
		zkp_backend_release(rk->be, &rk->q[i]);
	zkp_backend_release(rk->be, &rk->b_g2);
	for (int k = 0; k < 3; k++)
		zkp_backend_csr_release(rk->be, &rk->m[k]);
	free(rk);
}
