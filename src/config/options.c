#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config_int.h"
#include "zkpd/config.h"

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)
#define TIB (UINT64_C(1) << 40)
#define SEC UINT64_C(1000)
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define NOMAX UINT64_MAX

static const char *const log_levels[] = { "error", "warn", "info", "debug", NULL };
static const char *const log_formats[] = { "text", "json", NULL };
static const char *const grpc_transports[] = { "plaintext", "tls", NULL };
static const char *const key_formats[] = { "zkey", "bellman", NULL };

#define CFG(field) offsetof(zkp_config, field)
#define CIR(field) offsetof(zkp_config_circuit, field)

/* Order is the order of the printed default file and of docs/config.md. */
const zkp_option zkp_options[] = {
	{ "server", "listen", ZKP_OPT_ADDRESSES, CFG(listen), CFG(n_listen), NULL,
	  "unix:$XDG_RUNTIME_DIR/zkpd.sock, else unix:${TMPDIR:-/tmp}/zkpd-UID/zkpd.sock", 0, 0, NULL,
	  "Addresses to listen on, comma-separated: unix:PATH or tcp:HOST:PORT ([IPv6]:PORT)" },
	{ "server", "socket_mode", ZKP_OPT_MODE, CFG(socket_mode), 0, "0660", NULL, 0, 0777, NULL,
	  "Permissions of the Unix sockets" },
	{ "server", "max_frame_bytes", ZKP_OPT_SIZE, CFG(max_frame_bytes), 0, "1G", NULL,
	  64 * KIB, 64 * GIB, NULL, "Largest frame accepted; a witness travels in one frame" },
	{ "server", "preauth_max_frame_bytes", ZKP_OPT_SIZE, CFG(preauth_max_frame_bytes), 0,
	  "16K", NULL, 8 * KIB, 64 * MIB, NULL,
	  "Largest frame accepted from a connection that has not yet authenticated (with "
	  "token_file set): its Authenticate call fits; larger frames wait for its answer" },
	{ "server", "preauth_buffer_bytes", ZKP_OPT_SIZE, CFG(preauth_buffer_bytes), 0, "4M",
	  NULL, 64 * KIB, 4 * GIB, NULL,
	  "Bytes buffered for all unauthenticated connections together (with token_file set); "
	  "a connection that would pass it is closed" },
	{ "server", "max_connections", ZKP_OPT_U32, CFG(max_connections), 0, "4096", NULL, 1,
	  1000000, NULL, "Connections open at once; further ones are refused" },
	{ "server", "conn_buffer_bytes", ZKP_OPT_SIZE, CFG(conn_buffer_bytes), 0, "16M", NULL,
	  64 * KIB, 4 * GIB, NULL,
	  "Unsent replies held per connection before reading from it pauses" },
	{ "server", "idle_timeout", ZKP_OPT_DURATION, CFG(idle_timeout_ms), 0, "300s", NULL, 0,
	  30 * 24 * HOUR, NULL,
	  "Closes a connection with no frame and no call in progress for this long; 0 never" },
	{ "server", "shutdown_grace", ZKP_OPT_DURATION, CFG(shutdown_grace_ms), 0, "30s", NULL, 0,
	  HOUR, NULL, "On SIGTERM, time given to running jobs before they are cancelled" },
	{ "server", "witness_dir", ZKP_OPT_PATH, CFG(witness_dir), 0, NULL, "unset", 0, 0, NULL,
	  "Directory witness paths must lie in; unset: witness paths are refused" },
	{ "server", "max_queued", ZKP_OPT_U32, CFG(max_queued), 0, "10000", NULL, 1, 10000000,
	  NULL, "Jobs waiting to run; further submissions are refused" },
	{ "server", "job_history", ZKP_OPT_U32, CFG(job_history), 0, "1024", NULL, 0, 1000000,
	  NULL, "Finished jobs kept for Await and idempotent resubmission" },
	{ "server", "journal_dir", ZKP_OPT_PATH, CFG(journal_dir), 0, NULL, "unset (no journal)",
	  0, 0, NULL,
	  "Directory of the job journal: jobs with a request_id survive a restart or a crash, "
	  "with their results (up to job_history); unset: no journal" },
	{ "server", "tcp_plaintext", ZKP_OPT_BOOL, CFG(tcp_plaintext), 0, "false", NULL, 0, 0,
	  NULL,
	  "Allow tcp: addresses without TLS; false: a tcp: address needs tls.cert and tls.key "
	  "(the gRPC listener has its own: grpc.transport)" },
	{ "server", "token_file", ZKP_OPT_PATH, CFG(token_file), 0, NULL, "unset", 0, 0, NULL,
	  "File holding a bearer token; set: every connection must Authenticate with it first" },
	{ "server", "socket_owner", ZKP_OPT_STRING, CFG(socket_owner), 0, NULL, "unchanged", 0, 0,
	  NULL, "User (name or uid) given the Unix sockets" },
	{ "server", "socket_group", ZKP_OPT_STRING, CFG(socket_group), 0, NULL, "unchanged", 0, 0,
	  NULL, "Group (name or gid) given the Unix sockets" },
	{ "tls", "cert", ZKP_OPT_PATH, CFG(tls_cert), 0, NULL, "unset", 0, 0, NULL,
	  "Server certificate chain (PEM) for the tcp: addresses, and for gRPC with "
	  "grpc.transport = tls" },
	{ "tls", "key", ZKP_OPT_PATH, CFG(tls_key), 0, NULL, "unset", 0, 0, NULL,
	  "Private key (PEM) of tls.cert" },
	{ "tls", "client_ca", ZKP_OPT_PATH, CFG(tls_client_ca), 0, NULL, "unset", 0, 0, NULL,
	  "CA certificates (PEM); set: clients must present a certificate one of them signed" },
	{ "gpus", "devices", ZKP_OPT_DEVICES, CFG(devices), 0, "auto", NULL, 0, 0, NULL,
	  "auto (every GPU found, else the CPU), cpu, or GPU indices such as 0,1" },
	{ "gpus", "workers_per_device", ZKP_OPT_U32, CFG(workers_per_device), 0, "1", NULL, 1, 64,
	  NULL, "Pipelines per device, each running one job per stage thread (CPU, device, "
		"finalize) with pipeline.depth more waiting between them" },
	{ "gpus", "fallback_cpu", ZKP_OPT_BOOL, CFG(fallback_cpu), 0, "false", NULL, 0, 0, NULL,
	  "A job hit by a device fault is proved again on the CPU backend instead of failing" },
	{ "gpus", "device_memory", ZKP_OPT_SIZE, CFG(device_memory), 0, "0", NULL, 0, NOMAX, NULL,
	  "Device memory zkpd may use on each GPU (resident keys and matrices, workspaces, jobs' "
	  "buffers); 0: what is free when zkpd starts, less 2 % and 256 MiB" },
	{ "pipeline", "depth", ZKP_OPT_U32, CFG(pipeline_depth), 0, "2", NULL, 1, 64, NULL,
	  "Jobs between the CPU and device stages" },
	{ "synthesis", "threads", ZKP_OPT_U32, CFG(synthesis_threads), 0, "0", NULL, 0, 1024, NULL,
	  "Witness and constraint threads; 0: one per online CPU" },
	{ "memory", "budget", ZKP_OPT_SIZE, CFG(memory_budget), 0, "0", NULL, 0, NOMAX, NULL,
	  "Memory admitted jobs may reserve (their working sets; loaded circuits and keys come "
	  "on top); 0: MemTotal minus reserve" },
	{ "memory", "reserve", ZKP_OPT_SIZE, CFG(memory_reserve), 0, "2G", NULL, 0, NOMAX, NULL,
	  "Memory left to the rest of the system when budget is 0" },
	{ "memory", "critical_reserve", ZKP_OPT_SIZE, CFG(critical_reserve), 0, "0", NULL, 0, NOMAX,
	  NULL,
	  "Part of the budget only CRITICAL jobs may use; 0: one working set of the largest "
	  "loaded circuit" },
	{ "memory", "purge_between_stages", ZKP_OPT_BOOL, CFG(purge_between_stages), 0, "true",
	  NULL, 0, 0, NULL, "Return freed memory to the system between a job's stages" },
	{ "log", "level", ZKP_OPT_ENUM, CFG(log_level), 0, "info", NULL, 0, 0, log_levels,
	  "Most verbose level logged" },
	{ "log", "format", ZKP_OPT_ENUM, CFG(log_format), 0, "text", NULL, 0, 0, log_formats,
	  "Line format: text, or json (one object per line with ts, level, prog, pid, msg)" },
	{ "http", "listen", ZKP_OPT_HOSTPORT, CFG(http_listen), 0, NULL, "unset (off)", 0, 0, NULL,
	  "HOST:PORT ([IPv6]:PORT) serving /metrics, /status and /healthz over HTTP, such as "
	  "127.0.0.1:9464; unset or empty: off" },
	{ "http", "require_token", ZKP_OPT_BOOL, CFG(http_require_token), 0, "false", NULL, 0, 0,
	  NULL,
	  "/metrics and /status answer only requests with \"Authorization: Bearer TOKEN\", "
	  "TOKEN being server.token_file's; /healthz stays open" },
	{ "grpc", "listen", ZKP_OPT_ENDPOINT, CFG(grpc_listen), 0, NULL, "unset (off)", 0, 0, NULL,
	  "unix:PATH or HOST:PORT serving the cuzk.v1 gRPC service Curio calls (docs/grpc.md); "
	  "its transport is grpc.transport's, not server.tcp_plaintext's" },
	{ "grpc", "transport", ZKP_OPT_ENUM, CFG(grpc_transport), 0, "plaintext", NULL, 0, 0,
	  grpc_transports,
	  "plaintext (what Curio speaks) on a unix: socket or a loopback address, or tls "
	  "(tls.cert and tls.key, TCP only; Curio cannot connect)" },
	{ "grpc", "allow_insecure_plaintext_network", ZKP_OPT_BOOL,
	  CFG(grpc_allow_insecure_network), 0, "false", NULL, 0, 0, NULL,
	  "Allow plaintext gRPC on a TCP address that is not loopback: proofs, inputs and any "
	  "token cross the network unencrypted and unauthenticated" },
	{ "grpc", "max_message_bytes", ZKP_OPT_SIZE, CFG(grpc_max_message_bytes), 0, "256M", NULL,
	  64 * KIB, GIB, NULL, "Largest gRPC request or answer; larger ones fail RESOURCE_EXHAUSTED" },
	{ "grpc", "require_token", ZKP_OPT_BOOL, CFG(grpc_require_token), 0, "true", NULL, 0, 0,
	  NULL,
	  "With server.token_file: calls need \"authorization: Bearer TOKEN\" metadata; false "
	  "for clients that send none (Curio)" },
};
const size_t zkp_n_options = sizeof(zkp_options) / sizeof(zkp_options[0]);
_Static_assert(sizeof(zkp_options) / sizeof(zkp_options[0]) <= ZKP_OPTIONS_MAX,
	       "raise ZKP_OPTIONS_MAX");

