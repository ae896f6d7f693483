/*
 * What zkpd --check-config says about settings Curio's cuzk client cannot
 * work with (config.h, zkp_config_print_curio_notes). The client dials
 * plaintext only (insecure credentials), sends no authorization metadata,
 * and allows messages of up to 256 MiB each way.
 */
#include "zkpd/config.h"

#define CURIO_MESSAGE_BYTES (256ull << 20)

size_t zkp_config_print_curio_notes(const zkp_config *cfg, FILE *f)
{
	const zkp_address *a = &cfg->grpc_listen;
	size_t n = 0;
	if (!(a->kind == ZKP_ADDR_UNIX ? a->path[0] != 0 : a->port != 0))
		return 0; /* no gRPC listener: nothing for Curio */
	if (cfg->grpc_transport == ZKP_GRPC_TLS) {
		fprintf(f, "note: grpc.transport = tls: Curio's cuzk client speaks plaintext only "
			   "and cannot connect; other gRPC clients with TLS can (for Curio: "
			   "grpc.transport = plaintext on a unix: socket or 127.0.0.1)\n");
		n++;
	}
	if (cfg->token_file && cfg->grpc_require_token) {
		fprintf(f, "note: grpc.require_token = true with server.token_file: Curio sends "
			   "no token and every call of its fails UNAUTHENTICATED (for Curio: "
			   "grpc.require_token = false)\n");
		n++;
	}
	if (cfg->grpc_max_message_bytes < CURIO_MESSAGE_BYTES) {
		fprintf(f, "note: grpc.max_message_bytes = %llu is below the 256 MiB Curio "
			   "allows: a larger request of its fails RESOURCE_EXHAUSTED\n",
			(unsigned long long)cfg->grpc_max_message_bytes);
		n++;
	}
	if (a->kind == ZKP_ADDR_TCP && cfg->grpc_transport == ZKP_GRPC_PLAINTEXT &&
	    !zkp_address_is_loopback(a)) {
		fprintf(f, "note: grpc.listen %s:%u: plaintext gRPC on the network "
			   "(grpc.allow_insecure_plaintext_network): anyone who can reach the "
			   "port can submit jobs and read proofs\n",
			a->host, a->port);
		n++;
	}
	return n;
}
