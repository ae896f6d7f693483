/*
 * The configuration parser (include/zkpd/config.h): zkp_config_parse on
 * the input as text. A configuration that parses is printed back as INI
 * from the option table (src/config/config_int.h) and parsed again; every
 * option must come back equal. Values INI cannot carry as they are
 * (comment characters, surrounding blanks, lines inih would cut) and option
 * types this printer does not know are left out of the comparison.
 */
#include <stdbool.h>
#include <string.h>

#include "config_int.h"
#include "fuzz.h"
#include "zkpd/config.h"

#define LINE_MAX_SAFE 190 /* inih's default line buffer is 200 bytes */

static bool ini_safe(const char *s, bool in_list)
{
	size_t n = strlen(s);
	if (n == 0 || n > 150 || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
	    s[n - 1] == '\t')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == ';' || c == '#' || c == '\r' || c == '\n' || c < 0x20 ||
		    (in_list && c == ','))
			return false;
	}
	return true;
}

static bool known_type(const zkp_option *o)
{
	switch (o->type) {
	case ZKP_OPT_STRING:
	case ZKP_OPT_PATH:
	case ZKP_OPT_DEVICES:
	case ZKP_OPT_BOOL:
	case ZKP_OPT_U32:
	case ZKP_OPT_SIZE:
	case ZKP_OPT_DURATION:
	case ZKP_OPT_MODE:
	case ZKP_OPT_ENUM:
	case ZKP_OPT_ADDRESSES:
		return true;
	default:
		return false;
	}
}

static bool format_address(char *buf, size_t size, const zkp_address *a)
{
	int n;
	if (a->kind == ZKP_ADDR_UNIX)
		n = snprintf(buf, size, "unix:%s", a->path);
	else if (strchr(a->host, ':'))
		n = snprintf(buf, size, "tcp:[%s]:%u", a->host, (unsigned)a->port);
	else
		n = snprintf(buf, size, "tcp:%s:%u", a->host, (unsigned)a->port);
	return n > 0 && (size_t)n < size && ini_safe(buf, true);
}

/* Writes "key = value\n" for o at base into f. Returns false when the value
 * cannot be written so that it reads back the same; true with nothing
 * written for an unset string or an option type left out. */
static bool print_option(FILE *f, const zkp_option *o, const void *base)
{
	const char *slot = (const char *)base + o->offset;
	char line[LINE_MAX_SAFE + 64];
	int n;

	switch (o->type) {
	case ZKP_OPT_STRING:
	case ZKP_OPT_PATH:
	case ZKP_OPT_DEVICES: {
		const char *s = *(char *const *)slot;
		if (!s)
			return true;
		if (!ini_safe(s, false))
			return false;
		n = snprintf(line, sizeof(line), "%s = %s\n", o->key, s);
		break;
	}
	case ZKP_OPT_BOOL:
		n = snprintf(line, sizeof(line), "%s = %s\n", o->key,
			     *(const bool *)slot ? "true" : "false");
		break;
	case ZKP_OPT_U32:
		n = snprintf(line, sizeof(line), "%s = %u\n", o->key, *(const uint32_t *)slot);
		break;
	case ZKP_OPT_SIZE:
		n = snprintf(line, sizeof(line), "%s = %llu\n", o->key,
			     (unsigned long long)*(const uint64_t *)slot);
		break;
	case ZKP_OPT_DURATION:
		n = snprintf(line, sizeof(line), "%s = %llums\n", o->key,
			     (unsigned long long)*(const uint64_t *)slot);
		break;
	case ZKP_OPT_MODE:
		n = snprintf(line, sizeof(line), "%s = 0%o\n", o->key, *(const unsigned *)slot);
		break;
	case ZKP_OPT_ENUM:
		n = snprintf(line, sizeof(line), "%s = %s\n", o->key,
			     o->choices[*(const int *)slot]);
		break;
	case ZKP_OPT_ADDRESSES: {
		const zkp_address *a = (const zkp_address *)slot;
		size_t count = *(const size_t *)((const char *)base + o->count_offset);
		char one[400];
		n = snprintf(line, sizeof(line), "%s = ", o->key);
		for (size_t i = 0; i < count && n > 0 && (size_t)n < sizeof(line); i++) {
			if (!format_address(one, sizeof(one), &a[i]))
				return false;
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%s",
				      i ? ", " : "", one);
		}
		if (n > 0 && (size_t)n < sizeof(line))
			n += snprintf(line + n, sizeof(line) - (size_t)n, "\n");
		break;
	}
	default:
		return true;
	}
	if (n <= 0 || n > LINE_MAX_SAFE)
		return false;
	fputs(line, f);
	return true;
}

