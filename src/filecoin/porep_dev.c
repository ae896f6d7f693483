/*
 * Development partitions (include/zkpd/porep_dev.h): a sector sealed by
 * porep_seal over a random graph (DRG parents of node n drawn below n,
 * expander parents anywhere), with random data, replica_id and challenges.
 */
#include <stdlib.h>
#include <string.h>

#include "zkpd/porep_dev.h"
#include "zkpd/porep_seal.h"
#include "zkpd/rng.h"

#define MAX_NODES (1u << 16)

struct zkp_porep_dev {
	zkp_porep_shape s;
	uint32_t (*parents)[ZKP_POREP_PARENTS];
	zkp_porep_sector *sec;
	zkp_porep_c1_challenge *c1ch;
	zkp_porep_challenge *ch;
	zkp_porep_witness w;
};

static void rand_fr(zkp_rng *r, zkp_fr *out)
{
	uint64_t wide[8];
	for (int i = 0; i < 8; i++)
		wide[i] = zkp_rng_next(r);
	zkp_fr_from_wide(out, wide);
}

static void random_parents(void *ctx, uint64_t node, uint32_t out[ZKP_POREP_PARENTS])
{
	const zkp_porep_dev *d = ctx;
	memcpy(out, d->parents[node], sizeof(d->parents[node]));
}

int zkp_porep_dev_new(zkp_porep_dev **ret, const zkp_porep_shape *s, uint64_t seed,
		      zkp_error *err)
{
	*ret = NULL;
	int rc = zkp_porep_shape_check(s, err);
	if (rc)
		return rc;
	if (s->nodes > MAX_NODES || s->nodes < 2)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "a development sector has 2 to %u nodes, not %llu", MAX_NODES,
				     (unsigned long long)s->nodes);
	const uint64_t N = s->nodes;
	zkp_porep_dev *d = calloc(1, sizeof(*d));
	zkp_fr *data = malloc(N * sizeof(zkp_fr)), replica_id;
	zkp_rng rng;
	if (!d || !data)
		goto nomem;
	d->s = *s;
	d->parents = malloc(N * sizeof(*d->parents));
	d->c1ch = malloc(s->challenges * sizeof(*d->c1ch));
	d->ch = malloc(s->challenges * sizeof(*d->ch));
	if (!d->parents || !d->c1ch || !d->ch)
		goto nomem;

	zkp_rng_seed(&rng, seed);
	for (uint64_t n = 0; n < N; n++) {
		rand_fr(&rng, &data[n]);
		for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++)
			d->parents[n][p] = p < ZKP_POREP_DRG_PARENTS
						   ? (n ? (uint32_t)(zkp_rng_next(&rng) % n) : 0)
						   : (uint32_t)(zkp_rng_next(&rng) % N);
	}
	rand_fr(&rng, &replica_id);
	if ((rc = zkp_porep_sector_seal(&d->sec, s, data, &replica_id, random_parents, d, err)))
		goto fail;

	for (unsigned i = 0; i < s->challenges; i++) {
		zkp_porep_sector_challenge(d->sec, 1 + zkp_rng_next(&rng) % (N - 1), &d->c1ch[i]);
		d->ch[i] = d->c1ch[i].ch;
	}
	d->w.replica_id = replica_id;
	d->w.comm_d = *zkp_porep_sector_comm_d(d->sec);
	d->w.comm_c = *zkp_porep_sector_comm_c(d->sec);
	d->w.comm_r_last = *zkp_porep_sector_comm_r_last(d->sec);
	d->w.comm_r = *zkp_porep_sector_comm_r(d->sec);
	d->w.challenges = d->ch;
	free(data);
	*ret = d;
	return 0;
nomem:
	rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a development sector");
fail:
	free(data);
	zkp_porep_dev_free(d);
	return rc;
}

void zkp_porep_dev_free(zkp_porep_dev *d)
{
	if (!d)
		return;
	zkp_porep_sector_free(d->sec);
	free(d->parents);
	free(d->c1ch);
	free(d->ch);
	free(d);
}

const zkp_porep_witness *zkp_porep_dev_witness(const zkp_porep_dev *d) { return &d->w; }

const zkp_fr *zkp_porep_dev_label(const zkp_porep_dev *d, unsigned i, unsigned layer)
{
	return &d->c1ch[i].column_rows[layer - 1];
}

const zkp_porep_sector *zkp_porep_dev_sector(const zkp_porep_dev *d) { return d->sec; }

const zkp_porep_c1_challenge *zkp_porep_dev_c1_challenge(const zkp_porep_dev *d, unsigned i)
{
	return &d->c1ch[i];
}
