#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "config_int.h"
#include "zkpd/config.h"

struct parse_ctx {
	zkp_config *cfg;
	const char *name; /* the file as named in messages */
	char *dir;        /* relative paths resolve against it; NULL: the cwd */

	/* reader state */
	const char *text;
	size_t pos;
	int line;
	bool prev_key; /* an indented line after a key continues its value */

	/* the section being read */
	enum { SEC_NONE, SEC_MAIN, SEC_CIRCUIT, SEC_BAD } kind;
	char section[256];
	int section_line;
	int opt_line[ZKP_OPTIONS_MAX]; /* the line that set each option, 0 if none yet */
	zkp_config_circuit cur;        /* a [circuit.NAME] section being read */
	int cur_line[ZKP_OPTIONS_MAX];

	/* the first error found */
	int err_code, err_line;
	char err_msg[sizeof(((zkp_error *)0)->msg)];
};

static void fail(struct parse_ctx *c, int line, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fail(struct parse_ctx *c, int line, int code, const char *fmt, ...)
{
	if (c->err_code)
		return;
	c->err_code = code;
	c->err_line = line;
	int n = snprintf(c->err_msg, sizeof(c->err_msg), "%s:%d: ", c->name, line);
	if (n < 0 || (size_t)n >= sizeof(c->err_msg))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err_msg + n, sizeof(c->err_msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

static bool circuit_name_ok(const char *name)
{
	size_t len = strlen(name);
	if (len == 0 || len >= ZKP_CONFIG_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++) {
		char ch = *p;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '.' || ch == '-'))
			return false;
	}
	return true;
}

#define NAME_RULE "1-63 of A-Z a-z 0-9 _ . -"

const zkp_config_circuit *zkp_config_circuit_find(const zkp_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_circuits; i++)
		if (strcmp(cfg->circuits[i].name, name) == 0)
			return &cfg->circuits[i];
	return NULL;
}

int zkp_config_add_circuit(zkp_config *cfg, const zkp_config_circuit *c, zkp_error *err)
{
	if (!circuit_name_ok(c->name))
		return zkp_error_set(err, ZKP_ERR_CONFIG,
				     "bad circuit name \"%s\" (expected " NAME_RULE ")", c->name);
	if (zkp_config_circuit_find(cfg, c->name))
		return zkp_error_set(err, ZKP_ERR_CONFIG, "circuit \"%s\" defined twice", c->name);

	zkp_config_circuit copy = *c;
	copy.pce = c->pce ? strdup(c->pce) : NULL;
	copy.key = c->key ? strdup(c->key) : NULL;
	zkp_config_circuit *grown =
		realloc(cfg->circuits, (cfg->n_circuits + 1) * sizeof(cfg->circuits[0]));
	if ((c->pce && !copy.pce) || (c->key && !copy.key) || !grown) {
		free(copy.pce);
		free(copy.key);
		if (grown)
			cfg->circuits = grown;
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory adding circuit \"%s\"",
				     c->name);
	}
	cfg->circuits = grown;
	cfg->circuits[cfg->n_circuits++] = copy;
	return 0;
}

void zkp_config_init(zkp_config *cfg)
{
	char why[256];
	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < zkp_n_options; i++) {
		const zkp_option *o = &zkp_options[i];
		if (!o->def)
			continue;
		if (o->type == ZKP_OPT_STRING || o->type == ZKP_OPT_PATH ||
		    o->type == ZKP_OPT_DEVICES) {
			/* the row's static text: release knows not to free it */
			*(char **)((char *)cfg + o->offset) = (char *)o->def;
			continue;
		}
		if (zkp_option_set(o, cfg, o->def, why, sizeof(why)) < 0)
			abort(); /* a table default that does not parse */
	}
	char def[sizeof("unix:") + sizeof(cfg->listen[0].path)];
	zkp_address_default(def, sizeof(def));
	if (zkp_address_parse(&cfg->listen[0], def, NULL) == 0)
		cfg->n_listen = 1;
}

static void circuit_release(zkp_config_circuit *c)
{
	free(c->pce);
	free(c->key);
	c->pce = c->key = NULL;
}

void zkp_config_release(zkp_config *cfg)
{
	for (size_t i = 0; i < zkp_n_options; i++)
		zkp_option_free(&zkp_options[i], cfg);
	for (size_t i = 0; i < cfg->n_circuits; i++)
		circuit_release(&cfg->circuits[i]);
	free(cfg->circuits);
	free(cfg->source);
	memset(cfg, 0, sizeof(*cfg));
}

