/*
 * Config: defaults, every value type good and bad with the exact file:line
 * in the message, bounds, unknown and repeated keys, circuit sections,
 * addresses, docs/config.md against the option table, and the log module's
 * level names and line format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "zkpd/config.h"
#include "zkpd/log.h"

static char *print_to_string(void (*print)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	print(f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect_ok(zkp_config *cfg, const char *text)
{
	zkp_error e = { 0 };
	int rc = zkp_config_parse(cfg, text, "t.ini", &e);
	if (rc != 0)
		fail_msg("unexpected error %d: %s\ninput:\n%s", rc, e.msg, text);
}

static void expect_err(const char *text, const char *msg)
{
	zkp_config cfg;
	zkp_error e = { 0 };
	int rc = zkp_config_parse(&cfg, text, "t.ini", &e);
	if (rc != ZKP_ERR_CONFIG || strcmp(e.msg, msg) != 0)
		fail_msg("input:\n%s\nexpected: %s\ngot (%d): %s", text, msg, rc, e.msg);
	/* released on error: a second release is harmless */
	zkp_config_release(&cfg);
}

/* The error message starts with prefix (for messages whose tail is long). */
static void expect_err_prefix(const char *text, const char *prefix)
{
	zkp_config cfg;
	zkp_error e = { 0 };
	int rc = zkp_config_parse(&cfg, text, "t.ini", &e);
	if (rc != ZKP_ERR_CONFIG || strncmp(e.msg, prefix, strlen(prefix)) != 0)
		fail_msg("input:\n%s\nexpected prefix: %s\ngot (%d): %s", text, prefix, rc, e.msg);
}

static void assert_same_config(const zkp_config *a, const zkp_config *b)
{
	assert_int_equal(a->n_listen, b->n_listen);
	for (size_t i = 0; i < a->n_listen; i++) {
		assert_int_equal(a->listen[i].kind, b->listen[i].kind);
		assert_string_equal(a->listen[i].path, b->listen[i].path);
		assert_string_equal(a->listen[i].host, b->listen[i].host);
		assert_int_equal(a->listen[i].port, b->listen[i].port);
	}
	assert_int_equal(a->socket_mode, b->socket_mode);
	assert_int_equal(a->max_frame_bytes, b->max_frame_bytes);
	assert_int_equal(a->max_connections, b->max_connections);
	assert_int_equal(a->conn_buffer_bytes, b->conn_buffer_bytes);
	assert_int_equal(a->idle_timeout_ms, b->idle_timeout_ms);
	assert_int_equal(a->shutdown_grace_ms, b->shutdown_grace_ms);
	assert_true((a->witness_dir == NULL) == (b->witness_dir == NULL));
	if (a->witness_dir)
		assert_string_equal(a->witness_dir, b->witness_dir);
	assert_int_equal(a->max_queued, b->max_queued);
	assert_int_equal(a->job_history, b->job_history);
	assert_true((a->journal_dir == NULL) == (b->journal_dir == NULL));
	if (a->journal_dir)
		assert_string_equal(a->journal_dir, b->journal_dir);
	assert_string_equal(a->devices, b->devices);
	assert_int_equal(a->workers_per_device, b->workers_per_device);
	assert_int_equal(a->pipeline_depth, b->pipeline_depth);
	assert_int_equal(a->synthesis_threads, b->synthesis_threads);
	assert_int_equal(a->memory_budget, b->memory_budget);
	assert_int_equal(a->memory_reserve, b->memory_reserve);
	assert_int_equal(a->critical_reserve, b->critical_reserve);
	assert_int_equal(a->purge_between_stages, b->purge_between_stages);
	assert_int_equal(a->log_level, b->log_level);
	assert_int_equal(a->log_format, b->log_format);
	assert_string_equal(a->http_listen.host, b->http_listen.host);
	assert_int_equal(a->http_listen.port, b->http_listen.port);
	assert_int_equal(a->n_circuits, b->n_circuits);
}

static void test_defaults(void **state)
{
	(void)state;
	zkp_config cfg;
	zkp_config_init(&cfg);
	assert_int_equal(cfg.n_listen, 1);
	assert_int_equal(cfg.listen[0].kind, ZKP_ADDR_UNIX);
	char def[256];
	zkp_address_default(def, sizeof(def));
	assert_string_equal(def + 5, cfg.listen[0].path);
	assert_int_equal(cfg.socket_mode, 0660);
	assert_int_equal(cfg.max_frame_bytes, 1ull << 30);
	assert_int_equal(cfg.preauth_max_frame_bytes, 16ull << 10);
	assert_int_equal(cfg.preauth_buffer_bytes, 4ull << 20);
	assert_int_equal(cfg.max_connections, 4096);
	assert_int_equal(cfg.conn_buffer_bytes, 16ull << 20);
	assert_int_equal(cfg.idle_timeout_ms, 300000);
	assert_int_equal(cfg.shutdown_grace_ms, 30000);
	assert_null(cfg.witness_dir);
	assert_int_equal(cfg.max_queued, 10000);
	assert_int_equal(cfg.job_history, 1024);
	assert_null(cfg.journal_dir);
	assert_string_equal(cfg.devices, "auto");
	assert_int_equal(cfg.workers_per_device, 1);
	assert_int_equal(cfg.pipeline_depth, 2);
	assert_int_equal(cfg.synthesis_threads, 0);
	assert_int_equal(cfg.memory_budget, 0);
	assert_int_equal(cfg.memory_reserve, 2ull << 30);
	assert_int_equal(cfg.critical_reserve, 0);
	assert_true(cfg.purge_between_stages);
	assert_int_equal(cfg.log_level, ZKP_LOG_INFO);
	assert_int_equal(cfg.n_circuits, 0);
	assert_null(cfg.source);

	/* an empty file is the defaults too */
	zkp_config parsed;
	expect_ok(&parsed, "");
	assert_same_config(&cfg, &parsed);
	assert_string_equal(parsed.source, "t.ini");
	zkp_config_release(&parsed);

	/* the printed default file parses back to the defaults */
	char *text = print_to_string(zkp_config_print_default);
	expect_ok(&parsed, text);
	assert_same_config(&cfg, &parsed);
	zkp_config_release(&parsed);
	free(text);

	zkp_config_release(&cfg);
	zkp_config_release(&cfg); /* a zeroed config */
}

