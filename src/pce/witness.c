/*
 * Witness decoding (.wtns and raw Fr arrays), plus the circom container and
 * prime checks that r1cs.c shares (circom_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zkpd/file.h"
#include "zkpd/witness.h"
#include "circom_int.h"

/* ---- the container ---- */

/* "'r1cs'" when printable, else the four bytes in hex. */
static void describe_magic(char out[32], const uint8_t *m)
{
	int printable = 1;
	for (int i = 0; i < 4; i++)
		if (m[i] < 0x20 || m[i] > 0x7e || m[i] == '\'')
			printable = 0;
	if (printable)
		snprintf(out, 32, "'%c%c%c%c'", m[0], m[1], m[2], m[3]);
	else
		snprintf(out, 32, "%02x %02x %02x %02x", m[0], m[1], m[2], m[3]);
}

int circom_read_sections(const uint8_t *buf, size_t len, const char *name,
			 const char magic[4], uint32_t version,
			 circom_section secs[CIRCOM_MAX_SECTION_ID + 1], zkp_error *err)
{
	memset(secs, 0, sizeof(*secs) * (CIRCOM_MAX_SECTION_ID + 1));
	size_t head = len < 4 ? len : 4;
	if (memcmp(buf, magic, head) != 0) {
		char found[32];
		uint8_t m[4] = { 0 };
		memcpy(m, buf, head);
		describe_magic(found, m);
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: offset 0: magic is %s, expected '%.4s'", name, found,
				     magic);
	}
	if (len < 8)
		return zkp_error_set(err, ZKP_ERR_TRUNCATED,
				     "%s: ends at offset %zu inside the 12-byte file header "
				     "(magic, version, section count)",
				     name, len);
	uint32_t v = circom_u32(buf + 4);
	if (v != version)
		return zkp_error_set(err, ZKP_ERR_VERSION,
				     "%s: offset 4: version %" PRIu32 ", expected %" PRIu32, name,
				     v, version);
	if (len < 12)
		return zkp_error_set(err, ZKP_ERR_TRUNCATED,
				     "%s: ends at offset %zu inside the 12-byte file header "
				     "(section count)",
				     name, len);
	uint32_t nsec = circom_u32(buf + 8);
	size_t pos = 12;
	for (uint32_t i = 0; i < nsec; i++) {
		if (len - pos < 12)
			return zkp_error_set(err, ZKP_ERR_TRUNCATED,
					     "%s: ends at offset %zu inside the 12-byte header of "
					     "section %" PRIu32 " of %" PRIu32 " (at offset %zu)",
					     name, len, i + 1, nsec, pos);
		uint32_t id = circom_u32(buf + pos);
		uint64_t size = circom_u64(buf + pos + 4);
		size_t body = pos + 12;
		if (size > len - body)
			return zkp_error_set(err, ZKP_ERR_TRUNCATED,
					     "%s: section %" PRIu32 " of %" PRIu32 " (id %" PRIu32
					     ", body at offset %zu) declares %" PRIu64
					     " bytes, but the file ends at offset %zu",
					     name, i + 1, nsec, id, body, size, len);
		if (id >= 1 && id <= CIRCOM_MAX_SECTION_ID) {
			if (secs[id].present)
				return zkp_error_set(err, ZKP_ERR_FORMAT,
						     "%s: offset %zu: second section with id %" PRIu32
						     " (the first is at offset %zu)",
						     name, pos, id, secs[id].offset - 12);
			secs[id].present = true;
			secs[id].offset = body;
			secs[id].size = (size_t)size;
		}
		pos = body + (size_t)size;
	}
	if (pos != len)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: %zu bytes after the last of %" PRIu32
				     " sections (from offset %zu)",
				     name, len - pos, nsec, pos);
	return 0;
}

/* ---- naming primes ---- */

/* Decimal digits of the little-endian integer le[0..n) (n <= 64). */
static void le_to_decimal(char *out, size_t outlen, const uint8_t *le, size_t n)
{
	uint8_t be[64];
	char digits[160];
	size_t nd = 0, start = 0;
	for (size_t i = 0; i < n; i++)
		be[i] = le[n - 1 - i];
	while (start < n && be[start] == 0)
		start++;
	/* Schoolbook division by 10, most significant byte first. */
	while (start < n) {
		unsigned rem = 0;
		for (size_t i = start; i < n; i++) {
			unsigned cur = rem << 8 | be[i];
			be[i] = (uint8_t)(cur / 10);
			rem = cur % 10;
		}
		digits[nd++] = (char)('0' + rem);
		while (start < n && be[start] == 0)
			start++;
	}
	if (nd == 0)
		digits[nd++] = '0';
	size_t k = 0;
	for (; k < nd && k + 1 < outlen; k++)
		out[k] = digits[nd - 1 - k];
	out[k] = 0;
}

