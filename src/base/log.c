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
static atomic_int log_format = ZKP_LOG_TEXT;
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

void zkp_log_set_format(enum zkp_log_format format)
{
	atomic_store_explicit(&log_format, (int)format, memory_order_relaxed);
}

enum zkp_log_format zkp_log_get_format(void)
{
	return (enum zkp_log_format)atomic_load_explicit(&log_format, memory_order_relaxed);
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

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none:
 * overlong forms, surrogates and code points above U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned min, cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		min = 0x80;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		min = 0x800;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		min = 0x10000;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Appends s as the inside of a JSON string at line[*len], never past cap
 * and never cutting an escape or a UTF-8 sequence in two. */
static void json_escape(char *line, size_t *len, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;
	while (i < n) {
		char esc[8];
		const char *out = esc;
		size_t k, step = 1;
		unsigned char c = p[i];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			k = 2;
		} else if (c == '\n') {
			memcpy(esc, "\\n", k = 2);
		} else if (c == '\t') {
			memcpy(esc, "\\t", k = 2);
		} else if (c < 0x20 || c == 0x7f) {
			k = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", c);
		} else if (c < 0x80) {
			esc[0] = (char)c;
			k = 1;
		} else if ((step = utf8_len(p + i, n - i)) > 0) {
			out = (const char *)p + i;
			k = step;
		} else {
			memcpy(esc, "\\ufffd", k = 6);
			step = 1;
		}
		if (*len + k > cap)
			return;
		memcpy(line + *len, out, k);
		*len += k;
		i += step;
	}
}

static void write_line(const char *line, size_t len)
{
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
}

static void vlog(enum zkp_log_level level, const char *members, const char *fmt, va_list ap)
{
	char line[LINE_MAX_BYTES], msg[LINE_MAX_BYTES];
	struct timespec ts;
	struct tm tm;
	char stamp[96];
	size_t len;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 ts.tv_nsec / 1000000);

	if (atomic_load_explicit(&log_format, memory_order_relaxed) == ZKP_LOG_JSON) {
		if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
			return;
		len = strlen(msg);
		while (len > 0 && msg[len - 1] == '\n')
			msg[--len] = 0;
		size_t mlen = members ? strlen(members) : 0;
		/* Members are whole or absent: a cut one would not parse. */
		if (mlen > sizeof(line) / 2)
			mlen = 0;
		int n = snprintf(line, sizeof(line),
				 "{\"ts\":\"%s\",\"level\":\"%s\",\"prog\":\"", stamp,
				 level_names[level]);
		if (n < 0)
			return;
		len = (size_t)n;
		json_escape(line, &len, sizeof(line), log_prog);
		n = snprintf(line + len, sizeof(line) - len, "\",\"pid\":%ld,\"msg\":\"",
			     (long)getpid());
		if (n < 0 || (size_t)n >= sizeof(line) - len)
			return;
		len += (size_t)n;
		/* Room for the closing quote, the members and the brace and newline. */
		json_escape(line, &len, sizeof(line) - mlen - 4, msg);
		line[len++] = '"';
		if (mlen) {
			line[len++] = ',';
			memcpy(line + len, members, mlen);
			len += mlen;
		}
		line[len++] = '}';
		line[len++] = '\n';
		write_line(line, len);
		return;
	}

	int n = snprintf(line, sizeof(line), "%s %s[%ld] %s: ", stamp, log_prog, (long)getpid(),
			 level_tags[level]);
	if (n < 0)
		return;
	len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	int m = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
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
	write_line(line, len);
}

void zkp_log(enum zkp_log_level level, const char *fmt, ...)
{
	if ((int)level > atomic_load_explicit(&log_level, memory_order_relaxed))
		return;
	if ((unsigned)level > ZKP_LOG_DEBUG)
		level = ZKP_LOG_ERROR;
	int saved_errno = errno; /* callers may log between a failure and its errno check */
	va_list ap;
	va_start(ap, fmt);
	vlog(level, NULL, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void zkp_log_with(enum zkp_log_level level, const char *members, const char *fmt, ...)
{
	if ((int)level > atomic_load_explicit(&log_level, memory_order_relaxed))
		return;
	if ((unsigned)level > ZKP_LOG_DEBUG)
		level = ZKP_LOG_ERROR;
	int saved_errno = errno;
	va_list ap;
	va_start(ap, fmt);
	vlog(level, members, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}
