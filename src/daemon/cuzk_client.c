/*
 * cuzk_client: a unary gRPC call over gRPC's C core (cuzk_client.h). One
 * batch carries every operation of the call: send the metadata, the
 * message and the half-close, receive the metadata, the answer and the
 * status; the completion queue reports the batch once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "cuzk_client.h"

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[4096];
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = 2 * (len + n + 1);
			char *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

int zkp_cuzk_unary(const zkp_cuzk_client_opts *o, const char *method, const uint8_t *req,
		   size_t req_len, uint8_t **resp, size_t *resp_len, int *status, zkp_error *err)
{
	int rc = 0;
	*resp = NULL;
	*resp_len = 0;
	*status = -1;
	char *ca = NULL;
	if (o->ca_file && !(ca = read_text(o->ca_file)))
		return zkp_error_set(err, ZKP_ERR_CONFIG, "cannot read the CA file %s", o->ca_file);

	grpc_init();
	grpc_channel_credentials *creds = ca ? grpc_ssl_credentials_create(ca, NULL, NULL, NULL) :
					       grpc_insecure_credentials_create();
	grpc_channel *ch = grpc_channel_create(o->target, creds, NULL);
	grpc_channel_credentials_release(creds);
	grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
	gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
					     gpr_time_from_millis(o->timeout_ms, GPR_TIMESPAN));
	grpc_slice method_slice = grpc_slice_from_static_string(method);
	grpc_call *call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
						   method_slice, NULL, deadline, NULL);

	char bearer[4200];
	grpc_metadata md;
	memset(&md, 0, sizeof(md));
	if (o->token) {
		snprintf(bearer, sizeof(bearer), "Bearer %s", o->token);
		md.key = grpc_slice_from_static_string("authorization");
		md.value = grpc_slice_from_copied_string(bearer);
	}
	grpc_slice body = grpc_slice_from_copied_buffer((const char *)req, req_len);
	grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&body, 1);
	grpc_slice_unref(body);
	grpc_byte_buffer *recv = NULL;
	grpc_metadata_array init_md, trail_md;
	grpc_metadata_array_init(&init_md);
	grpc_metadata_array_init(&trail_md);
	grpc_status_code code = GRPC_STATUS_UNKNOWN;
	grpc_slice details = grpc_empty_slice();

	grpc_op ops[6];
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].data.send_initial_metadata.count = o->token ? 1 : 0;
	ops[0].data.send_initial_metadata.metadata = o->token ? &md : NULL;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &init_md;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &recv;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &trail_md;
	ops[5].data.recv_status_on_client.status = &code;
	ops[5].data.recv_status_on_client.status_details = &details;
	grpc_call_error ce = grpc_call_start_batch(call, ops, 6, (void *)1, NULL);
	if (ce != GRPC_CALL_OK) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: cannot start the call (%d)", o->target,
				   (int)ce);
		goto out;
	}
	/* The call's own deadline ends it; a second more for the queue. */
	grpc_event ev = grpc_completion_queue_next(
		cq, gpr_time_add(deadline, gpr_time_from_seconds(1, GPR_TIMESPAN)), NULL);
	if (ev.type != GRPC_OP_COMPLETE || !ev.success) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: the call did not complete", o->target);
		goto out;
	}
	*status = (int)code;
	if (code != GRPC_STATUS_OK) {
		char *d = grpc_slice_to_c_string(details);
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: gRPC status %d%s%s", o->target, (int)code,
				   d && *d ? ": " : "", d ? d : "");
		gpr_free(d);
		goto out;
	}
	if (!recv) {
		rc = zkp_error_set(err, ZKP_ERR_PROTOCOL, "%s: the answer has no message",
				   o->target);
		goto out;
	}
	grpc_byte_buffer_reader r;
	if (!grpc_byte_buffer_reader_init(&r, recv)) {
		rc = zkp_error_set(err, ZKP_ERR_PROTOCOL, "%s: cannot read the answer", o->target);
		goto out;
	}
	grpc_slice all = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	size_t n = GRPC_SLICE_LENGTH(all);
	*resp = malloc(n ? n : 1);
	if (!*resp) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory");
	} else {
		memcpy(*resp, GRPC_SLICE_START_PTR(all), n);
		*resp_len = n;
	}
	grpc_slice_unref(all);
out:
	if (o->token)
		grpc_slice_unref(md.value);
	grpc_slice_unref(details);
	grpc_metadata_array_destroy(&init_md);
	grpc_metadata_array_destroy(&trail_md);
	grpc_byte_buffer_destroy(send);
	if (recv)
		grpc_byte_buffer_destroy(recv);
	grpc_call_unref(call);
	grpc_completion_queue_shutdown(cq);
	while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
	       GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(cq);
	grpc_channel_destroy(ch);
	grpc_shutdown();
	free(ca);
	return rc;
}
