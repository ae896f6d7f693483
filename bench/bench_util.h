/*
 * Small helpers shared by the zkpd-bench subcommands: a monotonic clock,
 * medians, and a JSON writer that prints one object to stdout.
 */
#ifndef ZKPD_BENCH_UTIL_H
#define ZKPD_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

double bench_now_ns(void);
/* Sorts v in place and returns its median. */
double bench_median(double *v, size_t n);

/* Minimal streaming JSON: objects, arrays, numbers and strings, with commas
 * placed automatically. Nesting depth at most 16. */
void json_begin_object(const char *key);
void json_end_object(void);
/* An array member (key NULL inside an array); its elements are objects or
 * values with key NULL. */
void json_begin_array(const char *key);
void json_end_array(void);
void json_num(const char *key, double v);
void json_str(const char *key, const char *v);
void json_done(void);

#endif
