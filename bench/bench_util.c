#include "bench_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool need_comma[16];
static int depth;

static void key_prefix(const char *key)
{
	if (need_comma[depth])
		fputs(",", stdout);
	fputs("\n", stdout);
	for (int i = 0; i < depth; i++)
		fputs("  ", stdout);
	if (key)
		printf("\"%s\": ", key);
	need_comma[depth] = true;
}

void json_begin_object(const char *key)
{
	if (depth == 0 && !key && !need_comma[0]) {
		fputs("{", stdout);
	} else {
		key_prefix(key);
		fputs("{", stdout);
	}
	depth++;
	need_comma[depth] = false;
}

void json_end_object(void)
{
	depth--;
	fputs("\n", stdout);
	for (int i = 0; i < depth; i++)
		fputs("  ", stdout);
	fputs("}", stdout);
	if (depth == 0)
		fputs("\n", stdout);
}

void json_begin_array(const char *key)
{
	key_prefix(key);
	fputs("[", stdout);
	depth++;
	need_comma[depth] = false;
}

void json_end_array(void)
{
	depth--;
	fputs("\n", stdout);
	for (int i = 0; i < depth; i++)
		fputs("  ", stdout);
	fputs("]", stdout);
}

void json_num(const char *key, double v)
{
	key_prefix(key);
	printf("%.10g", v);
}

void json_str(const char *key, const char *v)
{
	key_prefix(key);
	fputc('"', stdout);
	for (const char *p = v; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', stdout);
		fputc(*p, stdout);
	}
	fputc('"', stdout);
}

void json_done(void)
{
	fflush(stdout);
}
