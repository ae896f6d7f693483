/*
 * Helpers shared by the fuzz targets (tests/fuzz/README.md).
 *
 * Every target is one LLVMFuzzerTestOneInput over the project's real parser.
 * It returns 0 for any input the parser refuses cleanly; a broken invariant
 * aborts through FUZZ_CHECK, which libFuzzer and the replay driver
 * (replay.c) both report as a crash.
 */
#ifndef ZKPD_FUZZ_H
#define ZKPD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h> /* memfd_create: _GNU_SOURCE, set by CMakeLists.txt */
#include <unistd.h>

#define FUZZ_CHECK(cond)                                                                \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__,     \
				__LINE__, #cond);                                       \
			abort();                                                        \
		}                                                                       \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Loaders that take a path read the input through one memory file per
 * process, rewritten for each input and named by its /proc/self/fd link:
 * no disk writes, nothing left behind. Returns the path (static storage).
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("zkpd-fuzz", 0);
		FUZZ_CHECK(fd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	FUZZ_CHECK(ftruncate(fd, 0) == 0);
	size_t done = 0;
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
		FUZZ_CHECK(n > 0);
		done += (size_t)n;
	}
	return path;
}

#endif
