/*
 * The memory model of docs/memory.md (groth16_job.h): what a circuit, a key
 * and one proving job hold, from dimensions alone, so admission can reserve
 * memory before a job allocates it.
 */
#include <string.h>

#include "groth16_int.h"
#include "zkpd/backend.h"
#include "zkpd/groth16_job.h"
#include "zkpd/msm.h"
#include "zkpd/ntt.h"

static double maxd(double a, double b)
{
	return a > b ? a : b;
}

void zkp_groth16_mem_model_of(zkp_groth16_mem_model *ret, const zkp_pce *pce,
			      const zkp_groth16_pk *pk, unsigned threads)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	const double fr = (double)sizeof(zkp_fr);
	const size_t n = (size_t)1 << d->domain_log2;
	const size_t n_all = (size_t)(d->n_inputs + d->n_aux);
	zkp_groth16_mem_model *m = ret;
	memset(m, 0, sizeof(*m));
	m->circuit = (double)zkp_pce_mapped_bytes(pce);
	for (int k = 0; k < 3; k++)
		m->circuit += fr * (double)zkp_pce_matrix(pce, (enum zkp_pce_matrix)k)->n_values;
	m->key = (double)pk->mem_bytes;
	/* A key mapped from the cache has no source to decode. */
	m->key_src = pk->mem_mapped ? 0 : (double)pk->source_bytes;
	m->witness = fr * (double)n_all;
	m->abc = 3.0 * fr * (double)n;
	m->domain = (double)zkp_ntt_domain_mem_size(d->domain_log2);
	m->dens = 2.0 * 8.0 * (double)((n_all + 63) / 64);
	/* The G1 MSMs run one after the other; the G2 one beside them. A
	 * density MSM is handed all N_w scalars and scratch for them, but
	 * fills its per-point arrays for the points present only (A and B
	 * are sparse in Filecoin's circuits: B_G2 has a quarter of the
	 * variables), so what becomes resident follows the key's counts. */
	static const int g1_sections[] = { ZKP_GROTH16_H, ZKP_GROTH16_L, ZKP_GROTH16_A,
					   ZKP_GROTH16_B_G1 };
	for (size_t i = 0; i < sizeof(g1_sections) / sizeof(g1_sections[0]); i++)
		m->msm_g1 = maxd(m->msm_g1,
				 (double)zkp_msm_g1_scratch_size(pk->n[g1_sections[i]], threads,
								 g1_sections[i] == ZKP_GROTH16_H
									 ? NULL
									 : &g16_witness_msm));
	m->msm_g2 = (double)zkp_msm_g2_scratch_size(pk->n[ZKP_GROTH16_B_G2], threads,
						    &g16_witness_msm);
	/* The two peaks of a job: after eval (a, b, c) and in the MSMs (H in a). */
	m->ws_eval = m->witness + m->abc + m->domain;
	m->ws_msm = m->witness + fr * (double)n + m->domain + m->dens + m->msm_g1 + m->msm_g2;
	m->ws = maxd(m->ws_eval, m->ws_msm);
}

void zkp_groth16_device_need_of(zkp_groth16_device_need *ret, const zkp_pce *pce,
				const zkp_groth16_pk *pk, zkp_backend *be)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	const uint64_t fr = sizeof(zkp_fr);
	const uint64_t n = (uint64_t)1 << d->domain_log2;
	const uint64_t n_all = d->n_inputs + d->n_aux;
	memset(ret, 0, sizeof(*ret));
	ret->job = 3 * fr * n + fr * n_all;
	static const int g1_sections[] = { ZKP_GROTH16_H, ZKP_GROTH16_L, ZKP_GROTH16_A,
					   ZKP_GROTH16_B_G1 };
	size_t n_g1 = 0;
	for (size_t i = 0; i < sizeof(g1_sections) / sizeof(g1_sections[0]); i++) {
		size_t k = pk->n[g1_sections[i]];
		ret->key_g1 += (uint64_t)k * sizeof(zkp_g1_affine);
		n_g1 = k > n_g1 ? k : n_g1;
	}
	ret->key_g2 = (uint64_t)pk->n[ZKP_GROTH16_B_G2] * sizeof(zkp_g2_affine);
	for (int k = 0; k < 3; k++)
		ret->matrices += zkp_backend_csr_import_bytes(
			zkp_pce_matrix(pce, (enum zkp_pce_matrix)k));
	if (be)
		zkp_backend_scratch_bytes(be, d->domain_log2, n_g1, pk->n[ZKP_GROTH16_B_G2],
					  (size_t)n_all, &ret->tables, &ret->msm);
}
