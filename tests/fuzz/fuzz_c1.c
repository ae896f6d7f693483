/*
 * C1 files (include/zkpd/porep_c1.h) through zkp_porep_c1_parse, plain or
 * in the lotus-bench/Curio wrapper. A refusal carries its code and a
 * message and leaves no result. A C1 that parses has a published shape,
 * a partition count its proof version allows, and contiguous witness
 * challenges equal to its records; it is written back (zkp_porep_c1_write,
 * to a file under /dev/shm, else /tmp) and must read back to the same
 * values.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "zkpd/porep_c1.h"

static bool same(const zkp_porep_c1 *a, const zkp_porep_c1 *b)
{
	size_t n = (size_t)a->partitions * a->challenges;
	return !strcmp(a->registered_proof, b->registered_proof) &&
	       a->sector_bytes == b->sector_bytes && a->partitions == b->partitions &&
	       a->challenges == b->challenges && !memcmp(a->comm_r, b->comm_r, 32) &&
	       !memcmp(a->comm_d, b->comm_d, 32) && !memcmp(a->replica_id, b->replica_id, 32) &&
	       !memcmp(a->seed, b->seed, 32) && !memcmp(a->ticket, b->ticket, 32) &&
	       !memcmp(a->comm_c, b->comm_c, a->partitions * sizeof(zkp_fr)) &&
	       !memcmp(a->comm_r_last, b->comm_r_last, a->partitions * sizeof(zkp_fr)) &&
	       !memcmp(a->wit, b->wit, n * sizeof(*a->wit));
}

static void check(const zkp_porep_c1 *c1)
{
	static const unsigned counts[] = { 1, 10, 13, 126 };
	bool count_ok = false;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		count_ok |= c1->partitions == counts[i];
	FUZZ_CHECK(count_ok);
	FUZZ_CHECK(c1->challenges == c1->shape.challenges && c1->challenges > 0);
	FUZZ_CHECK(c1->shape.sector_bytes == c1->sector_bytes);
	FUZZ_CHECK(c1->wit && c1->ch && c1->comm_c && c1->comm_r_last);
	for (size_t j = 0; j < (size_t)c1->partitions * c1->challenges; j++) {
		FUZZ_CHECK(!memcmp(&c1->wit[j], &c1->ch[j].ch, sizeof(c1->wit[j])));
		FUZZ_CHECK(c1->ch[j].ch.node < c1->shape.nodes);
	}
	for (unsigned k = 0; k < c1->partitions; k++) {
		zkp_porep_witness w;
		zkp_porep_c1_witness(c1, k, &w);
		FUZZ_CHECK(w.challenges == &c1->wit[(size_t)k * c1->challenges]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	zkp_porep_c1 *c1 = (zkp_porep_c1 *)&path; /* must come back NULL on refusal */
	zkp_error err = { 0 };
	int rc = zkp_porep_c1_parse(&c1, data, size, &err);
	if (rc) {
		FUZZ_CHECK(c1 == NULL);
		FUZZ_CHECK(err.code == rc && err.msg[0]);
		FUZZ_CHECK(rc == ZKP_ERR_FORMAT || rc == ZKP_ERR_TRUNCATED ||
			   rc == ZKP_ERR_NOT_CANONICAL || rc == ZKP_ERR_MISMATCH ||
			   rc == ZKP_ERR_NOMEM);
		return 0;
	}
	check(c1);
	if (!path[0])
		snprintf(path, sizeof(path), "%s/zkpd-fuzz-c1-%d.json",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid());
	zkp_porep_c1 *back = NULL;
	FUZZ_CHECK(zkp_porep_c1_write(c1, path, c1->wrapper_sector_size != 0,
				      c1->wrapper_sector_num, &err) == 0);
	FUZZ_CHECK(zkp_porep_c1_load(&back, path, &err) == 0);
	unlink(path);
	FUZZ_CHECK(same(c1, back));
	FUZZ_CHECK(back->wrapper_sector_num == c1->wrapper_sector_num);
	zkp_porep_c1_free(back);
	zkp_porep_c1_free(c1);
	return 0;
}