const zkp_option zkp_circuit_options[] = {
	{ "circuit", "pce", ZKP_OPT_PATH, CIR(pce), 0, NULL, "required", 0, 0, NULL,
	  "Precompiled circuit file (.pce)" },
	{ "circuit", "key", ZKP_OPT_PATH, CIR(key), 0, NULL, "required", 0, 0, NULL,
	  "Proving key file" },
	{ "circuit", "key_format", ZKP_OPT_ENUM, CIR(key_format), 0, NULL, "required", 0, 0,
	  key_formats, "Proving key format" },
	{ "circuit", "preload", ZKP_OPT_BOOL, CIR(preload), 0, "false", NULL, 0, 0, NULL,
	  "Load the circuit at startup rather than on its first job" },
	{ "circuit", "porep_sector_size", ZKP_OPT_SIZE, CIR(porep_sector_size), 0, "0", NULL, 0,
	  NOMAX, NULL,
	  "Sector size (2K, 8M, 512M, 32G, 64G) whose Filecoin PoRep partition circuit the .pce "
	  "is; jobs may then carry a C1 output. 0: none" },
	{ "circuit", "snap_sector_size", ZKP_OPT_SIZE, CIR(snap_sector_size), 0, "0", NULL, 0,
	  NOMAX, NULL,
	  "Sector size (2K, 8M, 512M, 32G, 64G) whose Filecoin SnapDeals partition circuit the "
	  ".pce is; jobs may then carry a sector update. 0: none" },
	{ "circuit", "window_post_sector_size", ZKP_OPT_SIZE, CIR(window_post_sector_size), 0, "0",
	  NULL, 0, NOMAX, NULL,
	  "Sector size (2K, 8M, 512M, 32G, 64G) whose WindowPoSt partition circuit the .pce is; "
	  "jobs may then carry PoSt vanilla proofs. 0: none" },
	{ "circuit", "winning_post_sector_size", ZKP_OPT_SIZE, CIR(winning_post_sector_size), 0,
	  "0", NULL, 0, NOMAX, NULL,
	  "Sector size (2K, 8M, 512M, 32G, 64G) whose WinningPoSt circuit the .pce is; its "
	  "jobs (PoSt vanilla proofs) default to critical priority. 0: none" },
};
const size_t zkp_n_circuit_options = sizeof(zkp_circuit_options) / sizeof(zkp_circuit_options[0]);
_Static_assert(sizeof(zkp_circuit_options) / sizeof(zkp_circuit_options[0]) <= ZKP_OPTIONS_MAX,
	       "raise ZKP_OPTIONS_MAX");

