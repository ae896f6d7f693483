/*
 * Pre-compiled circuits (include/zkpd/pce.h, docs/formats.md) through
 * zkp_pce_load. Each input is loaded twice: as it is, and after the
 * checksums and digests it would need to pass have been recomputed (file
 * size, each section's SHA-256, the circuit digest, the header checksum),
 * so mutations reach the structural checks behind them. A circuit that
 * loads must evaluate without fault: zkp_pce_eval and zkp_pce_check run on
 * an all-ONE assignment when the dimensions are small.
 */
#include <stdbool.h>
#include <string.h>

#include <openssl/sha.h>

#include "fuzz.h"
#include "zkpd/pce.h"

#define HEADER_BYTES 256
#define ENTRY_BYTES 64
#define N_SECTIONS 24
#define TABLE_END (HEADER_BYTES + N_SECTIONS * ENTRY_BYTES)
#define OFF_FILE_SIZE 56
#define OFF_MATRICES 64
#define OFF_DIGEST 160
#define OFF_HEADER_SHA 192
#define EVAL_MAX (1u << 14)

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Makes f's checksums and digests match its contents (docs/formats.md:
 * "Circuit digest" and "Header"). */
static void fix_sums(uint8_t *f, size_t size)
{
	uint8_t buf[52 + N_SECTIONS * 44];

	put_u64(f + OFF_FILE_SIZE, size);
	memcpy(buf, f + 16, 28); /* n_inputs, n_aux, n_constraints, domain_log2 */
	for (int m = 0; m < 3; m++)
		memcpy(buf + 28 + 8 * m, f + OFF_MATRICES + 32 * m, 8);
	for (int i = 0; i < N_SECTIONS; i++) {
		uint8_t *e = f + HEADER_BYTES + ENTRY_BYTES * i, *d = buf + 52 + 44 * i;
		uint64_t off = get_u64(e + 8), len = get_u64(e + 16);
		if (off <= size && len <= size - off)
			SHA256(f + off, len, e + 24);
		memcpy(d, e, 4);
		memcpy(d + 4, e + 16, 8);
		memcpy(d + 12, e + 24, 32);
	}
	SHA256(buf, sizeof(buf), f + OFF_DIGEST);
	memset(f + OFF_HEADER_SHA, 0, 32);
	uint8_t sum[32];
	SHA256(f, TABLE_END, sum);
	memcpy(f + OFF_HEADER_SHA, sum, 32);
}

static void check_loaded(const zkp_pce *pce)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	FUZZ_CHECK(d->n_inputs >= 1);
	FUZZ_CHECK(d->domain_log2 <= 28);
	FUZZ_CHECK((1ull << d->domain_log2) >= d->n_constraints + d->n_inputs);
	for (int m = 0; m < 3; m++)
		FUZZ_CHECK(zkp_pce_matrix(pce, (enum zkp_pce_matrix)m)->nnz == d->nnz[m]);
	if (d->n_inputs + d->n_aux > EVAL_MAX || d->n_constraints > EVAL_MAX)
		return;

	size_t nw = (size_t)(d->n_inputs + d->n_aux), nr = (size_t)d->n_constraints;
	zkp_fr *w = malloc(sizeof(*w) * nw), *abc = malloc(sizeof(*abc) * (3 * nr + 1));
	FUZZ_CHECK(w && abc);
	for (size_t i = 0; i < nw; i++)
		zkp_fr_set_one(&w[i]);
	zkp_pce_eval(pce, w, abc, abc + nr, abc + 2 * nr, NULL);
	uint64_t row = 0;
	zkp_error err = {0};
	int rc = zkp_pce_check(pce, w, &row, NULL, &err);
	FUZZ_CHECK(rc == 0 || (rc == ZKP_ERR_UNSATISFIED && row < nr));
	free(w);
	free(abc);
}

static void load(const uint8_t *data, size_t size)
{
	zkp_pce *pce = NULL;
	zkp_error err = {0};

	int rc = zkp_pce_load(&pce, fuzz_file(data, size), 0, &err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err.code == rc && err.msg[0] != '\0' && pce == NULL);
		return;
	}
	check_loaded(pce);
	zkp_pce_free(pce);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	load(data, size);
	if (size < TABLE_END)
		return 0;
	uint8_t *f = malloc(size);
	FUZZ_CHECK(f != NULL);
	memcpy(f, data, size);
	fix_sums(f, size);
	load(f, size);
	free(f);
	return 0;
}