static const char *key_list(const zkp_option *opts, size_t n, const char *section, char *buf,
			    size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(opts[i].section, section) != 0)
			continue;
		int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", opts[i].key);
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
	return buf;
}

/* A Filecoin circuit's sector size: one Filecoin publishes parameters for. */
static void check_sector_size(struct parse_ctx *c, const char *key, uint64_t ss)
{
	size_t i = 0;
	while (i < zkp_n_circuit_options && strcmp(zkp_circuit_options[i].key, key))
		i++;
	if (!c->err_code && ss && ss != 2048 && ss != 8ULL << 20 && ss != 512ULL << 20 &&
	    ss != 32ULL << 30 && ss != 64ULL << 30)
		fail(c, i < zkp_n_circuit_options && c->cur_line[i] ? c->cur_line[i] : c->section_line,
		     ZKP_ERR_CONFIG,
		     "%s.%s: %" PRIu64
		     " bytes is not a published sector size (expected 2K, 8M, 512M, 32G or 64G)",
		     c->section, key, ss);
}

static void end_section(struct parse_ctx *c)
{
	if (c->kind == SEC_CIRCUIT) {
		for (size_t i = 0; i < zkp_n_circuit_options; i++) {
			const zkp_option *o = &zkp_circuit_options[i];
			if (!o->def && !c->cur_line[i])
				fail(c, c->section_line, ZKP_ERR_CONFIG,
				     "%s: missing key %s (expected pce, key and key_format)",
				     c->section, o->key);
		}
		check_sector_size(c, "porep_sector_size", c->cur.porep_sector_size);
		check_sector_size(c, "snap_sector_size", c->cur.snap_sector_size);
		check_sector_size(c, "window_post_sector_size", c->cur.window_post_sector_size);
		check_sector_size(c, "winning_post_sector_size", c->cur.winning_post_sector_size);
		if (!c->err_code && (!!c->cur.porep_sector_size + !!c->cur.snap_sector_size +
				     !!c->cur.window_post_sector_size +
				     !!c->cur.winning_post_sector_size) > 1)
			fail(c, c->section_line, ZKP_ERR_CONFIG,
			     "%s: more than one of porep_sector_size, snap_sector_size, "
			     "window_post_sector_size and winning_post_sector_size is set; a circuit is one of them",
			     c->section);
		if (!c->err_code) {
			zkp_error e = { 0 };
			int rc = zkp_config_add_circuit(c->cfg, &c->cur, &e);
			if (rc < 0)
				fail(c, c->section_line, rc, "%s: %s", c->section, e.msg);
		}
		circuit_release(&c->cur);
	}
	c->kind = SEC_NONE;
}

static void begin_section(struct parse_ctx *c, const char *name, size_t len)
{
	end_section(c);
	if (len >= sizeof(c->section))
		len = sizeof(c->section) - 1;
	memcpy(c->section, name, len);
	c->section[len] = 0;
	c->section_line = c->line;
	c->kind = SEC_BAD;

	for (size_t i = 0; zkp_config_sections[i]; i++) {
		if (strcmp(c->section, zkp_config_sections[i]) == 0) {
			c->kind = SEC_MAIN;
			return;
		}
	}
	if (strncmp(c->section, "circuit.", 8) != 0) {
		fail(c, c->line, ZKP_ERR_CONFIG,
		     "[%s]: unknown section (expected server, tls, gpus, pipeline, synthesis, "
		     "memory, log, http, grpc or circuit.NAME)", c->section);
		return;
	}
	const char *cname = c->section + 8;
	if (!circuit_name_ok(cname)) {
		fail(c, c->line, ZKP_ERR_CONFIG,
		     "[%s]: bad circuit name \"%s\" (expected " NAME_RULE ")", c->section, cname);
		return;
	}
	for (size_t i = 0; i < c->cfg->n_circuits; i++) {
		if (strcmp(c->cfg->circuits[i].name, cname) == 0) {
			fail(c, c->line, ZKP_ERR_CONFIG,
			     "[%s]: circuit defined twice (expected one section per circuit)",
			     c->section);
			return;
		}
	}
	memset(&c->cur, 0, sizeof(c->cur));
	memset(c->cur_line, 0, sizeof(c->cur_line));
	snprintf(c->cur.name, sizeof(c->cur.name), "%s", cname);
	for (size_t i = 0; i < zkp_n_circuit_options; i++) {
		const zkp_option *o = &zkp_circuit_options[i];
		char why[64];
		if (o->def && zkp_option_set(o, &c->cur, o->def, why, sizeof(why)) < 0)
			abort(); /* a table default that does not parse */
	}
	c->kind = SEC_CIRCUIT;
}

