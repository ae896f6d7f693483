#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "zkpd/error.h"
#include "zkpd/log.h"

#define LINE_MAX_BYTES 4096

static atomic_int log_level = ZKP_LOG_INFO;
static char log_prog[32] = "zkpd";

static const char *const level_names[] = { "error", "warn", "info", "debug" };
static const char *const level_tags[] = { "ERROR", "WARN", "INFO", "DEBUG" };

void zkp_log_init(const char *prog, enum zkp_log_level level)
{
	if (prog && *prog)
		snprintf(log_prog, sizeof(log_prog), "%s", prog);
	zkp_log_set_level(level);
}

void zkp_log_set_level(enum zkp_log_level level)
{
	atomic_store_explicit(&log_level, (int)level, memory_order_relaxed);
}

enum zkp_log_level zkp_log_get_level(void)
{
	return (enum zkp_log_level)atomic_load_explicit(&log_level, memory_order_relaxed);
}

const char *zkp_log_level_name(enum zkp_log_level level)
{
	if ((unsigned)level < sizeof(level_names) / sizeof(level_names[0]))
		return level_names[level];
	return "unknown";
}

int zkp_log_level_parse(enum zkp_log_level *ret, const char *name)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (name && strcasecmp(name, level_names[i]) == 0) {
			*ret = (enum zkp_log_level)i;
			return 0;
		}
	}
	return ZKP_ERR_INVAL;
}

void zkp_log(enum zkp_log_level level, const char *fmt, ...)
{
	if ((int)level > atomic_load_explicit(&log_level, memory_order_relaxed))
		return;
	if ((unsigned)level > ZKP_LOG_DEBUG)
		level = ZKP_LOG_ERROR;

	int saved_errno = errno; /* callers may log between a failure and its errno check */
	char line[LINE_MAX_BYTES];
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	int n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s[%ld] %s: ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec, ts.tv_nsec / 1000000, log_prog, (long)getpid(),
			 level_tags[level]);
	if (n < 0)
		goto out;
	size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;

	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	if (m > 0)
		len += (size_t)m < sizeof(line) - len ? (size_t)m : sizeof(line) - len - 1;
	/* Room for the newline: a cut message loses its last byte, never the newline. */
	if (len > sizeof(line) - 1)
		len = sizeof(line) - 1;
	while (len > 0 && line[len - 1] == '\n')
		len--;
	if (len == sizeof(line) - 1)
		len--;
	line[len++] = '\n';

	/* One write(2) keeps lines from concurrent threads whole; the loop only
	 * finishes a line a signal interrupted part way. */
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(STDERR_FILENO, line + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		off += (size_t)w;
	}
out:
	errno = saved_errno;
}
