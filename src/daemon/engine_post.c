/*
 * engine PoSt: a WindowPoSt partition or a WinningPoSt proof as one job
 * (engine.h, "PoSt jobs"). Its WITNESS stage decodes the PoSt bundle for
 * the circuit's kind and sector size, checks every sector's vanilla proof
 * (paths, comm_r, challenged leaves derived from the randomness and the
 * sector's position: post_c2.h) and computes the witness, whose public
 * inputs must equal the derived ones; the VERIFY stage then verifies the
 * proof with them.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "engine_int.h"
#include "zkpd/log.h"
#include "zkpd/mem.h"
#include "zkpd/post_c2.h"

int post_witness(struct zkp_engine *e, struct job *j, zkp_error *err)
{
	(void)e;
	const struct circuit *c = j->circ;
	const zkp_pce_dims *d = zkp_pce_get_dims(c->pce);
	enum zkp_post_kind kind = c->cfg.winning_post_sector_size ? ZKP_POST_WINNING : ZKP_POST_WINDOW;
	uint64_t bytes = kind == ZKP_POST_WINNING ? c->cfg.winning_post_sector_size :
						    c->cfg.window_post_sector_size;
	zkp_post_partition p;
	int rc = zkp_post_partition_from_bundle(&p, kind, bytes, j->data, j->len, err);
	/* The bundle is read: its bytes go now rather than at the job's end. */
	free(j->data);
	j->data = NULL;
	if (rc)
		return rc;
	size_t n = (size_t)(d->n_inputs + d->n_aux);
	j->w = malloc(n * sizeof(zkp_fr));
	if (!j->w) {
		zkp_post_partition_release(&p);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for the PoSt witness");
	}
	j->n_w = n;
	zkp_mem_add(ZKP_MEM_WITNESS, n * sizeof(zkp_fr));
	rc = zkp_post_partition_witness(j->w, d->n_inputs, d->n_aux, &p, err);
	if (!rc)
		zkp_log(ZKP_LOG_INFO, "job %" PRIu64 ": %s, partition %u: %u sector(s) checked", j->id,
			p.type.name, p.partition, p.n);
	zkp_post_partition_release(&p);
	return rc;
}