static const struct {
	const char *decimal;
	const char *what;
} known_primes[] = {
	{ "21888242871839275222246405745257275088548364400416034343698204186575808495617",
	  "BN254's scalar field r, circom's default --prime bn128" },
	{ "18446744069414584321", "the Goldilocks prime 2^64 - 2^32 + 1" },
};

static bool is_le_limbs(const uint8_t *le, const uint64_t *limbs, size_t nlimbs)
{
	for (size_t i = 0; i < nlimbs * 8; i++)
		if (le[i] != (uint8_t)(limbs[i / 8] >> (8 * (i % 8))))
			return false;
	return true;
}

/* "21888...617 (BN254's scalar field r, ...)" or just the digits. */
static void describe_prime(char *out, size_t outlen, const uint8_t *le, size_t n)
{
	char dec[160];
	if (n > 64) {
		snprintf(out, outlen, "of %zu bytes", n);
		return;
	}
	le_to_decimal(dec, sizeof(dec), le, n);
	if (n == ZKP_FP_BYTES && is_le_limbs(le, ZKP_FP_MODULUS, ZKP_FP_LIMBS)) {
		snprintf(out, outlen, "%s (BLS12-381's base field p, not its scalar field r)",
			 dec);
		return;
	}
	for (size_t i = 0; i < sizeof(known_primes) / sizeof(known_primes[0]); i++)
		if (strcmp(dec, known_primes[i].decimal) == 0) {
			snprintf(out, outlen, "%s (%s)", dec, known_primes[i].what);
			return;
		}
	snprintf(out, outlen, "%s", dec);
}

#define BLS12_381_R_DECIMAL \
	"52435875175126190479447740508185965837690552500527637822603658699938581184513"

int circom_check_prime(const uint8_t *buf, const circom_section *sec, const char *name,
		       zkp_error *err)
{
	if (sec->size < 4)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: header section (id 1) at offset %zu is %zu bytes, too "
				     "short for the field size",
				     name, sec->offset, sec->size);
	const uint8_t *p = buf + sec->offset;
	uint32_t n8 = circom_u32(p);
	if (n8 > sec->size - 4)
		return zkp_error_set(err, n8 == ZKP_FR_BYTES ? ZKP_ERR_FORMAT : ZKP_ERR_WRONG_PRIME,
				     "%s: offset %zu: field size %" PRIu32 " bytes, expected %d "
				     "(BLS12-381's r), and the header section is too short to "
				     "hold the prime",
				     name, sec->offset, n8, ZKP_FR_BYTES);
	if (n8 == ZKP_FR_BYTES && is_le_limbs(p + 4, ZKP_FR_MODULUS, ZKP_FR_LIMBS))
		return 0;
	char desc[320];
	describe_prime(desc, sizeof(desc), p + 4, n8);
	if (n8 != ZKP_FR_BYTES)
		return zkp_error_set(err, ZKP_ERR_WRONG_PRIME,
				     "%s: offset %zu: field size %" PRIu32 " bytes, prime %s; "
				     "zkpd needs 32 bytes and BLS12-381's scalar field r = "
				     BLS12_381_R_DECIMAL " (circom --prime bls12381)",
				     name, sec->offset, n8, desc);
	return zkp_error_set(err, ZKP_ERR_WRONG_PRIME,
			     "%s: offset %zu: prime %s is not BLS12-381's scalar field r = "
			     BLS12_381_R_DECIMAL "; recompile with circom --prime bls12381",
			     name, sec->offset + 4, desc);
}

/* ---- values ---- */

static int decode_values(const uint8_t *p, uint64_t count, size_t base, const char *name,
			 zkp_fr **ret, zkp_error *err)
{
	if (count > SIZE_MAX / sizeof(zkp_fr))
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: %" PRIu64 " values do not fit memory",
				     name, count);
	zkp_fr *w = malloc((size_t)(count ? count : 1) * sizeof(zkp_fr));
	if (!w)
		return zkp_error_set(err, ZKP_ERR_NOMEM,
				     "%s: cannot allocate %" PRIu64 " values (%" PRIu64 " bytes)",
				     name, count, count * (uint64_t)sizeof(zkp_fr));
	for (uint64_t i = 0; i < count; i++) {
		if (zkp_fr_from_le(&w[i], p + i * ZKP_FR_BYTES) != 0) {
			free(w);
			return zkp_error_set(err, ZKP_ERR_NOT_CANONICAL,
					     "%s: value %" PRIu64 " (offset %zu) is not below r",
					     name, i, base + (size_t)i * ZKP_FR_BYTES);
		}
	}
	if (!zkp_fr_is_one(&w[0])) {
		free(w);
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: offset %zu: value 0 is not 1; a full assignment "
				     "starts with the constant ONE",
				     name, base);
	}
	*ret = w;
	return 0;
}

