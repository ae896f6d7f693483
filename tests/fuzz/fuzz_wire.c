/*
 * Frames and envelopes (src/daemon/wire.h). Input: byte 0 picks max_frame
 * (16 << (b & 15) bytes), byte 1 seeds the split, the rest is the stream.
 * The stream is fed to a zkp_frame_reader in pieces whose sizes come from a
 * xorshift generator seeded by byte 1, and every zkp_frame_next answer is
 * compared with a direct reading of the whole stream: the same bodies, the
 * same error at the same frame, nothing returned early. Each body is
 * unpacked; an envelope that unpacks must pack, unpack again and pack to
 * the same bytes (unpacking again may fail only for unknown fields, which
 * protobuf-c keeps as raw bytes).
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "wire.h"

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Whether m or any message inside it kept fields it did not know. */
static bool has_unknown(const ProtobufCMessage *m)
{
	if (m->n_unknown_fields)
		return true;
	const ProtobufCMessageDescriptor *d = m->descriptor;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		const char *member = (const char *)m + f->offset;
		const uint32_t *q = (const uint32_t *)((const char *)m + f->quantifier_offset);
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)((const char *)m + f->quantifier_offset);
			ProtobufCMessage *const *sub = *(ProtobufCMessage *const *const *)member;
			for (size_t k = 0; k < n; k++)
				if (has_unknown(sub[k]))
					return true;
			continue;
		}
		if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *q != f->id)
			continue;
		const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)member;
		if (sub && has_unknown(sub))
			return true;
	}
	return false;
}

static void check_envelope(const uint8_t *body, size_t len)
{
	Zkpd__V1__Envelope *env = NULL, *again = NULL;
	uint8_t *f1 = NULL, *f2 = NULL;
	size_t n1 = 0, n2 = 0;
	zkp_error err = {0};

	if (zkp_wire_unpack(&env, body, len, &err)) {
		FUZZ_CHECK(err.code == ZKP_ERR_PROTOCOL && env == NULL);
		return;
	}
	int rc = zkp_wire_pack(env, &f1, &n1);
	if (rc == ZKP_ERR_INVAL)
		goto out; /* an envelope with no field set packs to nothing */
	FUZZ_CHECK(rc == 0 && n1 > ZKP_FRAME_HEADER);
	FUZZ_CHECK(get_be32(f1) == n1 - ZKP_FRAME_HEADER);
	rc = zkp_wire_unpack(&again, f1 + ZKP_FRAME_HEADER, n1 - ZKP_FRAME_HEADER, &err);
	if (rc) {
		/* protobuf-c 1.4 keeps an unknown field numbered 0 when its tag
		 * is a non-minimal varint, and writes it back minimal, which it
		 * then refuses: unknown fields need not survive a round trip */
		FUZZ_CHECK(has_unknown(&env->base));
		goto out;
	}
	FUZZ_CHECK(zkp_wire_pack(again, &f2, &n2) == 0);
	FUZZ_CHECK(n1 == n2 && memcmp(f1, f2, n1) == 0);
out:
	free(f1);
	free(f2);
	zkp_wire_free(again);
	zkp_wire_free(env);
}

/* What zkp_frame_next must answer with [ref, fed) of s received. */
static int expected(const uint8_t *s, size_t ref, size_t fed, uint64_t max_frame)
{
	if (fed - ref < ZKP_FRAME_HEADER)
		return 0;
	uint32_t n = get_be32(s + ref);
	if (n == 0)
		return ZKP_ERR_PROTOCOL;
	if (n > max_frame)
		return ZKP_ERR_LIMIT;
	return fed - ref - ZKP_FRAME_HEADER >= n ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	uint64_t max_frame = (uint64_t)16 << (data[0] & 15);
	uint32_t x = 0x9e3779b9u ^ data[1];
	const uint8_t *s = data + 2;
	size_t n = size - 2, fed = 0, ref = 0;
	bool dead = false;
	zkp_frame_reader r;

	zkp_frame_reader_init(&r, max_frame);
	while (fed < n && !dead) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		size_t piece = (x & 0x300) ? 1 + x % 16 : 1 + x % 4096;
		if (piece > n - fed)
			piece = n - fed;
		FUZZ_CHECK(zkp_frame_reader_feed(&r, s + fed, piece) == 0);
		fed += piece;
		for (;;) {
			const uint8_t *body = NULL;
			size_t len = 0;
			zkp_error err = {0};
			int rc = zkp_frame_next(&r, &body, &len, &err);
			FUZZ_CHECK(rc == expected(s, ref, fed, max_frame));
			if (rc < 0) {
				FUZZ_CHECK(err.code == rc && err.msg[0] != '\0');
				dead = true;
				break;
			}
			if (rc == 0)
				break;
			FUZZ_CHECK(len == get_be32(s + ref));
			FUZZ_CHECK(memcmp(body, s + ref + ZKP_FRAME_HEADER, len) == 0);
			ref += ZKP_FRAME_HEADER + len;
			check_envelope(body, len);
		}
		/* the frame in progress never holds more than its header and body */
		FUZZ_CHECK(r.len - r.scan <= ZKP_FRAME_HEADER + max_frame);
	}
	zkp_frame_reader_release(&r);
	return 0;
}
