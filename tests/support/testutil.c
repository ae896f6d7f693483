#include "testutil.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static uint64_t s[4];

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t tu_seed(void)
{
	uint64_t seed = 0;
	const char *env = getenv("ZKPD_TEST_SEED");
	if (env && *env) {
		seed = strtoull(env, NULL, 0);
	} else {
		FILE *f = fopen("/dev/urandom", "rb");
		if (!f || fread(&seed, sizeof(seed), 1, f) != 1) {
			fprintf(stderr, "cannot read /dev/urandom\n");
			exit(1);
		}
		fclose(f);
	}
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		s[i] = splitmix(&x);
	fprintf(stderr, "seed: %" PRIu64 " (replay with ZKPD_TEST_SEED=%" PRIu64 ")\n",
		seed, seed);
	return seed;
}

uint64_t tu_rand64(void)
{
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

void tu_rand_bytes(void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		uint64_t r = tu_rand64();
		size_t k = n < 8 ? n : 8;
		memcpy(p, &r, k);
		p += k;
		n -= k;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int tu_hex_to_bytes(uint8_t *out, size_t outlen, const char *hex)
{
	if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X'))
		hex += 2;
	size_t digits = strlen(hex);
	size_t nbytes = (digits + 1) / 2;
	if (nbytes > outlen)
		return -1;
	memset(out, 0, outlen);
	uint8_t *p = out + outlen - nbytes;
	size_t i = 0;
	if (digits & 1) {
		int v = hexval(hex[0]);
		if (v < 0)
			return -1;
		*p++ = (uint8_t)v;
		i = 1;
	}
	for (; i < digits; i += 2) {
		int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		*p++ = (uint8_t)(hi << 4 | lo);
	}
	return (int)nbytes;
}

uint8_t *tu_hex_alloc(const char *hex, size_t *len)
{
	if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X'))
		hex += 2;
	size_t n = (strlen(hex) + 1) / 2;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf || tu_hex_to_bytes(buf, n, hex) < 0) {
		fprintf(stderr, "bad hex: %s\n", hex);
		exit(1);
	}
	*len = n;
	return buf;
}

void tu_mpz_from_limbs(mpz_t z, const uint64_t *l, size_t n)
{
	mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l);
}

void tu_limbs_from_mpz(uint64_t *l, size_t n, const mpz_t z)
{
	memset(l, 0, n * sizeof(uint64_t));
	size_t count = 0;
	if (mpz_sizeinbase(z, 2) > 64 * n) {
		fprintf(stderr, "value does not fit in %zu limbs\n", n);
		exit(1);
	}
	mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, z);
}

json_t *tu_vectors(void)
{
	static json_t *root;
	if (root)
		return root;
	json_error_t err;
	const char *path = ZKPD_VECTORS_DIR "/bls12_381_vectors.json";
	root = json_load_file(path, 0, &err);
	if (!root) {
		fprintf(stderr, "%s:%d: %s\n", path, err.line, err.text);
		exit(1);
	}
	return root;
}

uint8_t *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: short read\n", path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

uint8_t *tu_read_vector_file(const char *name, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", ZKPD_VECTORS_DIR, name);
	return tu_read_file(path, len);
}

bool tu_files_equal(const char *a, const char *b, size_t *at)
{
	size_t na, nb, i = 0;
	uint8_t *x = tu_read_file(a, &na), *y = tu_read_file(b, &nb);
	while (i < na && i < nb && x[i] == y[i])
		i++;
	bool same = na == nb && i == na;
	if (at)
		*at = i;
	free(x);
	free(y);
	return same;
}
