/*
 * zkpd: the proving daemon's entry point. Reads the configuration (or takes
 * the defaults and the bundled demo circuit), starts the server and serves
 * until SIGTERM or SIGINT.
 *
 * Exit status: 0 after a clean drain or a successful check/print, 1 when the
 * daemon cannot start or fails while running, 2 for usage and configuration
 * errors.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo.h"
#include "engine.h"
#include "http.h"
#include "server.h"
#include "sockdir.h"
#include "zkpd/config.h"
#include "zkpd/log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: zkpd [--config FILE] [--listen ADDRESS] [--log-level LEVEL]\n"
		"            [--demo-dir DIR]\n"
		"       zkpd --check-config FILE\n"
		"       zkpd --print-default-config | --print-config-doc | --version\n\n"
		"Serves Groth16 proofs over the framed protobuf protocol of\n"
		"proto/zkpd/v1/zkpd.proto (clients: zkpctl). Without --config it serves the\n"
		"bundled demo circuit (INSECURE development key) on the default devices (every\n"
		"CUDA GPU found, else the CPU backend) and the default socket\n"
		"(unix:$XDG_RUNTIME_DIR/zkpd.sock or unix:${TMPDIR:-/tmp}/zkpd-UID/zkpd.sock).\n"
		"  --config FILE           INI configuration (docs/config.md)\n"
		"  --check-config FILE     validate FILE, the files it names and its GPU list,\n"
		"                          then exit (0 valid, 2 not)\n"
		"  --print-default-config  print every option with its default\n"
		"  --print-config-doc      print docs/config.md\n"
		"  --listen ADDRESS        serve only unix:PATH or tcp:HOST:PORT (overrides\n"
		"                          server.listen)\n"
		"  --log-level LEVEL       error, warn, info or debug (overrides log.level)\n"
		"  --demo-dir DIR          where the demo circuit's files are made (default\n"
		"                          $XDG_CACHE_HOME/zkpd/demo or ~/.cache/zkpd/demo)\n"
		"SIGTERM or SIGINT: stop accepting, finish running jobs within\n"
		"server.shutdown_grace, exit 0.\n"
		"Exit status: 0 clean exit, 1 cannot start or failed, 2 usage or configuration.\n");
}

/* One descriptor per connection: take every descriptor the hard limit
 * allows, so server.max_connections is what limits clients. */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		zkp_log(ZKP_LOG_WARN, "cannot raise the open-file limit to %llu",
			(unsigned long long)rl.rlim_max);
}

/* Circuit files must be readable, the journal directory writable (or
 * creatable: zkpd makes it at start) and every socket's directory usable
 * (sockdir.h), before the daemon promises to serve. */
