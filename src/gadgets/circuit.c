/*
 * Running a circuit function through its passes (include/zkpd/circuit.h).
 */
#include <string.h>

#include "zkpd/circuit.h"

static int builder_row(void *ctx, const zkp_pce_term *a, size_t na, const zkp_pce_term *b,
		       size_t nb, const zkp_pce_term *c, size_t nc, zkp_error *err)
{
	return zkp_pce_builder_add(ctx, a, na, b, nb, c, nc, err);
}

/* Copies a finished pass's error into err and returns it. */
static int finish(zkp_cs *cs, const char *pass, zkp_error *err)
{
	int rc = zkp_cs_error(cs);
	if (rc)
		zkp_error_set(err, rc, "%s pass: %s", pass, zkp_error_text(&cs->error, rc));
	zkp_cs_release(cs);
	return rc;
}

int zkp_circuit_shape(zkp_circuit_fn fn, void *ctx, zkp_circuit_dims *ret, zkp_error *err)
{
	zkp_cs cs;
	zkp_cs_init_shape(&cs);
	fn(&cs, ctx);
	ret->inputs = cs.inputs;
	ret->aux = cs.aux;
	ret->rows = cs.rows;
	return finish(&cs, "shape", err);
}

/* A ROWS pass into b; checks it met the dimensions of the shape pass. */
static int rows_pass(zkp_circuit_fn fn, void *ctx, const zkp_circuit_dims *d,
		     zkp_pce_builder *b, zkp_error *err)
{
	zkp_cs cs;
	zkp_cs_init_rows(&cs, d->inputs, builder_row, b);
	fn(&cs, ctx);
	if (!zkp_cs_error(&cs) && (cs.inputs != d->inputs || cs.aux != d->aux || cs.rows != d->rows))
		zkp_cs_fail(&cs, ZKP_ERR_MISMATCH,
			    "%llu inputs, %llu aux, %llu rows; the shape pass had %llu, %llu, %llu",
			    (unsigned long long)cs.inputs, (unsigned long long)cs.aux,
			    (unsigned long long)cs.rows, (unsigned long long)d->inputs,
			    (unsigned long long)d->aux, (unsigned long long)d->rows);
	return finish(&cs, "rows", err);
}

static int counted(zkp_circuit_fn fn, void *ctx, zkp_pce_builder **b, zkp_error *err)
{
	zkp_circuit_dims d;
	int rc = zkp_circuit_shape(fn, ctx, &d, err);
	if (rc)
		return rc;
	if ((rc = zkp_pce_builder_new_counting(b, d.inputs, d.aux)))
		return zkp_error_set(err, rc, "a counting builder for %llu inputs and %llu aux",
				     (unsigned long long)d.inputs, (unsigned long long)d.aux);
	return rows_pass(fn, ctx, &d, *b, err);
}

int zkp_circuit_count(zkp_circuit_fn fn, void *ctx, zkp_pce_builder_stats *ret, zkp_error *err)
{
	zkp_pce_builder *b = NULL;
	int rc = counted(fn, ctx, &b, err);
	if (!rc)
		zkp_pce_builder_get_stats(b, ret);
	zkp_pce_builder_free(b);
	return rc;
}

int zkp_circuit_write(zkp_circuit_fn fn, void *ctx, const char *path, const uint8_t *label,
		      zkp_pce_builder_stats *stats, zkp_error *err)
{
	zkp_pce_builder *b = NULL;
	int rc = counted(fn, ctx, &b, err);
	if (rc)
		goto out;
	zkp_pce_builder_stats st;
	zkp_pce_builder_get_stats(b, &st);
	if (label && (rc = zkp_pce_builder_set_label(b, label)))
		goto out;
	if ((rc = zkp_pce_builder_stream_begin(b, path, err)))
		goto out;
	zkp_circuit_dims d = { st.n_inputs, st.n_aux, st.rows };
	if ((rc = rows_pass(fn, ctx, &d, b, err)))
		goto out;
	if ((rc = zkp_pce_builder_write(b, path, err)))
		goto out;
	if (stats)
		*stats = st;
out:
	zkp_pce_builder_free(b);
	return rc;
}

int zkp_circuit_witness(zkp_circuit_fn fn, void *ctx, const zkp_circuit_dims *dims, zkp_fr *w,
			zkp_error *err)
{
	zkp_cs cs;
	zkp_cs_init_witness(&cs, dims->inputs, dims->aux, w);
	fn(&cs, ctx);
	if (!zkp_cs_error(&cs) && (cs.inputs != dims->inputs || cs.aux != dims->aux))
		zkp_cs_fail(&cs, ZKP_ERR_MISMATCH, "%llu inputs and %llu aux; the shape has %llu and %llu",
			    (unsigned long long)cs.inputs, (unsigned long long)cs.aux,
			    (unsigned long long)dims->inputs, (unsigned long long)dims->aux);
	return finish(&cs, "witness", err);
}