const char *const zkp_config_sections[] = { "server", "tls", "gpus", "pipeline", "synthesis",
					     "memory", "log", "http", "grpc", NULL };

static void format_size(char *buf, size_t size, uint64_t v)
{
	static const char sfx[] = "TGMK";
	for (int i = 0; i < 4; i++) {
		uint64_t unit = UINT64_C(1) << (10 * (4 - i));
		if (v != 0 && v % unit == 0) {
			snprintf(buf, size, "%" PRIu64 "%c", v / unit, sfx[i]);
			return;
		}
	}
	snprintf(buf, size, "%" PRIu64, v);
}

static void format_duration(char *buf, size_t size, uint64_t ms)
{
	if (ms == 0)
		snprintf(buf, size, "0");
	else if (ms % HOUR == 0)
		snprintf(buf, size, "%" PRIu64 "h", ms / HOUR);
	else if (ms % MIN == 0)
		snprintf(buf, size, "%" PRIu64 "m", ms / MIN);
	else if (ms % SEC == 0)
		snprintf(buf, size, "%" PRIu64 "s", ms / SEC);
	else
		snprintf(buf, size, "%" PRIu64 "ms", ms);
}

static void format_value(const zkp_option *o, char *buf, size_t size, uint64_t v)
{
	if (o->type == ZKP_OPT_SIZE)
		format_size(buf, size, v);
	else if (o->type == ZKP_OPT_DURATION)
		format_duration(buf, size, v);
	else if (o->type == ZKP_OPT_MODE)
		snprintf(buf, size, "%04" PRIo64, v);
	else
		snprintf(buf, size, "%" PRIu64, v);
}