static int check_files(const zkp_config *cfg, const char *name)
{
	int bad = 0;
	struct stat st;
	if (cfg->journal_dir && (stat(cfg->journal_dir, &st) ? errno != ENOENT :
				 !S_ISDIR(st.st_mode) || access(cfg->journal_dir, W_OK | X_OK))) {
		fprintf(stderr, "%s: server.journal_dir: %s is not a writable directory\n", name,
			cfg->journal_dir);
		bad = 1;
	}
	zkp_error err = { 0 };
	if (zkp_sockdir_check_all(cfg, name))
		bad = 1;
	int rc = zkp_engine_check_devices(cfg, &err);
	if (rc) {
		fprintf(stderr, "%s: %s\n", name, zkp_error_text(&err, rc));
		bad = 1;
	}
	for (size_t i = 0; i < cfg->n_circuits; i++) {
		const zkp_config_circuit *c = &cfg->circuits[i];
		if (access(c->pce, R_OK)) {
			fprintf(stderr, "%s: [circuit.%s] pce: cannot read %s\n", name, c->name,
				c->pce);
			bad = 1;
		}
		if (access(c->key, R_OK)) {
			fprintf(stderr, "%s: [circuit.%s] key: cannot read %s\n", name, c->name,
				c->key);
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	const char *config_path = NULL, *check_path = NULL, *level_arg = NULL;
	const char *demo_dir_arg = NULL, *listen_arg = NULL;
	zkp_config cfg;
	zkp_error err = { 0 };
	zkp_server *srv = NULL;
	zkp_http *http = NULL;
	int rc, status = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_next = i + 1 < argc;
		if (!strcmp(a, "--config") && has_next) {
			config_path = argv[++i];
		} else if (!strcmp(a, "--check-config") && has_next) {
			check_path = argv[++i];
		} else if (!strcmp(a, "--log-level") && has_next) {
			level_arg = argv[++i];
		} else if (!strcmp(a, "--listen") && has_next) {
			listen_arg = argv[++i];
		} else if (!strcmp(a, "--demo-dir") && has_next) {
			demo_dir_arg = argv[++i];
		} else if (!strcmp(a, "--print-default-config")) {
			zkp_config_print_default(stdout);
			return 0;
		} else if (!strcmp(a, "--print-config-doc")) {
			zkp_config_print_doc(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("zkpd %s\n", ZKPD_VERSION);
			if (zkp_engine_test_hooks())
				printf("%s\n", zkp_engine_test_hooks());
			return 0;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "zkpd: unknown or incomplete option '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}

	zkp_config_init(&cfg);
	if (check_path) {
		rc = zkp_config_load(&cfg, check_path, &err);
		if (rc) {
			fprintf(stderr, "%s\n", zkp_error_text(&err, rc));
			return 2;
		}
		status = check_files(&cfg, check_path) ? 2 : 0;
		if (!status)
			printf("%s: ok (%zu circuit(s), %zu listen address(es))\n", check_path,
			       cfg.n_circuits, cfg.n_listen);
		if (!status)
			zkp_config_print_curio_notes(&cfg, stdout);
		zkp_config_release(&cfg);
		return status;
	}
	if (config_path) {
		rc = zkp_config_load(&cfg, config_path, &err);
		if (rc) {
			fprintf(stderr, "zkpd: %s\n", zkp_error_text(&err, rc));
			return 2;
		}
	}
	if (listen_arg) {
		rc = zkp_address_parse(&cfg.listen[0], listen_arg, &err);
		if (rc) {
			fprintf(stderr, "zkpd: --listen: %s\n", zkp_error_text(&err, rc));
			zkp_config_release(&cfg);
			return 2;
		}
		cfg.n_listen = 1;
	}
	enum zkp_log_level level = cfg.log_level;
	if (level_arg && zkp_log_level_parse(&level, level_arg)) {
		fprintf(stderr, "zkpd: --log-level: '%s' is not error, warn, info or debug\n",
			level_arg);
		zkp_config_release(&cfg);
		return 2;
	}
	zkp_log_init("zkpd", level);
	zkp_log_set_format(cfg.log_format);
	/* A client that disappears must cost its connection, not the daemon. */
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();

	if (!config_path) {
		char dir[4096];
		if (demo_dir_arg)
			snprintf(dir, sizeof(dir), "%s", demo_dir_arg);
		else
			zkp_demo_default_dir(dir, sizeof(dir));
		rc = zkp_demo_prepare(&cfg, dir, &err);
		if (rc) {
			zkp_log(ZKP_LOG_ERROR, "demo circuit: %s", zkp_error_text(&err, rc));
			goto out;
		}
		zkp_log(ZKP_LOG_WARN, "no --config: serving the demo circuit from %s, whose key "
				      "is an INSECURE development key (never use it for "
				      "anything of value)", dir);
	}
	if (zkp_engine_test_hooks())
		zkp_log(ZKP_LOG_WARN, "%s", zkp_engine_test_hooks());
	zkp_log(ZKP_LOG_INFO, "zkpd %s starting (%s, %zu circuit(s))", ZKPD_VERSION,
		config_path ? config_path : "default configuration", cfg.n_circuits);
	double start = zkp_session_now();
	/* Bound first: a taken HTTP port stops zkpd before it serves anything. */
	if (cfg.http_listen.port) {
		rc = zkp_http_new(&http, &cfg.http_listen, start, &err);
		if (rc) {
			zkp_log(ZKP_LOG_ERROR, "cannot start: %s", zkp_error_text(&err, rc));
			goto out;
		}
	}
	rc = zkp_server_new(&srv, &cfg, &err);
	if (rc) {
		zkp_log(ZKP_LOG_ERROR, "cannot start: %s", zkp_error_text(&err, rc));
		status = rc == ZKP_ERR_CONFIG ? 2 : 1;
		goto out;
	}
	if (http) {
		rc = zkp_http_start(http, srv, cfg.http_require_token, &err);
		if (rc) {
			zkp_log(ZKP_LOG_ERROR, "cannot start: %s", zkp_error_text(&err, rc));
			goto out;
		}
	}
	status = zkp_server_run(srv) ? 1 : 0;
	zkp_log(ZKP_LOG_INFO, "stopped");
out:
	zkp_http_free(http);
	zkp_server_free(srv);
	zkp_config_release(&cfg);
	return status;
}
