/*
 * circom .r1cs (include/zkpd/r1cs.h) from memory: zkp_r1cs_open_buffer,
 * then a walk over every constraint and a build into a pce builder. Every
 * term the walk hands out names a wire below nWires, and the walk's totals
 * equal the terms it handed out.
 */
#include "fuzz.h"
#include "zkpd/r1cs.h"

struct walk {
	uint32_t n_wires;
	uint64_t rows, terms[3];
};

static int on_constraint(void *ctx, uint64_t row, const zkp_r1cs_lc lc[3], zkp_error *err)
{
	struct walk *w = ctx;
	(void)err;
	FUZZ_CHECK(row == w->rows);
	w->rows++;
	for (int m = 0; m < 3; m++) {
		for (size_t i = 0; i < lc[m].n; i++)
			FUZZ_CHECK(lc[m].terms[i].col < w->n_wires);
		w->terms[m] += lc[m].n;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	zkp_r1cs *r = NULL;
	zkp_pce_builder *b = NULL;
	zkp_error err = {0};

	int rc = zkp_r1cs_open_buffer(&r, data, size, "fuzz.r1cs", &err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err.code == rc && err.msg[0] != '\0');
		return 0;
	}
	const zkp_r1cs_info *info = zkp_r1cs_get_info(r);
	FUZZ_CHECK(info->field_bytes == 32);
	FUZZ_CHECK(info->n_inputs + info->n_aux == info->n_wires);
	FUZZ_CHECK(info->n_labels >= info->n_wires);

	struct walk w = {.n_wires = info->n_wires};
	uint64_t nnz[3] = {0};
	rc = zkp_r1cs_for_each(r, on_constraint, &w, nnz, &err);
	if (rc == 0) {
		FUZZ_CHECK(w.rows == info->n_constraints);
		for (int m = 0; m < 3; m++)
			FUZZ_CHECK(nnz[m] == w.terms[m]);
		rc = zkp_r1cs_build(r, &b, &err);
		if (rc == 0)
			FUZZ_CHECK(zkp_pce_builder_rows(b) == info->n_constraints);
		else
			FUZZ_CHECK(rc < 0 && err.code == rc);
	} else {
		FUZZ_CHECK(rc < 0 && err.code == rc && err.msg[0] != '\0');
	}
	zkp_pce_builder_free(b);
	zkp_r1cs_free(r);
	return 0;
}