/*
 * fgets over the text that also tracks what the handler cannot learn from
 * this libinih build: the line number (INI_HANDLER_LINENO is off) and
 * section headers in full (libinih cuts them at 49 bytes and does not report
 * a section with no keys).
 */
static char *reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	const char *s = c->text + c->pos;
	if (!*s)
		return NULL;
	c->line++;
	const char *nl = strchr(s, '\n');
	size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);
	c->pos += len;
	size_t keep = len;
	if (keep > (size_t)num - 1) {
		fail(c, c->line, ZKP_ERR_CONFIG, "line longer than %d bytes", num - 2);
		keep = (size_t)num - 2; /* the rest of the line is dropped */
		memcpy(str, s, keep);
		str[keep++] = '\n';
	} else {
		memcpy(str, s, keep);
	}
	str[keep] = 0;

	const char *p = str;
	if (c->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	const char *start = p;
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	if (!*p || *p == ';' || *p == '#')
		return str;
	if (c->prev_key && p > start) {
		fail(c, c->line, ZKP_ERR_CONFIG,
		     "indented line continues a value (expected key = value on one line)");
		return str;
	}
	if (*p == '[') {
		const char *end = strchr(p + 1, ']');
		c->prev_key = false;
		if (end)
			begin_section(c, p + 1, (size_t)(end - p - 1));
		return str;
	}
	if (strpbrk(p, "=:"))
		c->prev_key = true;
	return str;
}

static int handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;
	const zkp_option *opts;
	size_t n;
	int *lines;
	void *base;
	(void)section; /* the reader tracks sections without libinih's length limit */

	switch (c->kind) {
	case SEC_NONE:
		fail(c, c->line, ZKP_ERR_CONFIG,
		     "%s: key outside any section (expected a [section] line before it)", key);
		return 1;
	case SEC_BAD:
		return 1;
	case SEC_MAIN:
		opts = zkp_options;
		n = zkp_n_options;
		lines = c->opt_line;
		base = c->cfg;
		break;
	case SEC_CIRCUIT:
	default:
		opts = zkp_circuit_options;
		n = zkp_n_circuit_options;
		lines = c->cur_line;
		base = &c->cur;
		break;
	}
	const char *table_section = c->kind == SEC_CIRCUIT ? "circuit" : c->section;
	size_t i;
	for (i = 0; i < n; i++)
		if (strcmp(opts[i].section, table_section) == 0 && strcmp(opts[i].key, key) == 0)
			break;
	if (i == n) {
		char keys[256];
		fail(c, c->line, ZKP_ERR_CONFIG, "%s.%s: unknown key (expected one of %s)",
		     c->section, key, key_list(opts, n, table_section, keys, sizeof(keys)));
		return 1;
	}
	if (lines[i]) {
		fail(c, c->line, ZKP_ERR_CONFIG,
		     "%s.%s: repeated key (expected it once; first set on line %d)", c->section,
		     key, lines[i]);
		return 1;
	}
	lines[i] = c->line;

	/* libinih strips a comment after " ;" but keeps one after " #" as
	 * part of the value, which would name a file or directory that was
	 * never meant (a path ending in "   # made at install"). */
	const char *hash = strstr(value, " #");
	if (!hash)
		hash = strstr(value, "\t#");
	if (hash) {
		fail(c, c->line, ZKP_ERR_CONFIG,
		     "%s.%s: \"%s\" holds a # comment (expected the comment on its own line, "
		     "or after \" ;\")", c->section, key, value);
		return 1;
	}

	char *joined = NULL;
	if (opts[i].type == ZKP_OPT_PATH && c->dir && value[0] && value[0] != '/') {
		size_t len = strlen(c->dir) + 1 + strlen(value) + 1;
		joined = malloc(len);
		if (!joined) {
			fail(c, c->line, ZKP_ERR_NOMEM, "%s.%s: out of memory", c->section, key);
			return 1;
		}
		snprintf(joined, len, "%s/%s", c->dir, value);
		value = joined;
	}
	char why[400];
	int rc = zkp_option_set(&opts[i], base, value, why, sizeof(why));
	if (rc < 0)
		fail(c, c->line, rc, "%s.%s: %s", c->section, key, why);
	free(joined);
	return 1;
}

