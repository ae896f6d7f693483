/*
 * C2 from a C1 without the Groth16 step: the development sealer seals a
 * 2 KiB sector over Filecoin's graph (interactive and synthetic; and the
 * sparse sealer writes interactive C1s), its C1 is written and read back,
 * and then
 *  - the public inputs derived from the C1's public data alone (challenges
 *    from the seed, parents from the graph) equal the witness's inputs;
 *  - the witness satisfies the 2 KiB circuit written by zkp porep circuit's
 *    code path, and the streaming row check (zkp_porep_c1_check_rows,
 *    no .pce) agrees with zkp_pce_check on it, passing or naming the same
 *    first failing row;
 *  - replica_id is recomputed from prover_id and sector_id;
 *  - a C1 with a flipped byte in a label, a path or a root never gets
 *    through: the reader refuses it, the derivation disagrees, or the
 *    witness breaks a row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/circuit.h"
#include "zkpd/porep_c2.h"
#include "zkpd/porep_seal.h"
#include "zkpd/porep_sparse.h"

static const uint8_t prover_id[32] = { 7 }, ticket[32] = { 11, 1 }, seed[32] = { 13, 2 };
static const uint64_t sector_id = 42;
static zkp_pce *pce2k;
static zkp_pool *pool;

static zkp_porep_c1 *seal(const char *name)
{
	const zkp_porep_proof *p;
	zkp_error err = { 0 };
	assert_int_equal(zkp_porep_proof_lookup(&p, name, &err), 0);
	zkp_fr *data = malloc(p->nodes * sizeof(zkp_fr));
	assert_non_null(data);
	for (uint64_t n = 0; n < p->nodes; n++) {
		uint64_t wide[8];
		tu_rand_bytes(wide, sizeof(wide));
		zkp_fr_from_wide(&data[n], wide);
	}
	zkp_porep_c1 *c1 = NULL;
	if (zkp_porep_seal_c1(&c1, p, data, prover_id, sector_id, ticket, seed, &err))
		fail_msg("seal: %s", err.msg);
	free(data);
	return c1;
}

/* A sparse development C1 of the same sector (porep_sparse.h). */
static zkp_porep_c1 *seal_sparse(const char *name)
{
	const zkp_porep_proof *p;
	zkp_error err = { 0 };
	uint8_t key[32];
	assert_int_equal(zkp_porep_proof_lookup(&p, name, &err), 0);
	zkp_porep_sparse_key(key, tu_rand64());
	zkp_porep_c1 *c1 = NULL;
	if (zkp_porep_sparse_c1(&c1, p, key, prover_id, sector_id, ticket, seed, pool, NULL, &err))
		fail_msg("sparse seal: %s", err.msg);
	return c1;
}

/* The C1 through its JSON and back. */
static zkp_porep_c1 *round_trip(const zkp_porep_c1 *c1, char **json, size_t *len)
{
	char path[] = "/tmp/zkpd-c1-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	zkp_error err = { 0 };
	if (zkp_porep_c1_write(c1, path, 0, 0, &err))
		fail_msg("write: %s", err.msg);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	*json = malloc(*len + 1);
	assert_int_equal(fread(*json, 1, *len, f), *len);
	(*json)[*len] = 0;
	fclose(f);
	unlink(path);
	zkp_porep_c1 *back = NULL;
	if (zkp_porep_c1_parse(&back, (const uint8_t *)*json, *len, &err))
		fail_msg("parse: %s", err.msg);
	return back;
}

/* 0 when partition 0 passes every check; otherwise the first failure. */
static int check_partition(const zkp_porep_c1 *c1)
{
	const zkp_porep_proof *p;
	zkp_porep_graph g = { 0 };
	zkp_error err = { 0 };
	int rc = zkp_porep_c1_proof(&p, c1, &err);
	if (rc)
		return rc;
	assert_int_equal(zkp_porep_graph_init_proof(&g, p, &err), 0);
	const zkp_pce_dims *d = zkp_pce_get_dims(pce2k);
	zkp_fr *pub = malloc((d->n_inputs - 1) * sizeof(zkp_fr));
	zkp_fr *w = malloc((d->n_inputs + d->n_aux) * sizeof(zkp_fr));
	assert_non_null(pub);
	assert_non_null(w);
	rc = zkp_porep_c1_public_inputs(pub, c1, 0, p, &g, &err);
	if (!rc) {
		zkp_porep_witness wit;
		zkp_porep_c1_witness(c1, 0, &wit);
		assert_int_equal(zkp_porep_witness_parallel(&c1->shape, &wit, w, d->n_inputs, d->n_aux,
							    NULL, &err),
				 0);
		for (uint64_t i = 0; i + 1 < d->n_inputs; i++)
			assert_true(zkp_fr_eq(&pub[i], &w[1 + i]));
		uint64_t bad = UINT64_MAX, bad2 = UINT64_MAX, rows = 0;
		rc = zkp_pce_check(pce2k, w, &bad, NULL, &err);
		/* the streaming check finds the same first row, without a .pce */
		zkp_error err2 = { 0 };
		int rc2 = zkp_porep_c1_check_rows(c1, 0, pub, pool, &rows, &bad2, &err2);
		assert_int_equal(rows, d->n_constraints);
		if (rc2 != rc || bad2 != bad)
			fail_msg("zkp_pce_check: %s (row %llu); the streaming check: %s (row %llu)",
				 rc ? err.msg : "satisfied", (unsigned long long)bad,
				 rc2 ? err2.msg : "satisfied", (unsigned long long)bad2);
	}
	free(pub);
	free(w);
	zkp_porep_graph_release(&g);
	return rc;
}