static bool same_option(const zkp_option *o, const void *a, const void *b)
{
	const char *x = (const char *)a + o->offset, *y = (const char *)b + o->offset;

	switch (o->type) {
	case ZKP_OPT_STRING:
	case ZKP_OPT_PATH:
	case ZKP_OPT_DEVICES: {
		const char *s = *(char *const *)x, *t = *(char *const *)y;
		return (!s && !t) || (s && t && strcmp(s, t) == 0);
	}
	case ZKP_OPT_BOOL:
		return *(const bool *)x == *(const bool *)y;
	case ZKP_OPT_U32:
		return *(const uint32_t *)x == *(const uint32_t *)y;
	case ZKP_OPT_SIZE:
	case ZKP_OPT_DURATION:
		return *(const uint64_t *)x == *(const uint64_t *)y;
	case ZKP_OPT_MODE:
		return *(const unsigned *)x == *(const unsigned *)y;
	case ZKP_OPT_ENUM:
		return *(const int *)x == *(const int *)y;
	case ZKP_OPT_ADDRESSES: {
		size_t n = *(const size_t *)((const char *)a + o->count_offset);
		if (n != *(const size_t *)((const char *)b + o->count_offset))
			return false;
		const zkp_address *p = (const zkp_address *)x, *q = (const zkp_address *)y;
		for (size_t i = 0; i < n; i++) {
			if (p[i].kind != q[i].kind)
				return false;
			if (p[i].kind == ZKP_ADDR_UNIX ? strcmp(p[i].path, q[i].path) != 0
						       : strcmp(p[i].host, q[i].host) != 0 ||
								 p[i].port != q[i].port)
				return false;
		}
		return true;
	}
	default:
		return true;
	}
}

/* cfg as INI text (malloc'd), or NULL when some value cannot be printed.
 * *partial is set when options of a type left out were not printed. */
static char *print_config(const zkp_config *cfg, bool *partial)
{
	char *text = NULL;
	size_t len = 0;
	bool ok = true;
	FILE *f = open_memstream(&text, &len);
	FUZZ_CHECK(f != NULL);

	const char *section = NULL;
	for (size_t i = 0; i < zkp_n_options && ok; i++) {
		const zkp_option *o = &zkp_options[i];
		if (!known_type(o)) {
			*partial = true;
			continue;
		}
		if (!section || strcmp(section, o->section) != 0) {
			section = o->section;
			fprintf(f, "[%s]\n", section);
		}
		ok = print_option(f, o, cfg);
	}
	for (size_t c = 0; c < cfg->n_circuits && ok; c++) {
		fprintf(f, "[circuit.%s]\n", cfg->circuits[c].name);
		for (size_t i = 0; i < zkp_n_circuit_options && ok; i++)
			if (known_type(&zkp_circuit_options[i]))
				ok = print_option(f, &zkp_circuit_options[i], &cfg->circuits[c]);
	}
	FUZZ_CHECK(fclose(f) == 0);
	if (!ok) {
		free(text);
		return NULL;
	}
	return text;
}

static void check_round_trip(const zkp_config *cfg)
{
	bool partial = false;
	char *text = print_config(cfg, &partial);
	if (!text)
		return;
	zkp_config again;
	zkp_error err = {0};
	int rc = zkp_config_parse(&again, text, "printed", &err);
	if (rc) {
		/* a left-out option may be what made the first text valid */
		if (!partial)
			fprintf(stderr, "printed configuration refused: %s\n%s", err.msg, text);
		FUZZ_CHECK(partial);
		free(text);
		return;
	}
	for (size_t i = 0; i < zkp_n_options; i++)
		FUZZ_CHECK(same_option(&zkp_options[i], cfg, &again));
	FUZZ_CHECK(again.n_circuits == cfg->n_circuits);
	for (size_t c = 0; c < cfg->n_circuits; c++) {
		FUZZ_CHECK(strcmp(again.circuits[c].name, cfg->circuits[c].name) == 0);
		for (size_t i = 0; i < zkp_n_circuit_options; i++)
			FUZZ_CHECK(same_option(&zkp_circuit_options[i], &cfg->circuits[c],
					       &again.circuits[c]));
	}
	zkp_config_release(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	FUZZ_CHECK(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';

	zkp_config cfg;
	zkp_error err = {0};
	int rc = zkp_config_parse(&cfg, text, "fuzz.conf", &err);
	free(text);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err.code == rc && err.msg[0] != '\0');
		return 0;
	}
	FUZZ_CHECK(cfg.n_listen >= 1 && cfg.n_listen <= ZKP_CONFIG_MAX_LISTEN);
	for (size_t c = 0; c < cfg.n_circuits; c++) {
		const zkp_config_circuit *k = &cfg.circuits[c];
		FUZZ_CHECK(k->pce && k->key);
		FUZZ_CHECK(zkp_config_circuit_find(&cfg, k->name) == k);
	}
	check_round_trip(&cfg);
	zkp_config_release(&cfg);
	return 0;
}
