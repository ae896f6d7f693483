/*
 * zkpd error codes.
 *
 * One X-macro table generates enum zkp_err, zkp_strerror() and zkp_err_name().
 * Invariants: ZKP_OK is 0; every error is negative; codes are never renumbered
 * once shipped (they travel in protocol replies), new rows go at the end.
 *
 * Fallible functions return int: 0 on success or a negative zkp_err. A caller
 * that needs detail (file, offset, what was expected) gets it from the message
 * the failing layer logged or wrote into its own error buffer; the code says
 * which kind of failure it was.
 */
#ifndef ZKPD_ERROR_H
#define ZKPD_ERROR_H

#define ZKP_ERRORS(X)                                                          \
	X(OK, 0, "success")                                                    \
	X(ERR_NOMEM, -1, "out of memory")                                      \
	X(ERR_INVAL, -2, "invalid argument")                                   \
	X(ERR_IO, -3, "input/output error")                                    \
	X(ERR_NOT_CANONICAL, -4, "field element is not below the modulus")     \
	X(ERR_BAD_LENGTH, -5, "encoding has the wrong length")                 \
	X(ERR_BAD_FLAGS, -6, "point encoding flags do not match its length")   \
	X(ERR_BAD_INFINITY, -7,                                                \
	  "point at infinity encoded with other bits set")                     \
	X(ERR_SORT_FLAG_UNCOMPRESSED, -8,                                      \
	  "sort flag set on an uncompressed point encoding")                   \
	X(ERR_X_NOT_ON_CURVE, -9, "no curve point has this x coordinate")      \
	X(ERR_NOT_ON_CURVE, -10, "point is not on the curve")                  \
	X(ERR_NOT_IN_SUBGROUP, -11, "point is not in the prime-order subgroup") \
	X(ERR_NOT_INVERTIBLE, -12, "zero has no inverse")                      \
	X(ERR_NO_SQRT, -13, "element is not a square")                         \
	X(ERR_UNSUPPORTED, -14, "operation not supported on this build")        \
	X(ERR_FORMAT, -15, "malformed file or message")                        \
	X(ERR_TRUNCATED, -16, "file or message ends early")                    \
	X(ERR_VERSION, -17, "unsupported format version")                      \
	X(ERR_CHECKSUM, -18, "checksum mismatch")                              \
	X(ERR_WRONG_PRIME, -19, "data is over a different prime field")        \
	X(ERR_RANGE, -20, "value out of range")                                \
	X(ERR_UNSATISFIED, -21, "witness does not satisfy a constraint")       \
	X(ERR_MISMATCH, -22, "sizes or digests of related objects disagree")  \
	X(ERR_NOT_FOUND, -23, "no such job, circuit or file")                 \
	X(ERR_BUSY, -24, "resource is in use")                                 \
	X(ERR_CANCELLED, -25, "job was cancelled")                             \
	X(ERR_TIMEOUT, -26, "timed out")                                       \
	X(ERR_SHUTDOWN, -27, "daemon is shutting down")                        \
	X(ERR_LIMIT, -28, "a configured limit was exceeded")                   \
	X(ERR_DENIED, -29, "not permitted")                                    \
	X(ERR_CONFIG, -30, "invalid configuration")                            \
	X(ERR_PROTOCOL, -31, "malformed or unexpected protocol message")       \
	X(ERR_DEVICE, -32, "device failure")

enum zkp_err {
#define ZKP_ERR_ENUM(name, code, text) ZKP_##name = (code),
	ZKP_ERRORS(ZKP_ERR_ENUM)
#undef ZKP_ERR_ENUM
};

/*
 * Detail for a failure, filled where the failure is found: which file,
 * which offset or index, what was expected. Functions that parse or check
 * external input take a zkp_error * (may be NULL) next to their int return.
 */
typedef struct {
	int code;
	char msg[512];
} zkp_error;

/* Sets e->code and formats e->msg (when e is not NULL); returns code, so a
 * parser can `return zkp_error_set(e, ZKP_ERR_FORMAT, "%s: ...", path);`. */
int zkp_error_set(zkp_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* e->msg when e holds an error with a message, else zkp_strerror(code). */
const char *zkp_error_text(const zkp_error *e, int code);

/* Human-readable text for a code; unknown codes give "unknown error". */
const char *zkp_strerror(int err);

/* The code's symbolic name without the ZKP_ prefix ("ERR_NOMEM"); unknown codes
 * give "UNKNOWN". */
const char *zkp_err_name(int err);

#endif
