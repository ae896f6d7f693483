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