static void test_values(void **state)
{
	(void)state;
	zkp_config cfg;
	expect_ok(&cfg, "# comment\n"
			"[server]\n"
			"listen = unix:/run/a.sock, tcp:127.0.0.1:9000 ; inline comment\n"
			"tcp_plaintext = yes\n"
			"socket_mode = 600\n"
			"max_frame_bytes = 2GiB\n"
			"max_connections = 10\n"
			"conn_buffer_bytes = 512K\n"
			"idle_timeout = 0\n"
			"shutdown_grace = 1500ms\n"
			"witness_dir = /var/lib/zkpd/w\n"
			"max_queued = 7\n"
			"job_history = 0\n"
			"journal_dir = /var/lib/zkpd/journal\n"
			"[gpus]\n"
			"devices = 1, 0,3\n"
			"workers_per_device = 64\n"
			"[pipeline]\n"
			"depth = 1\n"
			"[synthesis]\n"
			"threads = 8\n"
			"[memory]\n"
			"budget = 3 T\n"
			"reserve = 100\n"
			"critical_reserve = 5MiB\n"
			"purge_between_stages = off\n"
			"[log]\n"
			"level = DEBUG\n");
	assert_int_equal(cfg.n_listen, 2);
	assert_string_equal(cfg.listen[0].path, "/run/a.sock");
	assert_int_equal(cfg.listen[1].kind, ZKP_ADDR_TCP);
	assert_string_equal(cfg.listen[1].host, "127.0.0.1");
	assert_int_equal(cfg.listen[1].port, 9000);
	assert_int_equal(cfg.socket_mode, 0600);
	assert_int_equal(cfg.max_frame_bytes, 2ull << 30);
	assert_int_equal(cfg.max_connections, 10);
	assert_int_equal(cfg.conn_buffer_bytes, 512ull << 10);
	assert_int_equal(cfg.idle_timeout_ms, 0);
	assert_int_equal(cfg.shutdown_grace_ms, 1500);
	assert_string_equal(cfg.witness_dir, "/var/lib/zkpd/w");
	assert_int_equal(cfg.max_queued, 7);
	assert_int_equal(cfg.job_history, 0);
	assert_string_equal(cfg.journal_dir, "/var/lib/zkpd/journal");
	assert_string_equal(cfg.devices, "1,0,3");
	assert_int_equal(cfg.workers_per_device, 64);
	assert_int_equal(cfg.pipeline_depth, 1);
	assert_int_equal(cfg.synthesis_threads, 8);
	assert_int_equal(cfg.memory_budget, 3ull << 40);
	assert_int_equal(cfg.memory_reserve, 100);
	assert_int_equal(cfg.critical_reserve, 5ull << 20);
	assert_false(cfg.purge_between_stages);
	assert_int_equal(cfg.log_level, ZKP_LOG_DEBUG);
	zkp_config_release(&cfg);

	/* every spelling of each type */
	static const char *const bools[][2] = { { "true", "1" },  { "yes", "1" }, { "on", "1" },
						{ "1", "1" },     { "false", "0" }, { "no", "0" },
						{ "off", "0" },   { "0", "0" } };
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "[memory]\npurge_between_stages = %s\n", bools[i][0]);
		expect_ok(&cfg, text);
		assert_int_equal(cfg.purge_between_stages, bools[i][1][0] == '1');
		zkp_config_release(&cfg);
	}
	static const struct {
		const char *text;
		unsigned long long v;
	} sizes[] = { { "0", 0 },          { "123", 123 },          { "1K", 1024 },
		      { "1KiB", 1024 },    { "3M", 3ull << 20 },    { "3MiB", 3ull << 20 },
		      { "2G", 2ull << 30 }, { "2 GiB", 2ull << 30 }, { "1T", 1ull << 40 },
		      { "1TiB", 1ull << 40 } };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "[memory]\nbudget = %s\n", sizes[i].text);
		expect_ok(&cfg, text);
		assert_int_equal(cfg.memory_budget, sizes[i].v);
		zkp_config_release(&cfg);
	}
	static const struct {
		const char *text;
		unsigned long long ms;
	} durs[] = { { "0", 0 },       { "5", 5000 },        { "250ms", 250 },
		     { "7s", 7000 },   { "2m", 120000 },     { "1h", 3600000 },
		     { "10 s", 10000 } };
	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "[server]\nidle_timeout = %s\n", durs[i].text);
		expect_ok(&cfg, text);
		assert_int_equal(cfg.idle_timeout_ms, durs[i].ms);
		zkp_config_release(&cfg);
	}
	expect_ok(&cfg, "[gpus]\ndevices = cpu\n");
	assert_string_equal(cfg.devices, "cpu");
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[gpus]\ndevices = 63\n[gpus]\n");
	assert_string_equal(cfg.devices, "63");
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[server]\nsocket_mode = 0777\n");
	assert_int_equal(cfg.socket_mode, 0777);
	zkp_config_release(&cfg);
}

