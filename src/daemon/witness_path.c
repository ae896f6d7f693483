/*
 * Paths beneath witness_dir (witness_path.h).
 */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#endif

#include "witness_path.h"

int zkp_witness_dir_open(zkp_witness_dir *d, const char *dir, zkp_error *err)
{
	d->fd = -1;
	d->text = d->real = NULL;
	d->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d->fd < 0)
		return zkp_error_set(err, ZKP_ERR_CONFIG, "server.witness_dir %s: cannot open: %s",
				     dir, strerror(errno));
	d->text = strdup(dir);
	d->real = realpath(dir, NULL);
	if (!d->text || !d->real) {
		zkp_witness_dir_close(d);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "server.witness_dir %s: out of memory",
				     dir);
	}
	return 0;
}

void zkp_witness_dir_close(zkp_witness_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	free(d->text);
	free(d->real);
	d->fd = -1;
	d->text = d->real = NULL;
}

/* The part of path after dir and its separators, or NULL when path does
 * not lie under dir textually. "/" holds everything. */
static const char *under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path + 1;
	if (strncmp(path, dir, n) != 0 || path[n] != '/')
		return NULL;
	return path + n + 1;
}

#define OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* One openat per component, no symbolic link followed, ".." refused. */
static int open_walk(int dirfd, const char *rel, int *fd)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int cur = dirfd;
	char *save = NULL;
	errno = 0;
	char *part = strtok_r(buf, "/", &save);
	int rc = -1;
	while (part) {
		char *next = strtok_r(NULL, "/", &save);
		if (!strcmp(part, ".")) {
			part = next;
			continue;
		}
		if (!strcmp(part, "..")) {
			errno = EXDEV;
			break;
		}
		int f = openat(cur, part, next ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC :
						 OPEN_FLAGS | O_NOFOLLOW);
		if (cur != dirfd)
			close(cur);
		cur = dirfd;
		if (f < 0)
			break;
		if (!next) {
			*fd = f;
			return 0;
		}
		cur = f;
		part = next;
	}
	if (cur != dirfd)
		close(cur);
	if (!errno)
		errno = ENOENT;
	return rc;
}

static int open_beneath(int dirfd, const char *rel, int *fd)
{
#if defined(__linux__) && defined(SYS_openat2)
	struct open_how how;
	memset(&how, 0, sizeof(how));
	how.flags = OPEN_FLAGS;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	long f = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (f >= 0) {
		*fd = (int)f;
		return 0;
	}
	if (errno != ENOSYS && errno != EPERM)
		return -1;
#endif
	return open_walk(dirfd, rel, fd);
}

int zkp_witness_path_open(const zkp_witness_dir *d, const char *path, int *fd, uint64_t *size,
			  char *why, size_t why_size)
{
	*fd = -1;
	*size = 0;
	const char *rel = path;
	if (path[0] == '/') {
		rel = under(path, d->text);
		if (!rel)
			rel = under(path, d->real);
		if (!rel) {
			snprintf(why, why_size, "not under %s", d->text);
			return -1;
		}
	}
	while (*rel == '/')
		rel++;
	if (!*rel) {
		snprintf(why, why_size, "names the directory itself");
		return -1;
	}
	int f;
	if (open_beneath(d->fd, rel, &f)) {
		snprintf(why, why_size, "%s", errno == EXDEV ? "leaves the directory" :
					      errno == ELOOP ? "a symbolic link on the way" :
							       strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(f, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, why_size, "not a regular file");
		close(f);
		return -1;
	}
	/* Reads of a regular file never block; clear the flag anyway. */
	int fl = fcntl(f, F_GETFL);
	if (fl >= 0)
		fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
	*fd = f;
	*size = (uint64_t)st.st_size;
	return 0;
}
