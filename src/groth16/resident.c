/*
 * A proving key's MSM queries held by a backend (groth16_job.h,
 * zkp_groth16_resident): imported once, read by every job on that backend.
 */
#include <stdlib.h>

#include "groth16_int.h"
#include "zkpd/groth16_job.h"

int zkp_groth16_resident_new(zkp_groth16_resident **ret, const zkp_groth16_pk *pk,
			     zkp_backend *be, zkp_error *err)
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
	if (zkp_backend_import_host(be, &rk->b_g2, pk->b_g2, g2_bytes) == 0) {
		rk->has_g2 = true;
		if (rk->b_g2.owned)
			rk->bytes += g2_bytes;
	}
	*ret = rk;
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
	free(rk);
}