/* The line that set section.key, 0 when the file does not set it. */
static int option_line(const struct parse_ctx *c, const char *section, const char *key)
{
	for (size_t i = 0; i < zkp_n_options; i++)
		if (!strcmp(zkp_options[i].section, section) && !strcmp(zkp_options[i].key, key))
			return c->opt_line[i];
	return 0;
}

/* A user or group given by name or as a number; false when none has it. */
static bool socket_id_known(const char *text, bool group)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(text, &end, 10);
	if (*text && !*end && !errno && v < UINT32_MAX)
		return true;
	return group ? getgrnam(text) != NULL : getpwnam(text) != NULL;
}

/* Rules between options, checked once the whole file is read. */
static void check_combinations(struct parse_ctx *c)
{
	const zkp_config *cfg = c->cfg;
	bool tls = cfg->tls_cert && cfg->tls_key;
	if (!cfg->tls_cert != !cfg->tls_key) {
		bool cert = cfg->tls_cert != NULL;
		fail(c, option_line(c, "tls", cert ? "cert" : "key"), ZKP_ERR_CONFIG,
		     "tls.%s: set without tls.%s (expected both or neither)", cert ? "cert" : "key",
		     cert ? "key" : "cert");
	}
	if (cfg->http_require_token && !cfg->token_file)
		fail(c, option_line(c, "http", "require_token"), ZKP_ERR_CONFIG,
		     "http.require_token: set without server.token_file (expected the token "
		     "to require)");
	bool grpc_tcp = cfg->grpc_listen.kind == ZKP_ADDR_TCP && cfg->grpc_listen.port;
	bool grpc_unix = cfg->grpc_listen.kind == ZKP_ADDR_UNIX && cfg->grpc_listen.path[0];
	if (cfg->grpc_transport == ZKP_GRPC_TLS && !tls)
		fail(c, option_line(c, "grpc", "transport"), ZKP_ERR_CONFIG,
		     "grpc.transport: tls without tls.cert and tls.key (expected both, or "
		     "grpc.transport = plaintext)");
	else if (cfg->grpc_transport == ZKP_GRPC_TLS && grpc_unix)
		fail(c, option_line(c, "grpc", "transport"), ZKP_ERR_CONFIG,
		     "grpc.transport: tls on the unix: socket %s (expected a HOST:PORT "
		     "grpc.listen, or grpc.transport = plaintext: the socket's mode and owner "
		     "guard it)",
		     cfg->grpc_listen.path);
	if (grpc_tcp && cfg->grpc_transport == ZKP_GRPC_PLAINTEXT &&
	    !zkp_address_is_loopback(&cfg->grpc_listen) && !cfg->grpc_allow_insecure_network)
		fail(c, option_line(c, "grpc", "listen"), ZKP_ERR_CONFIG,
		     "grpc.listen: %s:%u is not a loopback address and grpc.transport is "
		     "plaintext (expected a unix: socket or 127.0.0.1, grpc.transport = tls, or "
		     "grpc.allow_insecure_plaintext_network = true to send proofs unencrypted "
		     "over the network)",
		     cfg->grpc_listen.host, cfg->grpc_listen.port);
	if (cfg->tls_client_ca && !tls)
		fail(c, option_line(c, "tls", "client_ca"), ZKP_ERR_CONFIG,
		     "tls.client_ca: set without tls.cert and tls.key (expected a server "
		     "certificate to verify clients with)");
	for (size_t i = 0; i < cfg->n_listen && !tls && !cfg->tcp_plaintext; i++)
		if (cfg->listen[i].kind == ZKP_ADDR_TCP) {
			fail(c, option_line(c, "server", "listen"), ZKP_ERR_CONFIG,
			     "server.listen: tcp:%s:%u without TLS (expected tls.cert and tls.key, "
			     "or server.tcp_plaintext = true for plaintext TCP)",
			     cfg->listen[i].host, cfg->listen[i].port);
			break;
		}
	if (cfg->socket_owner && !socket_id_known(cfg->socket_owner, false))
		fail(c, option_line(c, "server", "socket_owner"), ZKP_ERR_CONFIG,
		     "server.socket_owner: no user \"%s\" (expected a user name or uid)",
		     cfg->socket_owner);
	if (cfg->socket_group && !socket_id_known(cfg->socket_group, true))
		fail(c, option_line(c, "server", "socket_group"), ZKP_ERR_CONFIG,
		     "server.socket_group: no group \"%s\" (expected a group name or gid)",
		     cfg->socket_group);
}

