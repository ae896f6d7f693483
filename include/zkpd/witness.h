/*
 * witness: decoding a full assignment w = [ONE | public | private | internal]
 * into Montgomery Fr, ready for zkp_pce_eval and the prover.
 *
 * Two encodings are accepted, told apart by their first bytes:
 *  - circom/snarkjs .wtns (starts with the ASCII magic "wtns"): version 2,
 *    sections found by id in any order (docs/formats.md, '.wtns'). Section
 *    1 holds the field size n8, the prime and nWitness;
 *    section 2 holds nWitness values of n8 bytes, canonical little-endian.
 *    n8 must be 32 and the prime must be BLS12-381's r; section 2 must be
 *    exactly nWitness * 32 bytes; sections with other ids are skipped.
 *  - raw: the values back to back, 32 bytes each, canonical little-endian,
 *    nothing else. The two cannot be confused: a raw assignment starts with
 *    ONE, whose first bytes are 01 00 00 00, never "wtns".
 * In both, every value must be below r and value 0 must be 1 (the constant
 * ONE every circuit's column 0 assumes).
 *
 * Errors (detail in err: the file name or "witness", the byte offset, the
 * value's index, what was expected):
 *  - ZKP_ERR_TRUNCATED: the input ends early (inside the container header,
 *    the section table, a section, or, for raw input, inside a value); the
 *    message names the offset where it ends and what was being read;
 *  - ZKP_ERR_WRONG_PRIME: n8 != 32 or a prime other than r; the message
 *    names the prime found in decimal (and "BN254" when it is BN254's r,
 *    circom's default), so the fix (`circom --prime bls12381`) is obvious;
 *  - ZKP_ERR_NOT_CANONICAL: a value >= r; the message names its index;
 *  - ZKP_ERR_VERSION: a .wtns version other than 2;
 *  - ZKP_ERR_FORMAT: a missing or duplicated section, sizes that disagree,
 *    bytes after the last section, no values, value 0 not equal to 1;
 *  - ZKP_ERR_IO (load only): open, stat or mmap failed (names the path);
 *  - ZKP_ERR_NOMEM.
 * On error *ret is NULL and *count 0.
 *
 * Ownership: on success *ret is a malloc'd array of *count Montgomery
 * values; the caller frees it with free(). The input is only read.
 * Threads: no shared state; any thread, any number at once.
 * Cost: one pass over the values, one Montgomery multiplication each
 * (about 20 ns), plus 32 bytes of output per value.
 */
#ifndef ZKPD_WITNESS_H
#define ZKPD_WITNESS_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/ff.h"

/* Decodes a witness held in memory (as received by the daemon). Messages
 * name the input "witness". */
int zkp_witness_decode(const uint8_t *buf, size_t len, zkp_fr **ret, uint64_t *count,
		       zkp_error *err);

/* Reads path and decodes it; messages name path. */
int zkp_witness_load(const char *path, zkp_fr **ret, uint64_t *count, zkp_error *err);
/* The same for a file already open on fd (left open): read, not mapped, so
 * a file cut short meanwhile is an error (ZKP_ERR_TRUNCATED), not SIGBUS.
 * Messages name name. */
int zkp_witness_load_fd(int fd, const char *name, zkp_fr **ret, uint64_t *count,
			zkp_error *err);

#endif