static void test_bad_values(void **state)
{
	(void)state;
	expect_err("[memory]\npurge_between_stages = maybe\n",
		   "t.ini:2: memory.purge_between_stages: bad boolean \"maybe\" (expected true, "
		   "false, yes, no, on, off, 1 or 0)");
	expect_err("[server]\n\nmax_connections = 12x\n",
		   "t.ini:3: server.max_connections: not a number \"12x\" (expected a whole "
		   "number, 1..1000000)");
	expect_err("[server]\nmax_connections = -1\n",
		   "t.ini:2: server.max_connections: not a number \"-1\" (expected a whole "
		   "number, 1..1000000)");
	expect_err("[server]\nmax_frame_bytes = 1Q\n",
		   "t.ini:2: server.max_frame_bytes: bad size \"1Q\" (expected bytes with an "
		   "optional K, M, G or T suffix, 64K..64G)");
	expect_err("[memory]\nbudget = 1k\n",
		   "t.ini:2: memory.budget: bad size \"1k\" (expected bytes with an optional K, "
		   "M, G or T suffix)");
	expect_err("[memory]\nbudget = 99999999999999999999\n",
		   "t.ini:2: memory.budget: too large: \"99999999999999999999\" (expected bytes "
		   "with an optional K, M, G or T suffix)");
	expect_err("[memory]\nbudget = 17179869184T\n",
		   "t.ini:2: memory.budget: too large: \"17179869184T\" (expected bytes with an "
		   "optional K, M, G or T suffix)");
	expect_err("[server]\nshutdown_grace = 5d\n",
		   "t.ini:2: server.shutdown_grace: bad duration \"5d\" (expected a number with "
		   "ms, s, m or h; bare is seconds, 0..1h)");
	expect_err("[server]\nshutdown_grace = s\n",
		   "t.ini:2: server.shutdown_grace: bad duration \"s\" (expected a number with "
		   "ms, s, m or h; bare is seconds, 0..1h)");
	expect_err("[server]\nsocket_mode = 0668\n",
		   "t.ini:2: server.socket_mode: bad mode \"0668\" (expected octal digits such "
		   "as 0660, 0000..0777)");
	expect_err("[server]\nsocket_mode = 1777\n",
		   "t.ini:2: server.socket_mode: out of range: \"1777\" (expected octal digits, "
		   "0000..0777)");
	expect_err("[log]\nlevel = loud\n",
		   "t.ini:2: log.level: bad value \"loud\" (expected error, warn, info or debug)");
	expect_err("[gpus]\ndevices = 64\n",
		   "t.ini:2: gpus.devices: bad device list \"64\" (expected auto, cpu or GPU "
		   "indices 0..63 such as 0,1)");
	expect_err("[gpus]\ndevices = 0,,1\n",
		   "t.ini:2: gpus.devices: bad device list \"0,,1\" (expected auto, cpu or GPU "
		   "indices 0..63 such as 0,1)");
	expect_err("[gpus]\ndevices = gpu0\n",
		   "t.ini:2: gpus.devices: bad device list \"gpu0\" (expected auto, cpu or GPU "
		   "indices 0..63 such as 0,1)");
	expect_err("[gpus]\ndevices = 1,1\n",
		   "t.ini:2: gpus.devices: device 1 listed twice (expected auto, cpu or GPU "
		   "indices 0..63 such as 0,1)");
	expect_err("[server]\nwitness_dir =\n",
		   "t.ini:2: server.witness_dir: empty value (expected a path)");
	expect_err("[server]\njournal_dir = /var/lib/zkpd/journal   # made at install\n",
		   "t.ini:2: server.journal_dir: \"/var/lib/zkpd/journal   # made at install\" "
		   "holds a # comment (expected the comment on its own line, or after \" ;\")");
	expect_err("[synthesis]\nthreads = 4\t# cores\n",
		   "t.ini:2: synthesis.threads: \"4\t# cores\" holds a # comment (expected the "
		   "comment on its own line, or after \" ;\")");
	/* the first error is the one reported */
	expect_err("[server]\nmax_queued = 0\nmax_connections = 0\n",
		   "t.ini:2: server.max_queued: out of range: \"0\" (expected a whole number, "
		   "1..10000000)");
}

static void test_bounds(void **state)
{
	(void)state;
	zkp_config cfg;
	expect_ok(&cfg, "[gpus]\nworkers_per_device = 1\n[pipeline]\ndepth = 64\n"
			"[server]\nmax_frame_bytes = 64K\nshutdown_grace = 1h\n");
	assert_int_equal(cfg.pipeline_depth, 64);
	assert_int_equal(cfg.max_frame_bytes, 65536);
	zkp_config_release(&cfg);
	expect_err("[gpus]\nworkers_per_device = 0\n",
		   "t.ini:2: gpus.workers_per_device: out of range: \"0\" (expected a whole "
		   "number, 1..64)");
	expect_err("[pipeline]\ndepth = 65\n",
		   "t.ini:2: pipeline.depth: out of range: \"65\" (expected a whole number, "
		   "1..64)");
	expect_err("[server]\nmax_frame_bytes = 65535\n",
		   "t.ini:2: server.max_frame_bytes: out of range: \"65535\" (expected bytes "
		   "with an optional K, M, G or T suffix, 64K..64G)");
	expect_err("[server]\nshutdown_grace = 3601\n",
		   "t.ini:2: server.shutdown_grace: out of range: \"3601\" (expected a number "
		   "with ms, s, m or h; bare is seconds, 0..1h)");
	expect_err("[synthesis]\nthreads = 4294967296\n",
		   "t.ini:2: synthesis.threads: out of range: \"4294967296\" (expected a whole "
		   "number, 0..1024)");
}

static void test_structure_errors(void **state)
{
	(void)state;
	expect_err("[server]\nlisten_on = unix:/x\n",
		   "t.ini:2: server.listen_on: unknown key (expected one of listen, "
		   "socket_mode, max_frame_bytes, preauth_max_frame_bytes, "
		   "preauth_buffer_bytes, max_connections, conn_buffer_bytes, "
		   "idle_timeout, shutdown_grace, witness_dir, max_queued, job_history, "
		   "journal_dir, tcp_plaintext, token_file, socket_owner, socket_group)");
	expect_err("[log]\n[bogus]\nlevel = info\n",
		   "t.ini:2: [bogus]: unknown section (expected server, tls, gpus, "
		   "pipeline, synthesis, memory, log, http, grpc or circuit.NAME)");
	/* a section with no keys is still checked */
	expect_err("[bogus]\n",
		   "t.ini:1: [bogus]: unknown section (expected server, tls, gpus, "
		   "pipeline, synthesis, memory, log, http, grpc or circuit.NAME)");
	expect_err("level = info\n",
		   "t.ini:1: level: key outside any section (expected a [section] line before "
		   "it)");
	expect_err("[log]\nlevel = info\n\n[server]\n[log]\nlevel = warn\n",
		   "t.ini:6: log.level: repeated key (expected it once; first set on line 2)");
	expect_err("[log]\nlevel\n",
		   "t.ini:2: syntax error (expected [section], key = value or a comment)");
	expect_err("[log\n", "t.ini:1: syntax error (expected [section], key = value or a "
			     "comment)");
	expect_err("[log]\nlevel = info\n  debug\n",
		   "t.ini:3: indented line continues a value (expected key = value on one "
		   "line)");
	char text[400];
	memset(text, 0, sizeof(text));
	strcpy(text, "[server]\nwitness_dir = /");
	memset(text + strlen(text), 'a', 250);
	strcat(text, "\n[log]\nlevel = loud\n");
	expect_err(text, "t.ini:2: line longer than 198 bytes");
}

