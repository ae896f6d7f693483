/*
 * Verifying keys (include/zkpd/groth16_io.h): zkp_groth16_vk_from_bellman
 * on the bytes in memory (bellman .vk or the head of a .params), and
 * zkp_groth16_vk_load on the same bytes as a file, which also takes
 * snarkjs .zkey (sections 1-3) and verification_key.json. When both accept
 * the input they must agree.
 */
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
	zkp_groth16_vk mem, file;
	zkp_error err = {0};

	zkp_groth16_vk_init(&mem);
	zkp_groth16_vk_init(&file);
	int rc_mem = zkp_groth16_vk_from_bellman(&mem, data, size, "fuzz.vk", 0, &err);
	if (rc_mem)
		FUZZ_CHECK(rc_mem < 0 && err.code == rc_mem && err.msg[0] != '\0');
	else
		FUZZ_CHECK(mem.n_ic >= 1 && mem.ic != NULL && mem.has_g1_extras);
	int rc_file = zkp_groth16_vk_load(&file, fuzz_file(data, size), 0, &err);
	if (rc_file)
		FUZZ_CHECK(rc_file < 0 && err.code == rc_file && err.msg[0] != '\0');
	else
		FUZZ_CHECK(file.n_ic >= 1 && file.ic != NULL);
	if (rc_mem == 0 && rc_file == 0)
		FUZZ_CHECK(zkp_groth16_vk_eq(&mem, &file));
	zkp_groth16_vk_release(&mem);
	zkp_groth16_vk_release(&file);
	return 0;
}
