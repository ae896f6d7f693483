#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

static int builder_row(void *ctx, const zkp_pce_term *a, size_t na, const zkp_pce_term *b,
		       size_t nb, const zkp_pce_term *c, size_t nc, zkp_error *err)
{
	return zkp_pce_builder_add(ctx, a, na, b, nb, c, nc, err);
}

void gh_shape(gh_fn fn, void *ctx, gh_result *r)
{
	zkp_cs cs;
	memset(r, 0, sizeof(*r));
	zkp_cs_init_shape(&cs);
	fn(&cs, ctx);
	assert_int_equal(zkp_cs_error(&cs), 0);
	r->inputs = cs.inputs;
	r->aux = cs.aux;
	r->rows = cs.rows;
	zkp_cs_release(&cs);
}

static uint64_t popcount(const uint64_t *w, uint64_t bits)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < (bits + 63) / 64; i++)
		n += (uint64_t)__builtin_popcountll(w[i]);
	return n;
}

void gh_run(gh_fn fn, void *ctx, gh_result *r)
{
	zkp_cs cs;
	zkp_error err = { 0 };
	zkp_pce_builder *b = NULL;
	zkp_pce *pce = NULL;
	char path[] = "/tmp/zkpd-gadget-XXXXXX";

	gh_shape(fn, ctx, r);

	assert_int_equal(zkp_pce_builder_new(&b, r->inputs, r->aux), 0);
	zkp_cs_init_rows(&cs, r->inputs, builder_row, b);
	fn(&cs, ctx);
	if (zkp_cs_error(&cs))
		fail_msg("rows pass: %s", cs.error.msg);
	assert_int_equal(cs.rows, r->rows);
	assert_int_equal(cs.aux, r->aux);
	assert_int_equal(cs.inputs, r->inputs);
	zkp_cs_release(&cs);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	if (zkp_pce_builder_write(b, path, &err))
		fail_msg("write: %s", err.msg);
	zkp_pce_builder_free(b);
	if (zkp_pce_load(&pce, path, 0, &err))
		fail_msg("load: %s", err.msg);
	unlink(path);

	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	for (int m = 0; m < 3; m++)
		r->nnz[m] = d->nnz[m];
	r->a_aux = popcount(zkp_pce_density_a_aux(pce), r->aux);
	r->b_input = popcount(zkp_pce_density_b_input(pce), r->inputs);
	r->b_aux = popcount(zkp_pce_density_b_aux(pce), r->aux);

	r->w = calloc(r->inputs + r->aux + 1, sizeof(zkp_fr));
	assert_non_null(r->w);
	zkp_cs_init_witness(&cs, r->inputs, r->aux, r->w);
	fn(&cs, ctx);
	if (zkp_cs_error(&cs))
		fail_msg("witness pass: %s", cs.error.msg);
	assert_int_equal(cs.aux, r->aux);
	zkp_cs_release(&cs);

	r->pce = pce;
	r->check = gh_recheck(r);
}

int gh_recheck(gh_result *r)
{
	zkp_error err = { 0 };
	return zkp_pce_check(r->pce, r->w, &r->first_bad_row, NULL, &err);
}

void gh_result_release(gh_result *r)
{
	free(r->w);
	zkp_pce_free(r->pce);
	r->w = NULL;
	r->pce = NULL;
}