static void test_circuits(void **state)
{
	(void)state;
	zkp_config cfg;
	expect_ok(&cfg, "[circuit.sha256-v1.2_x]\n"
			"pce = /c/sha.pce\n"
			"key = /c/sha.zkey\n"
			"key_format = zkey\n"
			"[log]\n"
			"level = warn\n"
			"[circuit.B]\n"
			"key_format = bellman\n"
			"key = rel/b.params\n"
			"pce = b.pce\n"
			"preload = yes\n");
	assert_int_equal(cfg.n_circuits, 2);
	const zkp_config_circuit *a = zkp_config_circuit_find(&cfg, "sha256-v1.2_x");
	assert_non_null(a);
	assert_string_equal(a->pce, "/c/sha.pce");
	assert_string_equal(a->key, "/c/sha.zkey");
	assert_int_equal(a->key_format, ZKP_KEY_FORMAT_ZKEY);
	assert_false(a->preload);
	assert_false(a->insecure_dev_key);
	const zkp_config_circuit *b = zkp_config_circuit_find(&cfg, "B");
	assert_ptr_equal(b, &cfg.circuits[1]);
	/* parse: relative paths stay relative to the cwd */
	assert_string_equal(b->pce, "b.pce");
	assert_string_equal(b->key, "rel/b.params");
	assert_int_equal(b->key_format, ZKP_KEY_FORMAT_BELLMAN);
	assert_true(b->preload);
	assert_null(zkp_config_circuit_find(&cfg, "b"));
	assert_int_equal(cfg.log_level, ZKP_LOG_WARN);

	/* add_circuit copies, rejects bad and duplicate names */
	zkp_config_circuit demo = { .name = "demo", .pce = "d.pce", .key = "d.zkey",
				    .insecure_dev_key = true };
	zkp_error e = { 0 };
	assert_int_equal(zkp_config_add_circuit(&cfg, &demo, &e), 0);
	assert_ptr_not_equal(cfg.circuits[2].pce, demo.pce);
	assert_true(zkp_config_circuit_find(&cfg, "demo")->insecure_dev_key);
	assert_int_equal(zkp_config_add_circuit(&cfg, &demo, &e), ZKP_ERR_CONFIG);
	assert_string_equal(e.msg, "circuit \"demo\" defined twice");
	strcpy(demo.name, "no/slash");
	assert_int_equal(zkp_config_add_circuit(&cfg, &demo, &e), ZKP_ERR_CONFIG);
	assert_string_equal(e.msg, "bad circuit name \"no/slash\" (expected 1-63 of A-Z a-z "
				   "0-9 _ . -)");
	zkp_config_release(&cfg);

	expect_err("[log]\n[circuit.x]\npce = a\nkey_format = zkey\n[log]\n",
		   "t.ini:2: circuit.x: missing key key (expected pce, key and key_format)");
	expect_err("[circuit.x]\npce = a\nkey = b\n",
		   "t.ini:1: circuit.x: missing key key_format (expected pce, key and "
		   "key_format)");
	expect_err("\n[circuit.x]\n",
		   "t.ini:2: circuit.x: missing key pce (expected pce, key and key_format)");
	expect_err("[circuit.x]\npce = a\nkey = b\nkey_format = json\n",
		   "t.ini:4: circuit.x.key_format: bad value \"json\" (expected zkey or "
		   "bellman)");
	expect_err("[circuit.x]\npce = a\npce = b\n",
		   "t.ini:3: circuit.x.pce: repeated key (expected it once; first set on line "
		   "2)");
	expect_err("[circuit.x]\nweight = 3\n",
		   "t.ini:2: circuit.x.weight: unknown key (expected one of pce, key, "
		   "key_format, preload, porep_sector_size, snap_sector_size, "
		   "window_post_sector_size, winning_post_sector_size)");
	/* A PoRep circuit names a published sector size. */
	expect_ok(&cfg, "[circuit.p]\npce = p.pce\nkey = p.params\nkey_format = bellman\n"
			"porep_sector_size = 32G\n");
	assert_int_equal(cfg.circuits[0].porep_sector_size, 32ULL << 30);
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[circuit.p]\npce = p.pce\nkey = p.params\nkey_format = bellman\n");
	assert_int_equal(cfg.circuits[0].porep_sector_size, 0);
	zkp_config_release(&cfg);
	expect_err("[circuit.p]\npce = p.pce\nkey = p.params\nkey_format = bellman\n"
		   "porep_sector_size = 4K\n",
		   "t.ini:5: circuit.p.porep_sector_size: 4096 bytes is not a published sector size "
		   "(expected 2K, 8M, 512M, 32G or 64G)");
	expect_err("[circuit.a b]\n",
		   "t.ini:1: [circuit.a b]: bad circuit name \"a b\" (expected 1-63 of A-Z a-z "
		   "0-9 _ . -)");
	expect_err("[circuit.]\n",
		   "t.ini:1: [circuit.]: bad circuit name \"\" (expected 1-63 of A-Z a-z 0-9 _ "
		   ". -)");
	char text[256];
	snprintf(text, sizeof(text), "[circuit.%064d]\n", 0);
	expect_err_prefix(text, "t.ini:1: [circuit.0000");
	snprintf(text, sizeof(text),
		 "[circuit.%063d]\npce = a\nkey = b\nkey_format = zkey\n", 0);
	expect_ok(&cfg, text);
	assert_int_equal(strlen(cfg.circuits[0].name), 63);
	zkp_config_release(&cfg);
	expect_err("[circuit.x]\npce = a\nkey = b\nkey_format = zkey\n"
		   "[circuit.y]\npce = a\nkey = b\nkey_format = zkey\n"
		   "[circuit.x]\npce = a\nkey = b\nkey_format = zkey\n",
		   "t.ini:9: [circuit.x]: circuit defined twice (expected one section per "
		   "circuit)");
	expect_err("[circuit]\n", "t.ini:1: [circuit]: unknown section (expected server, tls, "
				  "gpus, pipeline, synthesis, memory, log, http, grpc or circuit.NAME)");
}