static int decode_raw(const uint8_t *buf, size_t len, const char *name, zkp_fr **ret,
		      uint64_t *count, zkp_error *err)
{
	if (len == 0)
		return zkp_error_set(err, ZKP_ERR_TRUNCATED,
				     "%s: empty; expected a .wtns file or 32-byte values "
				     "starting with ONE",
				     name);
	if (len % ZKP_FR_BYTES != 0)
		return zkp_error_set(err, ZKP_ERR_TRUNCATED,
				     "%s: raw witness ends at offset %zu, %zu bytes into value "
				     "%zu; raw values are %d bytes each",
				     name, len, len % ZKP_FR_BYTES, len / ZKP_FR_BYTES,
				     ZKP_FR_BYTES);
	int rc = decode_values(buf, len / ZKP_FR_BYTES, 0, name, ret, err);
	if (rc == 0)
		*count = len / ZKP_FR_BYTES;
	return rc;
}

static int decode_wtns(const uint8_t *buf, size_t len, const char *name, zkp_fr **ret,
		       uint64_t *count, zkp_error *err)
{
	circom_section secs[CIRCOM_MAX_SECTION_ID + 1];
	int rc = circom_read_sections(buf, len, name, "wtns", 2, secs, err);
	if (rc)
		return rc;
	if (!secs[1].present)
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%s: no header section (id 1)", name);
	rc = circom_check_prime(buf, &secs[1], name, err);
	if (rc)
		return rc;
	const size_t hdr = 4 + ZKP_FR_BYTES + 4;
	if (secs[1].size != hdr)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: header section (id 1) at offset %zu is %zu bytes, "
				     "expected %zu",
				     name, secs[1].offset, secs[1].size, hdr);
	uint32_t n = circom_u32(buf + secs[1].offset + 4 + ZKP_FR_BYTES);
	if (n == 0)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: offset %zu: nWitness is 0; expected at least ONE", name,
				     secs[1].offset + 4 + ZKP_FR_BYTES);
	if (!secs[2].present)
		return zkp_error_set(err, ZKP_ERR_FORMAT, "%s: no values section (id 2)", name);
	if (secs[2].size != (uint64_t)n * ZKP_FR_BYTES)
		return zkp_error_set(err, ZKP_ERR_FORMAT,
				     "%s: values section (id 2) at offset %zu is %zu bytes; "
				     "nWitness %" PRIu32 " needs %" PRIu64,
				     name, secs[2].offset, secs[2].size, n,
				     (uint64_t)n * ZKP_FR_BYTES);
	rc = decode_values(buf + secs[2].offset, n, secs[2].offset, name, ret, err);
	if (rc == 0)
		*count = n;
	return rc;
}

static int decode_named(const uint8_t *buf, size_t len, const char *name, zkp_fr **ret,
			uint64_t *count, zkp_error *err)
{
	*ret = NULL;
	*count = 0;
	/* Any prefix of "wtns" is a cut .wtns file: a raw assignment starts
	 * with ONE (01 00 00 00). */
	size_t head = len < 4 ? len : 4;
	if (len > 0 && memcmp(buf, "wtns", head) == 0)
		return decode_wtns(buf, len, name, ret, count, err);
	return decode_raw(buf, len, name, ret, count, err);
}

int zkp_witness_decode(const uint8_t *buf, size_t len, zkp_fr **ret, uint64_t *count,
		       zkp_error *err)
{
	return decode_named(buf, len, "witness", ret, count, err);
}

int zkp_witness_load_fd(int fd, const char *name, zkp_fr **ret, uint64_t *count,
			zkp_error *err)
{
	*ret = NULL;
	*count = 0;
	uint8_t *buf;
	size_t len;
	int rc = zkp_file_read_fd(fd, name, &buf, &len, err);
	if (rc)
		return rc;
	rc = decode_named(buf, len, name, ret, count, err);
	free(buf);
	return rc;
}

int zkp_witness_load(const char *path, zkp_fr **ret, uint64_t *count, zkp_error *err)
{
	*ret = NULL;
	*count = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	int rc = zkp_witness_load_fd(fd, path, ret, count, err);
	close(fd);
	return rc;
}
