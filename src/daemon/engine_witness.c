/*
 * engine witness at rest: a job's witness between its EVAL stage and its
 * end. Once a device holds the witness and nothing on the host reads it
 * again (zkp_groth16_job_reads_witness), the job keeps it packed
 * (zkpd/bitpack.h): a 32 GiB PoRep partition's 4.17 GB become about 103
 * MB while the job waits for its device, runs there and is finalized.
 * The packed form is what the CPU fallback unpacks (a device fault) and
 * what the result's public inputs are read from.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "zkpd/bitpack.h"
#include "zkpd/mem.h"

void witness_rest(struct zkp_engine *e, struct job *j)
{
	if (!j->w || zkp_groth16_job_reads_witness(j->gj))
		return;
	const size_t n = j->n_w, whole = n * sizeof(zkp_fr);
	uint8_t *buf = malloc(zkp_bitpack_dense_off(n));
	if (!buf)
		return; /* the witness stays whole */
	size_t n_dense = zkp_bitpack_scan(buf, j->w, n, e->pool);
	size_t bytes = zkp_bitpack_bytes(n, n_dense);
	uint8_t *grown = bytes < whole ? realloc(buf, bytes) : NULL;
	if (!grown) {
		free(buf);
		return;
	}
	zkp_bitpack_gather(grown, j->w, n, e->pool);
	free(j->w);
	j->w = NULL;
	j->wpack = grown;
	j->wpack_bytes = bytes;
	zkp_mem_sub(ZKP_MEM_WITNESS, whole);
	zkp_mem_add(ZKP_MEM_WITNESS, bytes);
}

int witness_whole(struct job *j, zkp_error *err)
{
	if (j->w)
		return 0;
	const size_t n = j->n_w, whole = n * sizeof(zkp_fr);
	zkp_fr *w = malloc(whole);
	if (!w)
		return zkp_error_set(err, ZKP_ERR_NOMEM,
				     "no memory to unpack the witness (%zu bytes) for the CPU "
				     "backend", whole);
	zkp_bitpack_unpack(w, j->wpack, n, 0, n);
	free(j->wpack);
	zkp_mem_sub(ZKP_MEM_WITNESS, j->wpack_bytes);
	zkp_mem_add(ZKP_MEM_WITNESS, whole);
	j->wpack = NULL;
	j->wpack_bytes = 0;
	j->w = w;
	return 0;
}

void witness_values(const struct job *j, zkp_fr *out, size_t begin, size_t end)
{
	if (j->w)
		memcpy(out, j->w + begin, (end - begin) * sizeof(zkp_fr));
	else
		zkp_bitpack_unpack(out, j->wpack, j->n_w, begin, end);
}

void witness_drop(struct job *j)
{
	if (j->w)
		zkp_mem_sub(ZKP_MEM_WITNESS, j->n_w * sizeof(zkp_fr));
	else if (j->wpack)
		zkp_mem_sub(ZKP_MEM_WITNESS, j->wpack_bytes);
	free(j->w);
	free(j->wpack);
	j->w = NULL;
	j->wpack = NULL;
	j->wpack_bytes = 0;
	j->n_w = 0;
}
