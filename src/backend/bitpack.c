/*
 * Packing and unpacking of 0/1-heavy Fr vectors (zkpd/bitpack.h). Both
 * passes split the words into ranges for the pool; the scan's per-word
 * counts become the exclusive prefix "before" in one serial pass over the
 * words (2 M of them for 2^27 values: a few milliseconds).
 */
#include <string.h>

#include "zkpd/bitpack.h"

/* Words per pool task: 4096 words are 262,144 values, 8 MiB of input. */
#define WORDS_PER_TASK 4096

struct words {
	uint64_t *before, *dense, *one;
};

static struct words words_of(void *buf, size_t n)
{
	size_t w = zkp_bitpack_words(n);
	uint64_t *p = buf;
	return (struct words){ p, p + w, p + 2 * w };
}

/* 1 when x is 0, 2 when it is 1 (ZKP_FR_ONE), 0 otherwise, without a
 * branch: a PoRep witness's zeros and ones come in no pattern a branch
 * predictor could learn, and a mispredicted branch a value cost the scan
 * three times a memcpy's time. */
static uint64_t fr_kind(const zkp_fr *x)
{
	uint64_t z = x->l[0] | x->l[1] | x->l[2] | x->l[3];
	uint64_t o = (x->l[0] ^ ZKP_FR_ONE.l[0]) | (x->l[1] ^ ZKP_FR_ONE.l[1]) |
		     (x->l[2] ^ ZKP_FR_ONE.l[2]) | (x->l[3] ^ ZKP_FR_ONE.l[3]);
	return (uint64_t)(z == 0) | (uint64_t)(o == 0) << 1;
}

struct scan_ctx {
	struct words w;
	const zkp_fr *v;
	size_t n;
};

/* Words [begin, end): their masks, and each word's dense count in before
 * (the prefix comes after). */
static void scan_task(void *arg, size_t begin, size_t end)
{
	struct scan_ctx *c = arg;
	for (size_t wi = begin; wi < end; wi++) {
		size_t i0 = wi * 64, i1 = i0 + 64 < c->n ? i0 + 64 : c->n;
		uint64_t dense = 0, one = 0;
		for (size_t i = i0; i < i1; i++) {
			uint64_t k = fr_kind(&c->v[i]);
			one |= (k >> 1) << (i - i0);
			dense |= (uint64_t)(k == 0) << (i - i0);
		}
		c->w.dense[wi] = dense;
		c->w.one[wi] = one;
		c->w.before[wi] = (uint64_t)__builtin_popcountll(dense);
	}
}

size_t zkp_bitpack_scan(void *buf, const zkp_fr *v, size_t n, zkp_pool *pool)
{
	struct scan_ctx c = { words_of(buf, n), v, n };
	size_t words = zkp_bitpack_words(n);
	zkp_pool_run(pool, words, WORDS_PER_TASK, scan_task, &c);
	uint64_t total = 0;
	for (size_t wi = 0; wi < words; wi++) {
		uint64_t k = c.w.before[wi];
		c.w.before[wi] = total;
		total += k;
	}
	return (size_t)total;
}

struct gather_ctx {
	struct words w;
	const zkp_fr *v;
	zkp_fr *out;
};

static void gather_task(void *arg, size_t begin, size_t end)
{
	struct gather_ctx *c = arg;
	for (size_t wi = begin; wi < end; wi++) {
		zkp_fr *to = c->out + c->w.before[wi];
		for (uint64_t m = c->w.dense[wi]; m; m &= m - 1)
			*to++ = c->v[wi * 64 + (size_t)__builtin_ctzll(m)];
	}
}

void zkp_bitpack_gather(void *buf, const zkp_fr *v, size_t n, zkp_pool *pool)
{
	struct gather_ctx c = { words_of(buf, n), v,
				(zkp_fr *)((char *)buf + zkp_bitpack_dense_off(n)) };
	zkp_pool_run(pool, zkp_bitpack_words(n), WORDS_PER_TASK, gather_task, &c);
}

void zkp_bitpack_unpack(zkp_fr *out, const void *buf, size_t n, size_t begin, size_t end)
{
	struct words w = words_of((void *)buf, n);
	const zkp_fr *vals = (const zkp_fr *)((const char *)buf + zkp_bitpack_dense_off(n));
	for (size_t i = begin; i < end; i++) {
		size_t wi = i / 64;
		uint64_t bit = UINT64_C(1) << (i % 64);
		if (w.dense[wi] & bit)
			out[i - begin] =
				vals[w.before[wi] + (size_t)__builtin_popcountll(w.dense[wi] & (bit - 1))];
		else if (w.one[wi] & bit)
			out[i - begin] = ZKP_FR_ONE;
		else
			memset(&out[i - begin], 0, sizeof(zkp_fr));
	}
}
