/*
 * Proving keys (include/zkpd/groth16_io.h): bellman .params and snarkjs
 * .zkey through zkp_groth16_pk_load, with every point and subgroup check
 * and no native cache. The loader takes a path, so the input is handed to
 * it as a memory file. A key that loads has a usable verifying key: the
 * one a bellman .vk of the same bytes would give when the input is a
 * .params.
 */
#include <string.h>

#include "fuzz.h"
#include "zkpd/groth16_io.h"
#include "zkpd/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	zkp_log_set_level(ZKP_LOG_ERROR);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	zkp_groth16_pk pk;
	zkp_groth16_load_opts opts = {.flags = ZKP_GROTH16_NO_CACHE};
	zkp_error err = {0};

	zkp_groth16_pk_init(&pk);
	int rc = zkp_groth16_pk_load(&pk, fuzz_file(data, size), &opts, &err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err.code == rc && err.msg[0] != '\0');
		zkp_groth16_pk_release(&pk);
		return 0;
	}
	FUZZ_CHECK(pk.vk.n_ic >= 1 && pk.vk.ic != NULL);
	if (size < 4 || memcmp(data, "zkey", 4) != 0) {
		zkp_groth16_vk vk;
		zkp_groth16_vk_init(&vk);
		FUZZ_CHECK(zkp_groth16_vk_from_bellman(&vk, data, size, "fuzz.params", 0,
							&err) == 0);
		FUZZ_CHECK(zkp_groth16_vk_eq(&vk, &pk.vk));
		zkp_groth16_vk_release(&vk);
	}
	zkp_groth16_pk_release(&pk);
	return 0;
}
