/*
 * config: zkpd's configuration, an INI file read with libinih and driven by
 * one option table (src/config/options.c). The same table parses, validates,
 * names the option and the file:line in every error, prints the default
 * configuration (zkpd --print-default-config) and writes docs/config.md
 * (zkpd --print-config-doc; a test checks docs/config.md equals its output).
 *
 * Invariants:
 *  - zkp_config_init gives a complete, valid configuration: CPU backend (or
 *    every GPU found), a Unix socket in the runtime directory, no circuits
 *    (the daemon then adds its bundled demo circuit).
 *  - Every option has exactly one table row: name, type, default, bounds,
 *    one-line doc. Unknown sections or keys, a value out of bounds, a bad
 *    suffix, a repeated key: ZKP_ERR_CONFIG with "FILE:LINE: section.key: what
 *    was wrong (expected ...)".
 *  - Circuits are sections [circuit.NAME] (NAME: 1-63 of [A-Za-z0-9_.-]),
 *    each with keys pce, key (paths, required), key_format (zkey | bellman,
 *    required), preload (bool, default false) and porep_sector_size (a
 *    published sector size, default 0: none). Relative paths are
 *    resolved against the config file's directory.
 *  - Rules between options, checked after the whole file is read and
 *    reported at the line that set the option: a tcp: listen address needs
 *    tls.cert and tls.key unless server.tcp_plaintext is true; tls.cert and
 *    tls.key go together; tls.client_ca needs them; server.socket_owner and
 *    socket_group name an existing user and group (or are numbers). The gRPC
 *    listener has its own transport (grpc.transport): plaintext (default)
 *    on a unix: socket or a loopback address, on any other TCP address only
 *    with grpc.allow_insecure_plaintext_network; tls needs tls.cert and
 *    tls.key and a TCP address. server.tcp_plaintext does not apply to it.
 *  - Value syntax: bool true/false/yes/no/on/off/1/0; sizes are bytes with
 *    an optional K, M, G, T suffix (powers of 1024, also KiB, MiB...);
 *    durations take ms, s, m, h (a bare number is seconds); modes are octal
 *    (0660).
 *
 * Threads: no shared state; a zkp_config is read-only once loaded.
 */
#ifndef ZKPD_CONFIG_H
#define ZKPD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zkpd/error.h"
#include "zkpd/log.h"

#define ZKP_CONFIG_MAX_LISTEN 4
#define ZKP_CONFIG_NAME_MAX 64

enum zkp_key_format { ZKP_KEY_FORMAT_ZKEY, ZKP_KEY_FORMAT_BELLMAN };
enum zkp_grpc_transport { ZKP_GRPC_PLAINTEXT, ZKP_GRPC_TLS };

/* A listen or connect address: "unix:PATH" or "tcp:HOST:PORT" (HOST may be
 * a name, an IPv4 address or a bracketed IPv6 address). */
typedef struct {
	enum { ZKP_ADDR_UNIX, ZKP_ADDR_TCP } kind;
	char path[108]; /* unix: sun_path limit, NUL included */
	char host[256]; /* tcp, brackets removed */
	uint16_t port;  /* tcp, 1..65535 */
} zkp_address;

/* Parses one address. Errors: ZKP_ERR_CONFIG naming what was wrong (no
 * "unix:" or "tcp:" prefix, an empty or too long path, a bad port). */
int zkp_address_parse(zkp_address *ret, const char *text, zkp_error *err);
/* Whether an optional address option is set: a Unix path, or a TCP port
 * (a zeroed zkp_address is unset). */
static inline bool zkp_address_set(const zkp_address *a)
{
	return a->kind == ZKP_ADDR_UNIX ? a->path[0] != 0 : a->port != 0;
}
/* Parses "HOST:PORT" ("[ADDR]:PORT" for IPv6) into a tcp address. Errors:
 * ZKP_ERR_CONFIG naming what was wrong (no port, a bad port, an empty or
 * too long host, an unbracketed IPv6 address). */