static void test_load(void **state)
{
	(void)state;
	char dir[] = "/tmp/zkpd-config-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/zkpd.ini", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("[server]\nwitness_dir = w\n"
	      "[circuit.c]\npce = sub/c.pce\nkey = /abs/c.zkey\nkey_format = zkey\n", f);
	assert_int_equal(fclose(f), 0);

	zkp_config cfg;
	zkp_error e = { 0 };
	int rc = zkp_config_load(&cfg, path, &e);
	if (rc != 0)
		fail_msg("%s", e.msg);
	char want[256];
	snprintf(want, sizeof(want), "%s/sub/c.pce", dir);
	assert_string_equal(cfg.circuits[0].pce, want);
	assert_string_equal(cfg.circuits[0].key, "/abs/c.zkey");
	snprintf(want, sizeof(want), "%s/w", dir);
	assert_string_equal(cfg.witness_dir, want);
	assert_string_equal(cfg.source, path);
	zkp_config_release(&cfg);

	/* errors name the file as given */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[log]\n\nlevel = 3\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(zkp_config_load(&cfg, path, &e), ZKP_ERR_CONFIG);
	snprintf(want, sizeof(want),
		 "%s:3: log.level: bad value \"3\" (expected error, warn, info or debug)", path);
	assert_string_equal(e.msg, want);
	zkp_config_release(&cfg);

	/* a file in the cwd: paths stay relative to the cwd */
	char cwd[512];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	f = fopen("zkpd.ini", "w");
	assert_non_null(f);
	fputs("[circuit.c]\npce = c.pce\nkey = k\nkey_format = bellman\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(zkp_config_load(&cfg, "zkpd.ini", &e), 0);
	assert_string_equal(cfg.circuits[0].pce, "c.pce");
	zkp_config_release(&cfg);
	assert_int_equal(chdir(cwd), 0);

	assert_int_equal(unlink(path), 0);
	assert_int_equal(zkp_config_load(&cfg, path, &e), ZKP_ERR_IO);
	snprintf(want, sizeof(want), "%s: cannot open: ", path);
	assert_int_equal(strncmp(e.msg, want, strlen(want)), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_addresses(void **state)
{
	(void)state;
	zkp_address a;
	zkp_error e = { 0 };
	assert_int_equal(zkp_address_parse(&a, "unix:/run/zkpd.sock", &e), 0);
	assert_int_equal(a.kind, ZKP_ADDR_UNIX);
	assert_string_equal(a.path, "/run/zkpd.sock");
	assert_int_equal(zkp_address_parse(&a, "tcp:localhost:7000", &e), 0);
	assert_int_equal(a.kind, ZKP_ADDR_TCP);
	assert_string_equal(a.host, "localhost");
	assert_int_equal(a.port, 7000);
	assert_int_equal(zkp_address_parse(&a, "tcp:[::1]:65535", &e), 0);
	assert_string_equal(a.host, "::1");
	assert_int_equal(a.port, 65535);
	assert_int_equal(zkp_address_parse(&a, "tcp:0.0.0.0:1", &e), 0);
	assert_int_equal(a.port, 1);

	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "/run/zkpd.sock",
		  "address \"/run/zkpd.sock\" has no unix: or tcp: prefix (expected unix:PATH or "
		  "tcp:HOST:PORT)" },
		{ "unix:", "empty socket path in \"unix:\" (expected unix:PATH or tcp:HOST:PORT)" },
		{ "tcp:host:0", "bad port \"0\" in \"tcp:host:0\" (expected 1..65535)" },
		{ "tcp:host:65536", "bad port \"65536\" in \"tcp:host:65536\" (expected 1..65535)" },
		{ "tcp:host:", "bad port \"\" in \"tcp:host:\" (expected 1..65535)" },
		{ "tcp:host:80x", "bad port \"80x\" in \"tcp:host:80x\" (expected 1..65535)" },
		{ "tcp:host", "no port in \"tcp:host\" (expected tcp:HOST:PORT)" },
		{ "tcp::80", "empty host in \"tcp::80\" (expected 1 to 255 bytes)" },
		{ "tcp:::1:80",
		  "bad host in \"tcp:::1:80\" (expected tcp:[ADDR]:PORT for IPv6)" },
		{ "tcp:[::1]80", "bad IPv6 address in \"tcp:[::1]80\" (expected tcp:[ADDR]:PORT)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(zkp_address_parse(&a, bad[i].text, &e), ZKP_ERR_CONFIG);
		if (strcmp(e.msg, bad[i].msg) != 0)
			fail_msg("%s: expected \"%s\", got \"%s\"", bad[i].text, bad[i].msg, e.msg);
	}

	char text[200];
	memset(text, 0, sizeof(text));
	strcpy(text, "unix:/");
	memset(text + 6, 'p', 106); /* a 107-byte path fits sun_path with its NUL */
	assert_int_equal(zkp_address_parse(&a, text, &e), 0);
	assert_int_equal(strlen(a.path), 107);
	text[6 + 106] = 'p';
	assert_int_equal(zkp_address_parse(&a, text, &e), ZKP_ERR_CONFIG);
	assert_non_null(strstr(e.msg, "is too long (expected at most 107 bytes)"));

	/* in the config file */
	zkp_config cfg;
	expect_ok(&cfg, "[server]\nlisten = tcp:[::1]:9000\ntcp_plaintext = true\n");
	assert_int_equal(cfg.n_listen, 1);
	assert_string_equal(cfg.listen[0].host, "::1");
	zkp_config_release(&cfg);
	expect_err("[server]\nlisten = unix:/a, /b\n",
		   "t.ini:2: server.listen: address \"/b\" has no unix: or tcp: prefix (expected "
		   "unix:PATH or tcp:HOST:PORT)");
	expect_err("[server]\nlisten = unix:/a,unix:/b,unix:/c,unix:/d,unix:/e\n",
		   "t.ini:2: server.listen: more than 4 addresses (expected at most 4)");
	expect_err("[server]\nlisten = tcp:h:99999\n",
		   "t.ini:2: server.listen: bad port \"99999\" in \"tcp:h:99999\" (expected "
		   "1..65535)");

	/* the default address */
	char def[256];
	setenv("XDG_RUNTIME_DIR", "/nonexistent-zkpd-dir", 1);
	zkp_address_default(def, sizeof(def));
	snprintf(text, sizeof(text), "unix:/tmp/zkpd-%u/zkpd.sock", (unsigned)getuid());
	assert_string_equal(def, text);
	/* a runtime directory others may write to is passed over */
	setenv("XDG_RUNTIME_DIR", "/tmp", 1);
	zkp_address_default(def, sizeof(def));
	assert_string_equal(def, text);
	char priv[] = "/tmp/zkpd-xdg-XXXXXX";
	assert_non_null(mkdtemp(priv)); /* mode 0700, ours */
	setenv("XDG_RUNTIME_DIR", priv, 1);
	zkp_address_default(def, sizeof(def));
	snprintf(text, sizeof(text), "unix:%s/zkpd.sock", priv);
	assert_string_equal(def, text);
	unsetenv("XDG_RUNTIME_DIR");
	/* TMPDIR moves the fallback */
	setenv("TMPDIR", priv, 1);
	zkp_address_default(def, sizeof(def));
	snprintf(text, sizeof(text), "unix:%s/zkpd-%u/zkpd.sock", priv, (unsigned)getuid());
	assert_string_equal(def, text);
	unsetenv("TMPDIR");

	/* the private directory check, each refusal named */
	zkp_error pe = { 0 };
	assert_int_equal(zkp_address_check_private_dir(priv, &pe), 0);
	assert_int_equal(chmod(priv, 0755), 0);
	assert_int_equal(zkp_address_check_private_dir(priv, &pe), ZKP_ERR_IO);
	assert_non_null(strstr(pe.msg, "has mode 0755 (expected 0700"));
	assert_int_equal(chmod(priv, 0700), 0);
	char link[sizeof(priv) + 8];
	snprintf(link, sizeof(link), "%s-link", priv);
	assert_int_equal(symlink(priv, link), 0);
	assert_int_equal(zkp_address_check_private_dir(link, &pe), ZKP_ERR_IO);
	assert_non_null(strstr(pe.msg, "is a symbolic link"));
	unlink(link);
	assert_int_equal(zkp_address_check_private_dir("/tmp", &pe), ZKP_ERR_IO);
	if (getuid() != 0)
		assert_non_null(strstr(pe.msg, "is owned by uid 0"));
	else
		assert_non_null(strstr(pe.msg, "has mode 1777"));
	rmdir(priv);
}

static void test_tls_and_auth(void **state)
{
	(void)state;
	zkp_config cfg;
	expect_ok(&cfg, "[server]\nlisten = tcp:127.0.0.1:9000, unix:/run/z.sock\n"
			"token_file = /etc/zkpd/token\nsocket_owner = 0\nsocket_group = 0\n"
			"[tls]\ncert = /etc/zkpd/cert.pem\nkey = /etc/zkpd/key.pem\n"
			"client_ca = /etc/zkpd/ca.pem\n");
	assert_false(cfg.tcp_plaintext);
	assert_string_equal(cfg.tls_cert, "/etc/zkpd/cert.pem");
	assert_string_equal(cfg.tls_key, "/etc/zkpd/key.pem");
	assert_string_equal(cfg.tls_client_ca, "/etc/zkpd/ca.pem");
	assert_string_equal(cfg.token_file, "/etc/zkpd/token");
	assert_string_equal(cfg.socket_owner, "0");
	assert_string_equal(cfg.socket_group, "0");
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[server]\nsocket_owner = root\nsocket_group = root\n");
	zkp_config_release(&cfg);

	expect_err("[server]\nmax_queued = 5\nlisten = tcp:127.0.0.1:9000\n",
		   "t.ini:3: server.listen: tcp:127.0.0.1:9000 without TLS (expected tls.cert and "
		   "tls.key, or server.tcp_plaintext = true for plaintext TCP)");
	expect_err("[server]\nlisten = tcp:h:1\n[tls]\ncert = c.pem\n",
		   "t.ini:4: tls.cert: set without tls.key (expected both or neither)");
	expect_err("[tls]\nkey = k.pem\n",
		   "t.ini:2: tls.key: set without tls.cert (expected both or neither)");
	expect_err("[tls]\nclient_ca = ca.pem\n",
		   "t.ini:2: tls.client_ca: set without tls.cert and tls.key (expected a server "
		   "certificate to verify clients with)");
	expect_err("[server]\n\nsocket_owner = no-such-user-zkpd\n",
		   "t.ini:3: server.socket_owner: no user \"no-such-user-zkpd\" (expected a user "
		   "name or uid)");
	expect_err("[server]\nsocket_group = no-such-group-zkpd\n",
		   "t.ini:2: server.socket_group: no group \"no-such-group-zkpd\" (expected a "
		   "group name or gid)");
	expect_err("[server]\ntcp_plaintext = maybe\n",
		   "t.ini:2: server.tcp_plaintext: bad boolean \"maybe\" (expected true, false, "
		   "yes, no, on, off, 1 or 0)");
	expect_err("[tls]\nciphers = x\n",
		   "t.ini:2: tls.ciphers: unknown key (expected one of cert, key, client_ca)");
}

/* Reads what f captured from stderr into buf. */
static void read_captured(FILE *f, char *buf, size_t size)
{
	rewind(f);
	size_t n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
}

static void test_http_and_log_format(void **state)
{
	(void)state;
	zkp_config cfg;
	zkp_config_init(&cfg);
	assert_int_equal(cfg.http_listen.port, 0); /* off */
	assert_int_equal(cfg.log_format, ZKP_LOG_TEXT);
	zkp_config_release(&cfg);

	expect_ok(&cfg, "[http]\nlisten = 127.0.0.1:9464\n[log]\nformat = json\n");
	assert_int_equal(cfg.http_listen.kind, ZKP_ADDR_TCP);
	assert_string_equal(cfg.http_listen.host, "127.0.0.1");
	assert_int_equal(cfg.http_listen.port, 9464);
	assert_int_equal(cfg.log_format, ZKP_LOG_JSON);
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[http]\nlisten = [::1]:65535\n");
	assert_string_equal(cfg.http_listen.host, "::1");
	assert_int_equal(cfg.http_listen.port, 65535);
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[http]\nlisten = localhost:1\n");
	assert_string_equal(cfg.http_listen.host, "localhost");
	assert_int_equal(cfg.http_listen.port, 1);
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[http]\nlisten =\n");
	assert_int_equal(cfg.http_listen.port, 0);
	zkp_config_release(&cfg);

	expect_err("[http]\nlisten = 127.0.0.1\n",
		   "t.ini:2: http.listen: no port in \"127.0.0.1\" (expected HOST:PORT)");
	expect_err("[http]\nlisten = 127.0.0.1:0\n",
		   "t.ini:2: http.listen: bad port \"0\" in \"127.0.0.1:0\" (expected 1..65535)");
	expect_err("[http]\nlisten = 127.0.0.1:65536\n",
		   "t.ini:2: http.listen: bad port \"65536\" in \"127.0.0.1:65536\" (expected "
		   "1..65535)");
	expect_err("[http]\nlisten = ::1:9464\n",
		   "t.ini:2: http.listen: bad host in \"::1:9464\" (expected [ADDR]:PORT for "
		   "IPv6)");
	expect_err("[http]\nlisten = [::1]9464\n",
		   "t.ini:2: http.listen: bad IPv6 address in \"[::1]9464\" (expected "
		   "[ADDR]:PORT)");
	expect_err("[http]\nlisten = :9464\n",
		   "t.ini:2: http.listen: empty host in \":9464\" (expected 1 to 255 bytes)");
	expect_err("[http]\nlisten = 127.0.0.1:x\n",
		   "t.ini:2: http.listen: bad port \"x\" in \"127.0.0.1:x\" (expected 1..65535)");
	expect_err("[http]\nport = 1\n",
		   "t.ini:2: http.port: unknown key (expected one of listen, require_token)");
	/* [grpc] listen: unset by default and when empty; unix:PATH or
	 * HOST:PORT, TCP under the TLS rule */
	expect_ok(&cfg, "[log]\nlevel = info\n");
	assert_false(zkp_address_set(&cfg.grpc_listen));
	assert_true(cfg.grpc_require_token);
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[grpc]\nlisten =\n");
	assert_false(zkp_address_set(&cfg.grpc_listen));
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[grpc]\nlisten = unix:/run/zkpd/cuzk.sock\nrequire_token = false\n");
	assert_true(zkp_address_set(&cfg.grpc_listen));
	assert_int_equal(cfg.grpc_listen.kind, ZKP_ADDR_UNIX);
	assert_string_equal(cfg.grpc_listen.path, "/run/zkpd/cuzk.sock");
	assert_false(cfg.grpc_require_token);
	assert_int_equal(cfg.grpc_max_message_bytes, 256u << 20);
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[server]\ntcp_plaintext = true\n[grpc]\nlisten = [::1]:9820\n"
			"max_message_bytes = 64M\n");
	assert_int_equal(cfg.grpc_listen.kind, ZKP_ADDR_TCP);
	assert_string_equal(cfg.grpc_listen.host, "::1");
	assert_int_equal(cfg.grpc_listen.port, 9820);
	assert_int_equal(cfg.grpc_max_message_bytes, 64u << 20);
	zkp_config_release(&cfg);
	/* gRPC's transport is its own: plaintext on loopback needs neither TLS
	 * nor server.tcp_plaintext, and tls.cert (for the framed listeners)
	 * does not make it TLS */
	expect_ok(&cfg, "[grpc]\nlisten = 127.0.0.1:9820\n");
	assert_int_equal(cfg.grpc_transport, ZKP_GRPC_PLAINTEXT);
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[grpc]\nlisten = localhost:9820\n");
	zkp_config_release(&cfg);
	expect_ok(&cfg, "[tls]\ncert = /c.pem\nkey = /k.pem\n[grpc]\nlisten = 127.0.0.2:9820\n");
	assert_int_equal(cfg.grpc_transport, ZKP_GRPC_PLAINTEXT);
	zkp_config_release(&cfg);
	/* plaintext on the network only when asked for by name */
	expect_err("[server]\ntcp_plaintext = true\n[grpc]\nlisten = 0.0.0.0:9820\n",
		   "t.ini:4: grpc.listen: 0.0.0.0:9820 is not a loopback address and "
		   "grpc.transport is plaintext (expected a unix: socket or 127.0.0.1, "
		   "grpc.transport = tls, or grpc.allow_insecure_plaintext_network = true to send "
		   "proofs unencrypted over the network)");
	expect_err_prefix("[grpc]\nlisten = [2001:db8::1]:9820\n",
		   "t.ini:2: grpc.listen: 2001:db8::1:9820 is not a loopback address");
	expect_ok(&cfg, "[grpc]\nlisten = 10.0.0.5:9820\n"
			"allow_insecure_plaintext_network = true\n");
	assert_true(cfg.grpc_allow_insecure_network);
	zkp_config_release(&cfg);
	/* TLS: on TCP, with tls.cert and tls.key; the framed listeners' rule
	 * stays as it was */
	expect_ok(&cfg, "[tls]\ncert = /c.pem\nkey = /k.pem\n[grpc]\nlisten = 10.0.0.5:9820\n"
			"transport = tls\n");
	assert_int_equal(cfg.grpc_transport, ZKP_GRPC_TLS);
	zkp_config_release(&cfg);
	expect_err("[grpc]\nlisten = 10.0.0.5:9820\ntransport = tls\n",
		   "t.ini:3: grpc.transport: tls without tls.cert and tls.key (expected both, or "
		   "grpc.transport = plaintext)");
	expect_err_prefix("[tls]\ncert = /c.pem\nkey = /k.pem\n[grpc]\nlisten = unix:/run/c.sock\n"
		   "transport = tls\n",
		   "t.ini:6: grpc.transport: tls on the unix: socket /run/c.sock");
	expect_err("[grpc]\ntransport = ssl\n",
		   "t.ini:2: grpc.transport: bad value \"ssl\" (expected plaintext or tls)");
	expect_err_prefix("[server]\nlisten = tcp:127.0.0.1:9000\n[grpc]\nlisten = 127.0.0.1:9820\n",
		   "t.ini:2: server.listen: tcp:127.0.0.1:9000 without TLS");
	expect_err("[grpc]\nlisten = 127.0.0.1\n",
		   "t.ini:2: grpc.listen: no port in \"127.0.0.1\" (expected HOST:PORT)");
	expect_err("[grpc]\nmax_message_bytes = 2G\n",
		   "t.ini:2: grpc.max_message_bytes: out of range: \"2G\" (expected bytes with an "
		   "optional K, M, G or T suffix, 64K..1G)");
	expect_err("[log]\nformat = xml\n",
		   "t.ini:2: log.format: bad value \"xml\" (expected text or json)");

	/* JSON lines, on a captured stderr */
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	int saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	zkp_log_init("zkpd", ZKP_LOG_INFO);
	zkp_log_set_format(ZKP_LOG_JSON);
	assert_int_equal(zkp_log_get_format(), ZKP_LOG_JSON);
	zkp_log(ZKP_LOG_WARN, "quote \" back\\slash\ttab\x01 \xc3\xa9 bad \xff end\n");
	zkp_log_with(ZKP_LOG_INFO, "\"job\":17,\"state\":\"done\"", "job %d done", 17);
	zkp_log(ZKP_LOG_DEBUG, "dropped");
	zkp_log_set_format(ZKP_LOG_TEXT);
	zkp_log_with(ZKP_LOG_INFO, "\"job\":18", "job %d text", 18);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);

	char buf[2048], head[128];
	read_captured(tmp, buf, sizeof(buf));
	char *l1 = buf, *l2 = strchr(l1, '\n');
	assert_non_null(l2);
	*l2++ = 0;
	char *l3 = strchr(l2, '\n');
	assert_non_null(l3);
	*l3++ = 0;
	/* {"ts":"2026-12-02T14:55:01.123Z","level":... */
	assert_int_equal(strncmp(l1, "{\"ts\":\"", 7), 0);
	assert_int_equal(l1[7 + 10], 'T');
	assert_int_equal(l1[7 + 23], 'Z');
	snprintf(head, sizeof(head), "\",\"level\":\"warn\",\"prog\":\"zkpd\",\"pid\":%ld,",
		 (long)getpid());
	assert_int_equal(strncmp(l1 + 7 + 24, head, strlen(head)), 0);
	assert_string_equal(l1 + 7 + 24 + strlen(head),
			    "\"msg\":\"quote \\\" back\\\\slash\\ttab\\u0001 \xc3\xa9 bad \\ufffd "
			    "end\"}");
	snprintf(head, sizeof(head), "\",\"level\":\"info\",\"prog\":\"zkpd\",\"pid\":%ld,",
		 (long)getpid());
	assert_int_equal(strncmp(l2 + 7 + 24, head, strlen(head)), 0);
	assert_string_equal(l2 + 7 + 24 + strlen(head),
			    "\"msg\":\"job 17 done\",\"job\":17,\"state\":\"done\"}");
	/* text lines show the message alone */
	char *tail = strstr(l3, " INFO: ");
	assert_non_null(tail);
	assert_string_equal(tail, " INFO: job 18 text\n");

	/* a message longer than a line is cut inside the string, never the object */
	tmp = tmpfile();
	assert_non_null(tmp);
	saved = dup(STDERR_FILENO);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	zkp_log_set_format(ZKP_LOG_JSON);
	char longmsg[6000];
	memset(longmsg, '"', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = 0;
	zkp_log_with(ZKP_LOG_ERROR, "\"k\":1", "%s", longmsg);
	zkp_log_set_format(ZKP_LOG_TEXT);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	static char big[8192];
	read_captured(tmp, big, sizeof(big));
	size_t len = strlen(big);
	assert_true(len <= 4096);
	assert_string_equal(big + len - 9, "\",\"k\":1}\n");
	assert_int_equal(big[len - 10], '"'); /* the last escape is whole: \" */
	assert_int_equal(big[len - 11], '\\');
}

static void test_docs_current(void **state)
{
	(void)state;
	static const char path[] = ZKPD_DOCS_DIR "/config.md";
	char *want = print_to_string(zkp_config_print_doc);
	if (getenv("ZKPD_WRITE_CONFIG_DOC")) {
		FILE *out = fopen(path, "w");
		assert_non_null(out);
		fputs(want, out);
		assert_int_equal(fclose(out), 0);
	}
	FILE *f = fopen(path, "r");
	char *have = calloc(1, strlen(want) + 2);
	assert_non_null(have);
	size_t n = f ? fread(have, 1, strlen(want) + 1, f) : 0;
	if (f)
		fclose(f);
	if (!f || n != strlen(want) || memcmp(have, want, n) != 0)
		fail_msg("%s does not match the option table; regenerate it with "
			 "`ZKPD_WRITE_CONFIG_DOC=1 build/tests/unit/config/test_config` or "
			 "`zkpd --print-config-doc > docs/config.md`", path);
	free(have);
	free(want);
}

static void test_log(void **state)
{
	(void)state;
	static const char *const names[] = { "error", "warn", "info", "debug" };
	for (int i = 0; i < 4; i++) {
		enum zkp_log_level l;
		assert_string_equal(zkp_log_level_name((enum zkp_log_level)i), names[i]);
		assert_int_equal(zkp_log_level_parse(&l, names[i]), 0);
		assert_int_equal(l, i);
	}
	enum zkp_log_level l = ZKP_LOG_INFO;
	assert_int_equal(zkp_log_level_parse(&l, "WARN"), 0);
	assert_int_equal(l, ZKP_LOG_WARN);
	assert_int_equal(zkp_log_level_parse(&l, "verbose"), ZKP_ERR_INVAL);
	assert_int_equal(zkp_log_level_parse(&l, ""), ZKP_ERR_INVAL);

	/* line format, on a captured stderr */
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	int saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	zkp_log_init("zkpd-test-with-a-very-long-program-name", ZKP_LOG_WARN);
	assert_int_equal(zkp_log_get_level(), ZKP_LOG_WARN);
	zkp_log(ZKP_LOG_INFO, "dropped %d", 1);
	zkp_log(ZKP_LOG_WARN, "kept %s\n", "warning");
	zkp_log_set_level(ZKP_LOG_DEBUG);
	zkp_log(ZKP_LOG_DEBUG, "debug line");
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	zkp_log_init("zkpd", ZKP_LOG_INFO);

	char buf[512];
	rewind(tmp);
	size_t n = fread(buf, 1, sizeof(buf) - 1, tmp);
	fclose(tmp);
	buf[n] = 0;
	char prog[64];
	snprintf(prog, sizeof(prog), " zkpd-test-with-a-very-long-prog[%ld] ", (long)getpid());
	char *line2 = strchr(buf, '\n');
	assert_non_null(line2);
	*line2++ = 0;
	/* 2026-12-02T14:55:01.123Z, the name cut to 31 bytes */
	assert_true(strlen(buf) > 24);
	assert_int_equal(buf[4], '-');
	assert_int_equal(buf[10], 'T');
	assert_int_equal(buf[19], '.');
	assert_int_equal(buf[23], 'Z');
	assert_int_equal(strncmp(buf + 24, prog, strlen(prog)), 0);
	assert_string_equal(buf + 24 + strlen(prog), "WARN: kept warning");
	char *end = strchr(line2, '\n');
	assert_non_null(end);
	*end = 0;
	assert_string_equal(line2 + 24 + strlen(prog), "DEBUG: debug line");
	assert_string_equal(end + 1, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_circuits),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_tls_and_auth),
		cmocka_unit_test(test_http_and_log_format),
		cmocka_unit_test(test_docs_current),
		cmocka_unit_test(test_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
