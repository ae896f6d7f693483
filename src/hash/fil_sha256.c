/*
 * Filecoin's trimmed SHA-256 through OpenSSL's one-shot EVP digest.
 */
#include <string.h>

#include <openssl/evp.h>

#include "zkpd/error.h"
#include "zkpd/fil_sha256.h"

int zkp_fil_sha256_trim(uint8_t out[32], const void *data, size_t len)
{
	unsigned n = 0;
	if (!EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) || n != 32)
		return ZKP_ERR_UNSUPPORTED;
	out[31] &= 0x3f;
	return 0;
}

int zkp_fil_sha256_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32])
{
	uint8_t buf[64];
	memcpy(buf, left, 32);
	memcpy(buf + 32, right, 32);
	return zkp_fil_sha256_trim(out, buf, sizeof(buf));
}