int zkp_address_parse_host_port(zkp_address *ret, const char *text, zkp_error *err);
/* The default socket's directory: $XDG_RUNTIME_DIR when that is a private
 * directory of ours (zkp_address_check_private_dir), else
 * ${TMPDIR:-/tmp}/zkpd-UID, which may not exist yet. */
void zkp_address_default_dir(char *buf, size_t size);
/* The default socket: "unix:" zkp_address_default_dir() "/zkpd.sock". */
void zkp_address_default(char *buf, size_t size);
/* Whether dir may hold a socket that clients trust: a directory (not a
 * symbolic link; lstat) owned by our uid with mode exactly 0700, so no
 * other user can create, replace or read anything in it. Returns 0, or
 * ZKP_ERR_IO naming the directory and what is wrong with it (err may be
 * NULL). */
int zkp_address_check_private_dir(const char *dir, zkp_error *err);

typedef struct {
	char name[ZKP_CONFIG_NAME_MAX];
	char *pce, *key; /* absolute or relative to the process's cwd */
	enum zkp_key_format key_format;
	bool preload;
	/* porep_sector_size: the Filecoin sector size whose PoRep partition
	 * circuit this is (2K, 8M, 512M, 32G, 64G); jobs may then carry a C1
	 * output. 0 (default): not a PoRep circuit. */
	uint64_t porep_sector_size;
	/* snap_sector_size: the same for the SnapDeals (sector update)
	 * partition circuit; jobs may then carry an update. 0: none. */
	uint64_t snap_sector_size;
	/* window_post_sector_size / winning_post_sector_size: the same for
	 * the Fallback PoSt circuit of a WindowPoSt partition / a WinningPoSt
	 * proof; jobs may then carry PoSt vanilla proofs. At most one of the
	 * four Filecoin sizes is set. */
	uint64_t window_post_sector_size, winning_post_sector_size;
	/* Not an INI key: set by zkpd for its bundled demo circuit, whose key
	 * is an INSECURE development key; Status and logs say so. */
	bool insecure_dev_key;
} zkp_config_circuit;