void zkp_option_bounds(const zkp_option *o, char *buf, size_t size)
{
	char lo[32], hi[32];
	buf[0] = 0;
	switch (o->type) {
	case ZKP_OPT_U32:
	case ZKP_OPT_SIZE:
	case ZKP_OPT_DURATION:
	case ZKP_OPT_MODE:
		break;
	default:
		return;
	}
	if (o->min == 0 && o->max == NOMAX)
		return;
	format_value(o, lo, sizeof(lo), o->min);
	if (o->max == NOMAX) {
		snprintf(buf, size, "%s or more", lo);
		return;
	}
	format_value(o, hi, sizeof(hi), o->max);
	snprintf(buf, size, "%s..%s", lo, hi);
}

const char *zkp_option_type_name(const zkp_option *o)
{
	switch (o->type) {
	case ZKP_OPT_STRING: return "string";
	case ZKP_OPT_PATH: return "path";
	case ZKP_OPT_DEVICES: return "devices";
	case ZKP_OPT_BOOL: return "bool";
	case ZKP_OPT_U32: return "u32";
	case ZKP_OPT_SIZE: return "size";
	case ZKP_OPT_DURATION: return "duration";
	case ZKP_OPT_MODE: return "mode";
	case ZKP_OPT_ENUM: return "enum";
	case ZKP_OPT_ADDRESSES: return "addresses";
	case ZKP_OPT_HOSTPORT: return "hostport";
	case ZKP_OPT_ENDPOINT: return "endpoint";
	}
	return "?";
}

