/*
 * file: reading a whole file into memory, for inputs that may change under
 * us (witnesses and C1 outputs named by clients): a read copies what is
 * there, where a mapping would raise SIGBUS if the file were cut short.
 *
 * Threads: any. Errors name the file as given by the caller.
 */
#ifndef ZKPD_FILE_H
#define ZKPD_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"

/* Reads the regular file open on fd from offset 0 to the size fstat gives
 * into a malloc'd buffer (*ret, *len; one spare byte so an empty file still
 * gets a buffer). name is for messages. Errors: ZKP_ERR_IO (not a regular
 * file, a failed read), ZKP_ERR_TRUNCATED (the file ended before its size:
 * cut short while being read), ZKP_ERR_NOMEM. fd is left open. */
int zkp_file_read_fd(int fd, const char *name, uint8_t **ret, size_t *len, zkp_error *err);

#endif
