/*
 * Witnesses (include/zkpd/witness.h): .wtns and raw assignments through
 * zkp_witness_decode. On success value 0 is ONE, and a raw input decodes to
 * exactly its own bytes, 32 per value.
 */
#include <string.h>

#include "fuzz.h"
#include "zkpd/witness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	zkp_fr *w = NULL;
	uint64_t count = 0;
	zkp_error err = {0};

	int rc = zkp_witness_decode(data, size, &w, &count, &err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err.code == rc && err.msg[0] != '\0');
		FUZZ_CHECK(w == NULL && count == 0);
		return 0;
	}
	FUZZ_CHECK(w != NULL && count > 0);
	FUZZ_CHECK(zkp_fr_is_one(&w[0]));
	if (size < 4 || memcmp(data, "wtns", 4) != 0) {
		FUZZ_CHECK(count * ZKP_FR_BYTES == size);
		for (uint64_t i = 0; i < count; i++) {
			uint8_t le[ZKP_FR_BYTES];
			zkp_fr_to_le(le, &w[i]);
			FUZZ_CHECK(memcmp(le, data + i * ZKP_FR_BYTES, ZKP_FR_BYTES) == 0);
		}
	}
	free(w);
	return 0;
}