/* Decimal digits only (no sign, no spaces); -1 on overflow or no digits. */
static int parse_digits(uint64_t *ret, const char **pp)
{
	const char *p = *pp;
	uint64_t v = 0;
	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*ret = v;
	*pp = p;
	return 0;
}

static int parse_scaled(uint64_t *ret, const char *text, const char *const *units,
			const uint64_t *scale, uint64_t bare, const char **what)
{
	const char *p = text;
	uint64_t v;
	int rc = parse_digits(&v, &p);
	if (rc == -2) {
		*what = "too large";
		return -1;
	}
	if (rc < 0) {
		*what = "not a number";
		return -1;
	}
	while (*p == ' ')
		p++;
	uint64_t mul = bare;
	if (*p) {
		size_t i;
		for (i = 0; units[i]; i++)
			if (strcmp(p, units[i]) == 0)
				break;
		if (!units[i]) {
			*what = "bad suffix";
			return -1;
		}
		mul = scale[i];
	}
	if (v > UINT64_MAX / mul) {
		*what = "too large";
		return -1;
	}
	*ret = v * mul;
	return 0;
}

static int check_devices(char *out, size_t outlen, const char *text, char *why, size_t whylen)
{
	static const char expected[] = "(expected auto, cpu or GPU indices 0..63 such as 0,1)";
	if (strcmp(text, "auto") == 0 || strcmp(text, "cpu") == 0) {
		snprintf(out, outlen, "%s", text);
		return 0;
	}
	uint64_t seen = 0;
	const char *p = text;
	size_t len = 0;
	out[0] = 0;
	for (;;) {
		while (*p == ' ')
			p++;
		uint64_t v;
		if (parse_digits(&v, &p) < 0 || v > 63) {
			snprintf(why, whylen, "bad device list \"%s\" %s", text, expected);
			return -1;
		}
		if (seen & (UINT64_C(1) << v)) {
			snprintf(why, whylen, "device %" PRIu64 " listed twice %s", v, expected);
			return -1;
		}
		seen |= UINT64_C(1) << v;
		len += (size_t)snprintf(out + len, outlen - len, "%s%" PRIu64, len ? "," : "", v);
		while (*p == ' ')
			p++;
		if (*p == 0)
			return 0;
		if (*p != ',') {
			snprintf(why, whylen, "bad device list \"%s\" %s", text, expected);
			return -1;
		}
		p++;
	}
}

static int set_string(const zkp_option *o, char **slot, const char *text)
{
	char *copy = strdup(text);
	if (!copy)
		return -1;
	if (*slot && *slot != o->def)
		free(*slot);
	*slot = copy;
	return 0;
}

void zkp_option_free(const zkp_option *o, void *base)
{
	if (o->type != ZKP_OPT_STRING && o->type != ZKP_OPT_PATH && o->type != ZKP_OPT_DEVICES)
		return;
	char **slot = (char **)((char *)base + o->offset);
	if (*slot && *slot != o->def)
		free(*slot);
	*slot = NULL;
}

static void expect_bounds(const zkp_option *o, const char *what, const char *text, char *why,
			  size_t whylen, const char *syntax)
{
	char b[80];
	zkp_option_bounds(o, b, sizeof(b));
	snprintf(why, whylen, "%s \"%s\" (expected %s%s%s)", what, text, syntax, b[0] ? ", " : "",
		 b);
}

