/*
 * log: one line per event on stderr, for operators and journald.
 *
 * Line format: "2026-12-02T14:55:01.123Z zkpd[PID] LEVEL: message", UTC,
 * written with a single write(2) so lines from different threads never
 * interleave. In JSON format each line is one object instead:
 * {"ts":"2026-12-02T14:55:01.123Z","level":"info","prog":"zkpd","pid":PID,
 * "msg":"message"} plus any structured members (zkp_log_with), the message
 * escaped as JSON (control characters as \uXXXX, bytes that are not UTF-8
 * as U+FFFD). A line holds at most 4096 bytes; a longer message is cut.
 * Messages at a level above the current one are dropped before formatting.
 * The program name comes from zkp_log_init (default "zkpd").
 *
 * Threads: every function may be called from any thread at once; the level
 * and the format are atomics.
 */
#ifndef ZKPD_LOG_H
#define ZKPD_LOG_H

enum zkp_log_level { ZKP_LOG_ERROR, ZKP_LOG_WARN, ZKP_LOG_INFO, ZKP_LOG_DEBUG };
enum zkp_log_format { ZKP_LOG_TEXT, ZKP_LOG_JSON };

/* Sets the program name shown in each line (the string is copied,
 * truncated to 31 bytes) and the level. */
void zkp_log_init(const char *prog, enum zkp_log_level level);
void zkp_log_set_level(enum zkp_log_level level);
enum zkp_log_level zkp_log_get_level(void);
/* text (default) or json; an atomic, like the level. */
void zkp_log_set_format(enum zkp_log_format format);
enum zkp_log_format zkp_log_get_format(void);

void zkp_log(enum zkp_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* zkp_log with structured members for JSON lines: members is JSON text
 * without braces ("\"job\":17,\"state\":\"done\""), valid as the caller
 * writes it, appended after "msg"; text lines show the message alone. NULL
 * or "" adds nothing. */
void zkp_log_with(enum zkp_log_level level, const char *members, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "error", "warn", "info", "debug". */
const char *zkp_log_level_name(enum zkp_log_level level);
/* The inverse; returns 0 and sets *ret, or ZKP_ERR_INVAL. */
int zkp_log_level_parse(enum zkp_log_level *ret, const char *name);

#endif