typedef struct {
	/* [server] */
	zkp_address listen[ZKP_CONFIG_MAX_LISTEN]; /* listen = ADDR[, ADDR...] */
	size_t n_listen;
	unsigned socket_mode;       /* socket_mode, octal, default 0660 */
	uint64_t max_frame_bytes;   /* default 1 GiB: a witness travels in one frame */
	uint64_t preauth_max_frame_bytes; /* before Authenticate (token_file set), 16 KiB */
	uint64_t preauth_buffer_bytes; /* all unauthenticated connections together, 4 MiB */
	uint32_t max_connections;   /* default 4096 */
	uint64_t conn_buffer_bytes; /* per connection unsent replies before reading pauses, 16 MiB */
	uint64_t idle_timeout_ms;   /* connection with no frame and no call, default 300 s; 0 off */
	uint64_t shutdown_grace_ms; /* default 30 s */
	char *witness_dir;          /* NULL: witness paths are refused */
	uint32_t max_queued;        /* jobs waiting, default 10000 */
	uint32_t job_history;       /* finished jobs kept for Await and idempotency, 1024 */
	char *journal_dir;          /* NULL (default): no job journal */
	bool tcp_plaintext;         /* tcp: listeners without TLS allowed; default false */
	char *token_file;           /* NULL: no bearer token; else every connection authenticates */
	char *socket_owner;         /* user name or uid for Unix sockets; NULL: unchanged */
	char *socket_group;         /* group name or gid for Unix sockets; NULL: unchanged */
	/* [tls] (tcp: listeners; PEM files) */
	char *tls_cert, *tls_key;   /* both or neither */
	char *tls_client_ca;        /* NULL: no client certificate asked for */
	/* [gpus] */
	char *devices;               /* "auto" (default), "cpu", or a list "0,1" */
	uint32_t workers_per_device; /* default 1, 1..64 */
	bool fallback_cpu;           /* retry a job on the CPU after a device fault; default false */
	uint64_t device_memory;      /* bytes per GPU; 0 (default): free at start less a margin */
	/* [pipeline] */
	uint32_t pipeline_depth; /* jobs between the CPU and device stages, default 2, 1..64 */
	/* [synthesis] */
	uint32_t synthesis_threads; /* 0 (default): one per online CPU */
	/* [memory] */
	uint64_t memory_budget;      /* 0 (default): MemTotal - reserve */
	uint64_t memory_reserve;     /* default 2 GiB */
	uint64_t critical_reserve;   /* budget only CRITICAL jobs may use; 0 = one working set
				      * of the largest loaded circuit (default) */
	bool purge_between_stages;   /* default true */
	/* [log] */
	enum zkp_log_level log_level; /* error | warn | info (default) | debug */
	enum zkp_log_format log_format; /* text (default) | json: one object per line */
	/* [http] */
	zkp_address http_listen; /* HOST:PORT of /metrics, /status, /healthz; port 0: off
				  * (default) */
	bool http_require_token; /* /metrics and /status need the bearer token */
	/* [grpc] (the cuzk.v1 service, docs/grpc.md) */
	zkp_address grpc_listen;  /* unix:PATH or HOST:PORT; off unless zkp_address_set */
	uint64_t grpc_max_message_bytes; /* largest request or answer, default 256 MiB */
	bool grpc_require_token;  /* with token_file: every call carries the token; default true */
	enum zkp_grpc_transport grpc_transport; /* plaintext (default) | tls */
	bool grpc_allow_insecure_network; /* plaintext on a TCP address that is not loopback */
	/* [circuit.NAME] sections, in file order */
	zkp_config_circuit *circuits;
	size_t n_circuits;
	char *source; /* the file read, NULL for defaults */
} zkp_config;

/* Whether a TCP address is a loopback one (127.0.0.0/8, ::1, localhost). */
bool zkp_address_is_loopback(const zkp_address *a);

/* Writes one "note: ..." line to f for each setting of cfg that is valid
 * but that Curio's cuzk client cannot work with (gRPC over TLS, a token it
 * does not send, a message limit under its 256 MiB); zkpd --check-config
 * prints them. Returns how many. */
size_t zkp_config_print_curio_notes(const zkp_config *cfg, FILE *f);

/* Appends a circuit (strings copied). Errors: ZKP_ERR_CONFIG (bad or
 * duplicate name), ZKP_ERR_NOMEM. */
int zkp_config_add_circuit(zkp_config *cfg, const zkp_config_circuit *c, zkp_error *err);

/* Fills the defaults (no allocation except that listen holds the default
 * address). */
void zkp_config_init(zkp_config *cfg);
/* Frees strings and circuits; accepts a zeroed or initialised config. */
void zkp_config_release(zkp_config *cfg);

/* Reads path on top of the defaults (cfg is initialised here first, so it
 * may be zeroed or hold nothing that needs releasing). On error *cfg is released and err says
 * "path:line: section.key: ...". Errors: ZKP_ERR_IO (cannot open),
 * ZKP_ERR_CONFIG, ZKP_ERR_NOMEM. */
int zkp_config_load(zkp_config *cfg, const char *path, zkp_error *err);
/* The same from text; name stands for the file in messages and relative
 * paths resolve against the cwd. */
int zkp_config_parse(zkp_config *cfg, const char *text, const char *name, zkp_error *err);

/* Looks up a circuit section by name, NULL if none. */
const zkp_config_circuit *zkp_config_circuit_find(const zkp_config *cfg, const char *name);

/* Every option with its default and doc as a commented INI file. */
void zkp_config_print_default(FILE *f);
/* docs/config.md: one table per section from the option table. */
void zkp_config_print_doc(FILE *f);

#endif
