/*
 * log: one line per event on stderr, for operators and journald.
 *
 * Line format: "2026-12-02T14:55:01.123Z zkpd[PID] LEVEL: message", UTC,
 * written with a single write(2) so lines from different threads never
 * interleave. Messages at a level above the current one are dropped before
 * formatting. The program name comes from zkp_log_init (default "zkpd").
 *
 * Threads: every function may be called from any thread at once; the level
 * is an atomic.
 */
#ifndef ZKPD_LOG_H
#define ZKPD_LOG_H

enum zkp_log_level { ZKP_LOG_ERROR, ZKP_LOG_WARN, ZKP_LOG_INFO, ZKP_LOG_DEBUG };

/* Sets the program name shown in each line (the string is copied,
 * truncated to 31 bytes) and the level. */
void zkp_log_init(const char *prog, enum zkp_log_level level);
void zkp_log_set_level(enum zkp_log_level level);
enum zkp_log_level zkp_log_get_level(void);

void zkp_log(enum zkp_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "error", "warn", "info", "debug". */
const char *zkp_log_level_name(enum zkp_log_level level);
/* The inverse; returns 0 and sets *ret, or ZKP_ERR_INVAL. */
int zkp_log_level_parse(enum zkp_log_level *ret, const char *name);

#endif
