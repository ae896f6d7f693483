/*
 * zkpctl_json: zkpctl's JSON writer (zkpctl_json.h).
 */
#include <inttypes.h>
#include <math.h>

#include "zkpctl_json.h"

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void jw_key(struct jw *w, const char *key)
{
	if (w->comma)
		fputc(',', w->f);
	w->comma = true;
	if (key) {
		json_string(w->f, key);
		fputc(':', w->f);
	}
}

void jw_open(struct jw *w, const char *key, char brace)
{
	jw_key(w, key);
	fputc(brace, w->f);
	w->comma = false;
}

void jw_close(struct jw *w, char brace)
{
	fputc(brace, w->f);
	w->comma = true;
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	json_string(w->f, s);
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void jw_f64(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	if (isfinite(v))
		fprintf(w->f, "%.9g", v);
	else
		fputs("null", w->f);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	fputs(v ? "true" : "false", w->f);
}

void jw_hex(struct jw *w, const char *key, const uint8_t *p, size_t n)
{
	jw_key(w, key);
	fputc('"', w->f);
	for (size_t i = 0; i < n; i++)
		fprintf(w->f, "%02x", p[i]);
	fputc('"', w->f);
}

void jw_done(struct jw *w)
{
	fputc('\n', w->f);
	fflush(w->f);
}
