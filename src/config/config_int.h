/*
 * The option table shared by the config parser, --print-default-config and
 * docs/config.md. Each row names one INI key, where its value lives in
 * zkp_config (or zkp_config_circuit for the circuit table), its type, its
 * default as text (parsed by the same code as a file value, so the printed
 * default and the real one cannot drift apart), its bounds and its doc.
 */
#ifndef ZKPD_CONFIG_INT_H
#define ZKPD_CONFIG_INT_H

#include <stddef.h>
#include <stdint.h>

enum zkp_opt_type {
	ZKP_OPT_STRING,    /* char *, copied */
	ZKP_OPT_PATH,      /* char *, relative to the config file's directory */
	ZKP_OPT_DEVICES,   /* char *: auto | cpu | N[,N...], N in 0..63 */
	ZKP_OPT_BOOL,      /* bool */
	ZKP_OPT_U32,       /* uint32_t */
	ZKP_OPT_SIZE,      /* uint64_t bytes */
	ZKP_OPT_DURATION,  /* uint64_t milliseconds */
	ZKP_OPT_MODE,      /* unsigned, octal */
	ZKP_OPT_ENUM,      /* int-sized enum, index into choices */
	ZKP_OPT_ADDRESSES, /* zkp_address[ZKP_CONFIG_MAX_LISTEN] + size_t count after it */
	ZKP_OPT_HOSTPORT,  /* zkp_address, tcp: HOST:PORT; empty: port 0 (off) */
	ZKP_OPT_ENDPOINT,  /* zkp_address, unix:PATH or HOST:PORT; empty: tcp port 0 (off) */
};

typedef struct {
	const char *section; /* "server", ...; "circuit" for the circuit table */
	const char *key;
	enum zkp_opt_type type;
	size_t offset;       /* into zkp_config or zkp_config_circuit */
	size_t count_offset; /* ZKP_OPT_ADDRESSES: the size_t count */
	const char *def;     /* default as text; NULL: unset (or computed, see def_doc) */
	const char *def_doc; /* default as documented when def cannot say it */
	uint64_t min, max;   /* numeric types, inclusive */
	const char *const *choices; /* ZKP_OPT_ENUM, NULL-terminated */
	const char *doc;
} zkp_option;

/* Upper bound on rows per table: the parser keeps one line number per row. */
#define ZKP_OPTIONS_MAX 64

extern const zkp_option zkp_options[];
extern const size_t zkp_n_options;
extern const zkp_option zkp_circuit_options[];
extern const size_t zkp_n_circuit_options;
extern const char *const zkp_config_sections[]; /* NULL-terminated, table order */

/* Parses text as o's type into base + o->offset. On failure returns
 * ZKP_ERR_CONFIG (or ZKP_ERR_NOMEM) and writes "what was wrong (expected
 * ...)" into why. Strings are malloc'd; a
 * string already held is freed unless it is the row's static default. */
int zkp_option_set(const zkp_option *o, void *base, const char *text, char *why, size_t whylen);
/* Frees a string option held at base + o->offset when it is not the row's
 * static default, and zeroes the pointer. */
void zkp_option_free(const zkp_option *o, void *base);
/* "u32", "size", ...; and bounds as text ("1..64", "" when unbounded). */
const char *zkp_option_type_name(const zkp_option *o);
void zkp_option_bounds(const zkp_option *o, char *buf, size_t size);

#endif
