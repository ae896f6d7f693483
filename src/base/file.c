/*
 * Whole-file reads (file.h): pread in pieces of at most 1 GiB (a single
 * read returns at most about 2 GiB on Linux), from offset 0 whatever the
 * descriptor's position.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zkpd/file.h"

#define PIECE ((size_t)1 << 30)

int zkp_file_read_fd(int fd, const char *name, uint8_t **ret, size_t *len, zkp_error *err)
{
	*ret = NULL;
	*len = 0;
	struct stat st;
	if (fstat(fd, &st))
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot stat: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return zkp_error_set(err, ZKP_ERR_IO, "%s: not a regular file", name);
	size_t size = (size_t)st.st_size, done = 0;
	uint8_t *buf = malloc(size + 1);
	if (!buf)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: no memory for %zu bytes", name, size);
	while (done < size) {
		size_t want = size - done < PIECE ? size - done : PIECE;
		ssize_t n = pread(fd, buf + done, want, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return zkp_error_set(err, ZKP_ERR_IO, "%s: read failed at byte %zu: %s",
					     name, done, strerror(e));
		}
		if (n == 0) {
			free(buf);
			return zkp_error_set(err, ZKP_ERR_TRUNCATED,
					     "%s: the file ended at byte %zu of %zu: it was cut "
					     "short while being read", name, done, size);
		}
		done += (size_t)n;
	}
	*ret = buf;
	*len = size;
	return 0;
}