static int parse_text(zkp_config *cfg, const char *text, const char *name, const char *dir,
		      zkp_error *err)
{
	struct parse_ctx c;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	zkp_config_init(cfg);
	c.cfg = cfg;
	c.name = name;
	c.text = text;
	if (dir && !(c.dir = strdup(dir))) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", name);
		goto out;
	}

	int line = ini_parse_stream(reader, &c, handler, &c);
	end_section(&c);
	if (line > 0 && (!c.err_code || line < c.err_line)) {
		c.err_code = 0;
		fail(&c, line, ZKP_ERR_CONFIG,
		     "syntax error (expected [section], key = value or a comment)");
	} else if (line < 0 && !c.err_code) {
		fail(&c, 0, ZKP_ERR_NOMEM, "out of memory");
	}
	if (!c.err_code)
		check_combinations(&c);
	if (c.err_code) {
		rc = zkp_error_set(err, c.err_code, "%s", c.err_msg);
		goto out;
	}
	if (!(cfg->source = strdup(name)))
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", name);
out:
	circuit_release(&c.cur);
	free(c.dir);
	if (rc < 0)
		zkp_config_release(cfg);
	return rc;
}

int zkp_config_parse(zkp_config *cfg, const char *text, const char *name, zkp_error *err)
{
	return parse_text(cfg, text, name, NULL, err);
}

int zkp_config_load(zkp_config *cfg, const char *path, zkp_error *err)
{
	char *text = NULL, *dir = NULL;
	size_t len = 0, cap = 0;
	int rc;
	FILE *f = fopen(path, "r");

	if (!f) {
		zkp_config_init(cfg);
		zkp_config_release(cfg);
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	for (;;) {
		if (cap - len < 4096) {
			char *grown = realloc(text, cap + 65536);
			if (!grown) {
				rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
				goto fail;
			}
			text = grown;
			cap += 65536;
		}
		size_t got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	text[len] = 0;

	const char *slash = strrchr(path, '/');
	if (slash) {
		size_t dlen = slash == path ? 1 : (size_t)(slash - path);
		if (!(dir = strndup(path, dlen))) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
			goto fail;
		}
	}
	rc = parse_text(cfg, text, path, dir, err);
	goto out;
fail:
	zkp_config_init(cfg);
	zkp_config_release(cfg);
out:
	fclose(f);
	free(text);
	free(dir);
	return rc;
}

static const char value_syntax[][160] = {
	"bool: true, false, yes, no, on, off, 1 or 0",
	"size: bytes with an optional K, M, G or T suffix, powers of 1024 (also KiB, MiB, GiB, "
	"TiB): 1G = 1073741824",
	"duration: a number with ms, s, m or h; a bare number is seconds",
	"mode: octal permission bits, such as 0660",
	"addresses: comma-separated unix:PATH or tcp:HOST:PORT (IPv6 as tcp:[::1]:PORT), "
	"at most 4",
	"path: relative paths are resolved against the configuration file's directory",
	"devices: auto (every GPU found, else the CPU), cpu, or GPU indices 0..63 such as 0,1",
	"hostport: HOST:PORT, IPv6 as [::1]:PORT; empty: unset",
	"endpoint: unix:PATH, or HOST:PORT (IPv6 as [::1]:PORT); empty: unset",
};

static void enum_choices(const zkp_option *o, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; o->choices[i]; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? " | " : "", o->choices[i]);
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
}

static void print_option(FILE *f, const zkp_option *o)
{
	char bounds[80], choices[128];
	zkp_option_bounds(o, bounds, sizeof(bounds));
	fprintf(f, "\n# %s.\n", o->doc);
	if (o->type == ZKP_OPT_ENUM) {
		enum_choices(o, choices, sizeof(choices));
		fprintf(f, "# %s: %s\n", zkp_option_type_name(o), choices);
	} else {
		fprintf(f, "# %s%s%s\n", zkp_option_type_name(o), bounds[0] ? ", " : "", bounds);
	}
	if (o->def)
		fprintf(f, "%s = %s\n", o->key, o->def);
	else
		fprintf(f, "# default: %s\n# %s =\n", o->def_doc, o->key);
}