static void test_sealed_c1(void **state)
{
	(void)state;
	static const char *names[] = { "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
				       "StackedDrg2KiBV1_1", "StackedDrg2KiBV1" };
	for (int t = 0; t < 4; t++) {
		/* the last two: sparse C1s, which pass the same checks */
		zkp_porep_c1 *c1 = t < 2 ? seal(names[t]) : seal_sparse(names[t]);
		char *json;
		size_t len;
		zkp_porep_c1 *back = round_trip(c1, &json, &len);
		assert_int_equal(check_partition(back), 0);

		const zkp_porep_proof *p;
		zkp_error err = { 0 };
		assert_int_equal(zkp_porep_c1_proof(&p, back, &err), 0);
		assert_int_equal(zkp_porep_c1_check_replica_id(back, p, prover_id, sector_id, &err), 0);
		assert_int_equal(zkp_porep_c1_check_replica_id(back, p, prover_id, sector_id + 1, &err),
				 ZKP_ERR_MISMATCH);
		free(json);
		zkp_porep_c1_free(back);
		zkp_porep_c1_free(c1);
	}
}

/* Flips one digit of a byte inside a 32-integer array found after `key`
 * (its n-th occurrence); returns false when there is no such place. */
static bool flip_after(char *json, const char *key, int nth)
{
	char *at = json;
	for (int i = 0; i <= nth; i++) {
		at = strstr(at, key);
		if (!at)
			return false;
		at += strlen(key);
	}
	char *digit = strpbrk(at, "0123456789");
	if (!digit)
		return false;
	/* 0..9 -> another digit whose byte stays below 256 */
	*digit = *digit == '1' ? '2' : '1';
	return true;
}

/* Flipped bytes in c1 (freed) at each place below never get through. */
static void tampered(zkp_porep_c1 *c1)
{
	char *json;
	size_t len;
	zkp_porep_c1 *back = round_trip(c1, &json, &len);
	zkp_porep_c1_free(back);
	static const struct {
		const char *key;
		int nth;
	} places[] = {
		{ "\"rows\":[[", 0 },      /* a parent's label */
		{ "\"rows\":[[", 20 },     /* another column */
		{ "\"hashes\":[[", 3 },    /* a sibling on a path */
		{ "\"leaf\":[", 0 },       /* comm_d's leaf */
		{ "\"root\":[", 1 },       /* a root */
		{ "\"parents\":[[", 5 },   /* a labeling proof's parent */
		{ "\"comm_r\":[", 0 },
		{ "\"seed\":[", 0 },
	};
	int refused = 0, derived = 0, unsatisfied = 0;
	for (size_t k = 0; k < sizeof(places) / sizeof(places[0]); k++) {
		char *t = strdup(json);
		assert_non_null(t);
		if (!flip_after(t, places[k].key, places[k].nth))
			fail_msg("no place %s #%d in the C1", places[k].key, places[k].nth);
		zkp_porep_c1 *x = NULL;
		zkp_error err = { 0 };
		int rc = zkp_porep_c1_parse(&x, (const uint8_t *)t, len, &err);
		if (rc) {
			refused++;
		} else {
			rc = check_partition(x);
			if (rc == ZKP_ERR_UNSATISFIED)
				unsatisfied++;
			else if (rc)
				derived++;
			zkp_porep_c1_free(x);
		}
		if (!rc)
			fail_msg("a flipped byte after %s #%d got through", places[k].key, places[k].nth);
		free(t);
	}
	printf("tampered C1s: %d refused by the reader, %d by the derivation, %d unsatisfied\n",
	       refused, derived, unsatisfied);
	free(json);
	zkp_porep_c1_free(c1);
}

static void test_tampered_c1(void **state)
{
	(void)state;
	tampered(seal("StackedDrg2KiBV1_1"));
	tampered(seal_sparse("StackedDrg2KiBV1_1"));
}

static int setup(void **state)
{
	(void)state;
	zkp_porep_shape s;
	zkp_error err = { 0 };
	char path[] = "/tmp/zkpd-p2k-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || zkp_porep_shape_for_size(&s, 2048, &err))
		return -1;
	close(fd);
	zkp_porep_job job = { &s, NULL };
	uint8_t label[32];
	zkp_porep_label_encode(label, &s);
	int rc = zkp_circuit_write(zkp_porep_circuit_fn, &job, path, label, NULL, &err) ||
		 zkp_pce_load(&pce2k, path, 0, &err) || zkp_pool_new(&pool, 1);
	unlink(path);
	return rc ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	zkp_pool_free(pool);
	zkp_pce_free(pce2k);
	return 0;
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sealed_c1),
		cmocka_unit_test(test_tampered_c1),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
