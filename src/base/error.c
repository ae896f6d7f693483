#include <stdarg.h>
#include <stdio.h>

#include "zkpd/error.h"

const char *zkp_strerror(int err)
{
	switch (err) {
#define ZKP_ERR_TEXT(name, code, text) case (code): return (text);
		ZKP_ERRORS(ZKP_ERR_TEXT)
#undef ZKP_ERR_TEXT
	}
	return "unknown error";
}

const char *zkp_err_name(int err)
{
	switch (err) {
#define ZKP_ERR_NAME(name, code, text) case (code): return #name;
		ZKP_ERRORS(ZKP_ERR_NAME)
#undef ZKP_ERR_NAME
	}
	return "UNKNOWN";
}

int zkp_error_set(zkp_error *e, int code, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		e->code = code;
	}
	return code;
}

const char *zkp_error_text(const zkp_error *e, int code)
{
	if (e && e->code == code && code != 0 && e->msg[0])
		return e->msg;
	return zkp_strerror(code);
}