void zkp_config_print_default(FILE *f)
{
	fprintf(f, "# zkpd configuration: every option with its default value.\n"
		   "# Value syntax:\n");
	for (size_t i = 0; i < sizeof(value_syntax) / sizeof(value_syntax[0]); i++)
		fprintf(f, "#   %s\n", value_syntax[i]);
	for (size_t s = 0; zkp_config_sections[s]; s++) {
		fprintf(f, "\n[%s]\n", zkp_config_sections[s]);
		for (size_t i = 0; i < zkp_n_options; i++)
			if (strcmp(zkp_options[i].section, zkp_config_sections[s]) == 0)
				print_option(f, &zkp_options[i]);
	}
	fprintf(f, "\n# One section per circuit; NAME is " NAME_RULE ".\n"
		   "# [circuit.NAME]\n");
	for (size_t i = 0; i < zkp_n_circuit_options; i++) {
		const zkp_option *o = &zkp_circuit_options[i];
		char choices[128] = "";
		if (o->type == ZKP_OPT_ENUM)
			enum_choices(o, choices, sizeof(choices));
		fprintf(f, "# %s = %s  (%s%s%s, %s; %s)\n", o->key,
			o->def ? o->def : o->type == ZKP_OPT_ENUM ? "zkey" : "PATH",
			zkp_option_type_name(o), choices[0] ? ": " : "", choices,
			o->def ? "optional" : "required", o->doc);
	}
}

static void doc_row(FILE *f, const zkp_option *o)
{
	char bounds[80], choices[128];
	zkp_option_bounds(o, bounds, sizeof(bounds));
	fprintf(f, "| `%s` | %s", o->key, zkp_option_type_name(o));
	if (o->type == ZKP_OPT_ENUM) {
		enum_choices(o, choices, sizeof(choices));
		fprintf(f, ": ");
		for (size_t i = 0; o->choices[i]; i++)
			fprintf(f, "%s`%s`", i ? ", " : "", o->choices[i]);
	} else if (bounds[0]) {
		fprintf(f, ", %s", bounds);
	}
	if (o->def)
		fprintf(f, " | `%s` | %s |\n", o->def, o->doc);
	else
		fprintf(f, " | %s | %s |\n", o->def_doc, o->doc);
}

void zkp_config_print_doc(FILE *f)
{
	fprintf(f, "# zkpd configuration\n\n"
		   "<!-- Generated by `zkpd --print-config-doc` from src/config/options.c; "
		   "do not edit. -->\n\n"
		   "zkpd reads one INI file (`zkpd --config FILE`). Every option has a default, "
		   "so an empty file is a valid configuration; `zkpd --print-default-config` "
		   "prints them all as a file to start from. Unknown sections or keys, a repeated "
		   "key and a value out of bounds are errors naming the file, the line and the "
		   "option. Comments start with `#` or `;` at the start of a line, or with ` ;` "
		   "after a value; a line holds at most 198 bytes.\n\n"
		   "## Value syntax\n\n");
	for (size_t i = 0; i < sizeof(value_syntax) / sizeof(value_syntax[0]); i++) {
		const char *v = value_syntax[i];
		const char *colon = strchr(v, ':');
		fprintf(f, "- **%.*s**%s\n", (int)(colon - v), v, colon);
	}
	for (size_t s = 0; zkp_config_sections[s]; s++) {
		fprintf(f, "\n## [%s]\n\n| Key | Type | Default | Meaning |\n|---|---|---|---|\n",
			zkp_config_sections[s]);
		for (size_t i = 0; i < zkp_n_options; i++)
			if (strcmp(zkp_options[i].section, zkp_config_sections[s]) == 0)
				doc_row(f, &zkp_options[i]);
	}
	fprintf(f, "\n## [circuit.NAME]\n\n"
		   "One section per circuit the daemon proves for; NAME (" NAME_RULE ") is the "
		   "name jobs give. Sections are kept in file order; a name may appear once.\n\n"
		   "| Key | Type | Default | Meaning |\n|---|---|---|---|\n");
	for (size_t i = 0; i < zkp_n_circuit_options; i++)
		doc_row(f, &zkp_circuit_options[i]);
}
