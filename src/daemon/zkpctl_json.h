/*
 * zkpctl_json: the small JSON writer behind zkpctl's --json output. A
 * value written after another at the same level gets its comma; members of
 * an object are given their key, elements of an array NULL. Strings are
 * escaped (quotes, backslashes, control characters); non-finite numbers are
 * written as null. Part of zkpctl only.
 */
#ifndef ZKPD_DAEMON_ZKPCTL_JSON_H
#define ZKPD_DAEMON_ZKPCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jw {
	FILE *f;
	bool comma; /* a value precedes at this level */
};

/* Opens an object ('{') or array ('[') as member key (NULL in an array). */
void jw_open(struct jw *w, const char *key, char brace);
/* Closes what jw_open opened: '}' or ']'. */
void jw_close(struct jw *w, char brace);
void jw_str(struct jw *w, const char *key, const char *s); /* NULL as "" */
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_f64(struct jw *w, const char *key, double v);
void jw_bool(struct jw *w, const char *key, bool v);
/* n bytes as lowercase hex in a string. */
void jw_hex(struct jw *w, const char *key, const uint8_t *p, size_t n);
/* Ends the document with a newline and flushes. */
void jw_done(struct jw *w);

#endif
