/*
 * Test helpers: growable byte buffers and the circom binary container
 * (magic, version, section table; docs/formats.md, 'The container'), so the
 * .r1cs and .wtns tests can write their own files byte by byte.
 */
#ifndef ZKPD_TEST_CIRCOM_BYTES_H
#define ZKPD_TEST_CIRCOM_BYTES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/ff.h"

typedef struct {
	uint8_t *p;
	size_t n, cap;
} bytes;

static void b_put(bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void b_u32(bytes *b, uint32_t v)
{
	uint8_t x[4];
	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	b_put(b, x, 4);
}

static void b_u64(bytes *b, uint64_t v)
{
	b_u32(b, (uint32_t)v);
	b_u32(b, (uint32_t)(v >> 32));
}

static void b_limbs(bytes *b, const uint64_t *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b_u64(b, l[i]);
}

/* Canonical little-endian bytes of a (Montgomery) Fr value. */
static void b_fr(bytes *b, const zkp_fr *v)
{
	uint8_t x[ZKP_FR_BYTES];
	zkp_fr_to_le(x, v);
	b_put(b, x, sizeof(x));
}

static void b_free(bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static const uint64_t BN254_R[4] = {
	0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029,
};
#define BN254_R_DECIMAL \
	"21888242871839275222246405745257275088548364400416034343698204186575808495617"

typedef struct {
	uint32_t id;
	const bytes *body;
	uint64_t size_delta; /* added to the declared size (wraps) */
} csec;

/* magic, version, count, then each section in the order given. */
static void circom_file(bytes *out, const char magic[4], uint32_t version, const csec *s,
			size_t n)
{
	b_put(out, magic, 4);
	b_u32(out, version);
	b_u32(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		b_u32(out, s[i].id);
		b_u64(out, s[i].body->n + s[i].size_delta);
		b_put(out, s[i].body->p, s[i].body->n);
	}
}

/* A random Fr value (Montgomery). */
/* Writes buf to a fresh temporary file; returns its malloc'd path. */
static char *write_temp(const void *buf, size_t n, const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	char *path = malloc(4096);
	if (!path)
		abort();
	snprintf(path, 4096, "%s/zkpd-test-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));
	if (fd < 0)
		abort();
	if (n && write(fd, buf, n) != (ssize_t)n)
		abort();
	close(fd);
	return path;
}

#endif
