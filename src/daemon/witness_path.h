/*
 * witness_path: opening a file a client names, beneath server.witness_dir
 * and nowhere else.
 *
 * The directory is opened once (zkp_witness_dir_open) and every path is
 * resolved against that descriptor by the kernel: openat2 with
 * RESOLVE_BENEATH (symbolic links and ".." may be followed only while they
 * stay beneath it), or, where openat2 is missing, one openat with
 * O_NOFOLLOW per component and ".." refused. The file is opened at submit
 * and its descriptor kept by the job, so what is proved is the file that
 * was checked, whatever happens to the name later. A FIFO or device is
 * never waited on (O_NONBLOCK) and is refused as not a regular file.
 *
 * Threads: any (no shared state).
 */
#ifndef ZKPD_DAEMON_WITNESS_PATH_H
#define ZKPD_DAEMON_WITNESS_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"

typedef struct {
	int fd;      /* O_PATH descriptor of the directory, -1: none */
	char *text;  /* the directory as configured */
	char *real;  /* and as realpath resolved it at open */
} zkp_witness_dir;

/* Opens dir. Errors: ZKP_ERR_CONFIG naming dir and the system error,
 * ZKP_ERR_NOMEM. */
int zkp_witness_dir_open(zkp_witness_dir *d, const char *dir, zkp_error *err);
void zkp_witness_dir_close(zkp_witness_dir *d);

/* Opens path for reading beneath d: an absolute path must start with the
 * directory (as configured or resolved), a relative one is taken relative
 * to it. Sets *fd and *size (a regular file). On failure returns -1 and
 * writes why into why (for the operator's log only: a client must not learn
 * whether a file exists outside the directory). */
int zkp_witness_path_open(const zkp_witness_dir *d, const char *path, int *fd, uint64_t *size,
			  char *why, size_t why_size);

#endif
