/*
 * Frames and envelopes. The reader keeps the received bytes in one buffer:
 * [off, len) not yet returned, [scan, len) the frame still being received.
 * Each frame's header is checked as soon as its 4 bytes are in, so at most
 * 4 + max_frame bytes of one frame are ever held, and none of a body whose
 * length was refused.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

/* A buffer this large is given back once it is empty: one big witness must
 * not pin its frame's size for the life of the connection. */
#define KEEP_CAP (1u << 20)
#define MIN_CAP 4096u

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static bool length_ok(const zkp_frame_reader *r, uint32_t n)
{
	return n != 0 && n <= r->max_frame;
}

void zkp_frame_reader_init(zkp_frame_reader *r, uint64_t max_frame)
{
	memset(r, 0, sizeof(*r));
	r->max_frame = max_frame;
}

void zkp_frame_reader_release(zkp_frame_reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* Room for n more bytes at len: first by moving the unread bytes to the
 * front, then by growing (doubling, but never past what the frames being
 * received can need). */
static int reserve(zkp_frame_reader *r, size_t n)
{
	if (r->off == r->len && r->cap > KEEP_CAP) {
		free(r->buf);
		r->buf = NULL;
		r->cap = r->len = r->off = r->scan = 0;
	}
	if (r->cap - r->len >= n)
		return 0;
	if (r->off > 0) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->scan -= r->off;
		r->off = 0;
		if (r->cap - r->len >= n)
			return 0;
	}
	size_t need = r->len + n;
	size_t cap = r->cap ? r->cap * 2 : MIN_CAP;
	/* the frame in progress needs at most 4 + max_frame from scan */
	uint64_t max = r->max_frame < UINT32_MAX ? r->max_frame : UINT32_MAX;
	uint64_t bound = (uint64_t)r->scan + ZKP_FRAME_HEADER + max;
	if (cap > bound)
		cap = (size_t)bound;
	if (cap < need)
		cap = need;
	uint8_t *b = realloc(r->buf, cap);
	if (!b)
		return ZKP_ERR_NOMEM;
	r->buf = b;
	r->cap = cap;
	return 0;
}

int zkp_frame_reader_feed(zkp_frame_reader *r, const uint8_t *data, size_t n)
{
	while (n > 0) {
		size_t have = r->len - r->scan, take;
		if (have >= ZKP_FRAME_HEADER) {
			uint32_t flen = get_be32(r->buf + r->scan);
			if (!length_ok(r, flen))
				return 0; /* dead stream: zkp_frame_next reports it */
			size_t want = ZKP_FRAME_HEADER + (size_t)flen - have;
			if (want == 0) {
				r->scan = r->len;
				continue;
			}
			take = n < want ? n : want;
		} else {
			take = ZKP_FRAME_HEADER - have;
			if (take > n)
				take = n;
		}
		int rc = reserve(r, take);
		if (rc)
			return rc;
		memcpy(r->buf + r->len, data, take);
		r->len += take;
		data += take;
		n -= take;
	}
	return 0;
}

int zkp_frame_next(zkp_frame_reader *r, const uint8_t **body, size_t *len, zkp_error *err)
{
	size_t have = r->len - r->off;
	if (have < ZKP_FRAME_HEADER)
		return 0;
	uint32_t flen = get_be32(r->buf + r->off);
	if (flen == 0)
		return zkp_error_set(err, ZKP_ERR_PROTOCOL,
				     "frame length 0 (a frame holds at least 1 byte)");
	if (flen > r->max_frame)
		return zkp_error_set(err, ZKP_ERR_LIMIT,
				     "frame of %u bytes is over the limit of %llu bytes", flen,
				     (unsigned long long)r->max_frame);
	if (have - ZKP_FRAME_HEADER < flen)
		return 0;
	*body = r->buf + r->off + ZKP_FRAME_HEADER;
	*len = flen;
	r->off += ZKP_FRAME_HEADER + (size_t)flen;
	if (r->scan < r->off)
		r->scan = r->off;
	return 1;
}

int zkp_wire_pack(const Zkpd__V1__Envelope *env, uint8_t **frame, size_t *len)
{
	size_t n = protobuf_c_message_get_packed_size(&env->base);
	if (n == 0)
		return ZKP_ERR_INVAL;
	if (n > UINT32_MAX)
		return ZKP_ERR_LIMIT;
	uint8_t *f = malloc(ZKP_FRAME_HEADER + n);
	if (!f)
		return ZKP_ERR_NOMEM;
	put_be32(f, (uint32_t)n);
	protobuf_c_message_pack(&env->base, f + ZKP_FRAME_HEADER);
	*frame = f;
	*len = ZKP_FRAME_HEADER + n;
	return 0;
}

int zkp_wire_unpack(Zkpd__V1__Envelope **env, const uint8_t *body, size_t len, zkp_error *err)
{
	*env = zkpd__v1__envelope__unpack(NULL, len, body);
	if (!*env)
		return zkp_error_set(err, ZKP_ERR_PROTOCOL,
				     "frame of %zu bytes is not a zkpd.v1.Envelope", len);
	return 0;
}

void zkp_wire_free(Zkpd__V1__Envelope *env)
{
	if (env)
		zkpd__v1__envelope__free_unpacked(env, NULL);
}

const char *zkp_wire_error_name(int code)
{
	return zkp_err_name(code);
}

int zkp_wire_error_code(const char *name)
{
#define ZKP_ERR_MATCH(n, code, text)                                                   \
	if (!strcmp(name, #n))                                                         \
		return (code);
	ZKP_ERRORS(ZKP_ERR_MATCH)
#undef ZKP_ERR_MATCH
	return ZKP_ERR_PROTOCOL;
}
