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
	X(ERR_UNSUPPORTED, -14, "operation not supported on this build")

enum zkp_err {
#define ZKP_ERR_ENUM(name, code, text) ZKP_##name = (code),
	ZKP_ERRORS(ZKP_ERR_ENUM)
#undef ZKP_ERR_ENUM
};

/* Human-readable text for a code; unknown codes give "unknown error". */
const char *zkp_strerror(int err);

/* The code's symbolic name without the ZKP_ prefix ("ERR_NOMEM"); unknown codes
 * give "UNKNOWN". */
const char *zkp_err_name(int err);

#endif