int zkp_option_set(const zkp_option *o, void *base, const char *text, char *why, size_t whylen)
{
	void *slot = (char *)base + o->offset;
	uint64_t v = 0;
	const char *what = NULL;

	switch (o->type) {
	case ZKP_OPT_STRING:
	case ZKP_OPT_PATH:
		if (!*text) {
			snprintf(why, whylen, "empty value (expected a %s)",
				 o->type == ZKP_OPT_PATH ? "path" : "string");
			return ZKP_ERR_CONFIG;
		}
		if (set_string(o, slot, text) < 0) {
			snprintf(why, whylen, "out of memory");
			return ZKP_ERR_NOMEM;
		}
		return 0;
	case ZKP_OPT_DEVICES: {
		char norm[256];
		if (strlen(text) >= sizeof(norm)) {
			snprintf(why, whylen, "device list too long (expected auto, cpu or GPU "
					      "indices 0..63 such as 0,1)");
			return ZKP_ERR_CONFIG;
		}
		if (check_devices(norm, sizeof(norm), text, why, whylen) < 0)
			return ZKP_ERR_CONFIG;
		if (strcmp(norm, "auto") == 0) {
			/* the row's static default: release frees nothing */
			if (*(char **)slot && *(char **)slot != o->def)
				free(*(char **)slot);
			*(char **)slot = (char *)o->def;
			return 0;
		}
		if (set_string(o, slot, norm) < 0) {
			snprintf(why, whylen, "out of memory");
			return ZKP_ERR_NOMEM;
		}
		return 0;
	}
	case ZKP_OPT_BOOL: {
		static const char *const yes[] = { "true", "yes", "on", "1" };
		static const char *const no[] = { "false", "no", "off", "0" };
		for (size_t i = 0; i < 4; i++) {
			if (strcasecmp(text, yes[i]) == 0) {
				*(bool *)slot = true;
				return 0;
			}
			if (strcasecmp(text, no[i]) == 0) {
				*(bool *)slot = false;
				return 0;
			}
		}
		snprintf(why, whylen, "bad boolean \"%s\" (expected true, false, yes, no, on, off, "
				      "1 or 0)", text);
		return ZKP_ERR_CONFIG;
	}
	case ZKP_OPT_ENUM: {
		for (size_t i = 0; o->choices[i]; i++) {
			if (strcasecmp(text, o->choices[i]) == 0) {
				*(int *)slot = (int)i;
				return 0;
			}
		}
		char list[128];
		size_t len = 0;
		list[0] = 0;
		for (size_t i = 0; o->choices[i]; i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						i == 0 ? "" : o->choices[i + 1] ? ", " : " or ",
						o->choices[i]);
		snprintf(why, whylen, "bad value \"%s\" (expected %s)", text, list);
		return ZKP_ERR_CONFIG;
	}
	case ZKP_OPT_ADDRESSES: {
		zkp_address tmp[ZKP_CONFIG_MAX_LISTEN];
		size_t n = 0;
		const char *p = text;
		for (;;) {
			while (*p == ' ' || *p == '\t')
				p++;
			const char *end = strchr(p, ',');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
				len--;
			if (n == ZKP_CONFIG_MAX_LISTEN) {
				snprintf(why, whylen, "more than %d addresses (expected at most %d)",
					 ZKP_CONFIG_MAX_LISTEN, ZKP_CONFIG_MAX_LISTEN);
				return ZKP_ERR_CONFIG;
			}
			char one[512];
			if (len >= sizeof(one)) {
				snprintf(why, whylen, "address too long (expected unix:PATH or "
						      "tcp:HOST:PORT)");
				return ZKP_ERR_CONFIG;
			}
			memcpy(one, p, len);
			one[len] = 0;
			zkp_error e = { 0 };
			if (zkp_address_parse(&tmp[n], one, &e) < 0) {
				snprintf(why, whylen, "%s", e.msg);
				return ZKP_ERR_CONFIG;
			}
			n++;
			if (!end)
				break;
			p = end + 1;
		}
		memcpy(slot, tmp, n * sizeof(tmp[0]));
		*(size_t *)((char *)base + o->count_offset) = n;
		return 0;
	}
	case ZKP_OPT_HOSTPORT: {
		zkp_address a;
		zkp_error e = { 0 };
		memset(&a, 0, sizeof(a));
		if (*text && zkp_address_parse_host_port(&a, text, &e) < 0) {
			snprintf(why, whylen, "%s", e.msg);
			return ZKP_ERR_CONFIG;
		}
		*(zkp_address *)slot = a;
		return 0;
	}
	case ZKP_OPT_ENDPOINT: {
		zkp_address a;
		zkp_error e = { 0 };
		memset(&a, 0, sizeof(a));
		int bad = 0;
		if (strncmp(text, "unix:", 5) == 0)
			bad = zkp_address_parse(&a, text, &e) < 0;
		else if (*text)
			bad = zkp_address_parse_host_port(&a, text, &e) < 0;
		if (bad) {
			snprintf(why, whylen, "%s", e.msg);
			return ZKP_ERR_CONFIG;
		}
		*(zkp_address *)slot = a;
		return 0;
	}
	case ZKP_OPT_MODE: {
		const char *p = text;
		if (!*p)
			goto bad_mode;
		for (; *p; p++) {
			if (*p < '0' || *p > '7')
				goto bad_mode;
			v = v * 8 + (uint64_t)(*p - '0');
			if (v > 07777)
				goto bad_mode;
		}
		if (v < o->min || v > o->max) {
			expect_bounds(o, "out of range:", text, why, whylen, "octal digits");
			return ZKP_ERR_CONFIG;
		}
		*(unsigned *)slot = (unsigned)v;
		return 0;
	bad_mode:
		expect_bounds(o, "bad mode", text, why, whylen, "octal digits such as 0660");
		return ZKP_ERR_CONFIG;
	}
	case ZKP_OPT_U32: {
		const char *p = text;
		int rc = parse_digits(&v, &p);
		if (rc == -1 || *p) {
			expect_bounds(o, "not a number", text, why, whylen, "a whole number");
			return ZKP_ERR_CONFIG;
		}
		if (rc == -2 || v < o->min || v > o->max || v > UINT32_MAX) {
			expect_bounds(o, "out of range:", text, why, whylen, "a whole number");
			return ZKP_ERR_CONFIG;
		}
		*(uint32_t *)slot = (uint32_t)v;
		return 0;
	}
	case ZKP_OPT_SIZE: {
		static const char *const units[] = { "K", "KiB", "M", "MiB", "G", "GiB",
						     "T", "TiB", NULL };
		static const uint64_t scale[] = { KIB, KIB, MIB, MIB, GIB, GIB, TIB, TIB };
		static const char syntax[] = "bytes with an optional K, M, G or T suffix";
		if (parse_scaled(&v, text, units, scale, 1, &what) < 0) {
			expect_bounds(o, strcmp(what, "too large") ? "bad size" : "too large:", text,
				      why, whylen, syntax);
			return ZKP_ERR_CONFIG;
		}
		if (v < o->min || v > o->max) {
			expect_bounds(o, "out of range:", text, why, whylen, syntax);
			return ZKP_ERR_CONFIG;
		}
		*(uint64_t *)slot = v;
		return 0;
	}
	case ZKP_OPT_DURATION: {
		static const char *const units[] = { "ms", "s", "m", "h", NULL };
		static const uint64_t scale[] = { 1, SEC, MIN, HOUR };
		static const char syntax[] = "a number with ms, s, m or h; bare is seconds";
		if (parse_scaled(&v, text, units, scale, SEC, &what) < 0) {
			expect_bounds(o, strcmp(what, "too large") ? "bad duration" : "too large:",
				      text, why, whylen, syntax);
			return ZKP_ERR_CONFIG;
		}
		if (v < o->min || v > o->max) {
			expect_bounds(o, "out of range:", text, why, whylen, syntax);
			return ZKP_ERR_CONFIG;
		}
		*(uint64_t *)slot = v;
		return 0;
	}
	}
	snprintf(why, whylen, "unsupported option type");
	return ZKP_ERR_CONFIG;
}
