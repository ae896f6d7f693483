/*
 * mapguard: a guarded mapping whose file is cut short reads zeros past the
 * new end and is marked damaged, while other guarded ranges stay clean; an
 * unguarded one still dies of SIGBUS (checked in a child process).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "zkpd/mapguard.h"

static size_t page;

/* A temporary file of `pages` pages of byte 0xa5, mapped read-only. */
static uint8_t *map_file(char *path, size_t pages, int *fd)
{
	strcpy(path, "/tmp/zkpd-mapguard-XXXXXX");
	*fd = mkstemp(path);
	assert_true(*fd >= 0);
	uint8_t *buf = malloc(pages * page);
	assert_non_null(buf);
	memset(buf, 0xa5, pages * page);
	assert_int_equal(write(*fd, buf, pages * page), (ssize_t)(pages * page));
	free(buf);
	uint8_t *m = mmap(NULL, pages * page, PROT_READ, MAP_SHARED, *fd, 0);
	assert_true(m != MAP_FAILED);
	return m;
}

static uint8_t read_byte(const uint8_t *p)
{
	return *(const volatile uint8_t *)p;
}

static void test_truncated_reads_zeros(void **state)
{
	(void)state;
	char path[64], path2[64];
	int fd, fd2;
	uint8_t *m = map_file(path, 4, &fd);
	uint8_t *m2 = map_file(path2, 2, &fd2);
	int h = zkp_mapguard_add(m, 4 * page);
	int h2 = zkp_mapguard_add(m2, 2 * page);
	assert_true(h > 0 && h2 > 0 && h != h2);
	assert_int_equal(read_byte(m + 3 * page), 0xa5);
	assert_false(zkp_mapguard_damaged(h));

	assert_int_equal(ftruncate(fd, (off_t)page), 0);
	assert_int_equal(read_byte(m), 0xa5); /* still in the file */
	assert_int_equal(read_byte(m + 2 * page + 17), 0); /* cut: a zero page */
	assert_int_equal(read_byte(m + 3 * page), 0);
	assert_true(zkp_mapguard_damaged(h));
	assert_false(zkp_mapguard_damaged(h2));
	assert_int_equal(read_byte(m2 + page), 0xa5);

	zkp_mapguard_remove(h);
	zkp_mapguard_remove(h2);
	assert_false(zkp_mapguard_damaged(0));
	munmap(m, 4 * page);
	munmap(m2, 2 * page);
	close(fd);
	close(fd2);
	unlink(path);
	unlink(path2);
}

/* Outside every guarded range SIGBUS keeps its default action. Run in a
 * fresh process (this program with argument "unguarded"): cmocka catches
 * SIGBUS in its own, and the guard hands foreign faults to the handler it
 * found. */
static const char *self;

static int unguarded_child(void)
{
	char path[64];
	int fd;
	uint8_t *m = map_file(path, 2, &fd);
	unlink(path);
	if (zkp_mapguard_add(m, page) <= 0) /* installs the handler; page 1 unguarded */
		return 3;
	if (ftruncate(fd, 0))
		return 4;
	(void)read_byte(m); /* guarded: zeros */
	(void)read_byte(m + page); /* not guarded: dies here */
	return 0;
}

static void test_unguarded_still_faults(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Under a sanitizer its own SIGBUS handler would be the one
		 * found and chained to (it reports, then exits non-zero). */
		static const char *const vars[] = { "ASAN_OPTIONS", "TSAN_OPTIONS" };
		for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
			char opts[1024];
			const char *o = getenv(vars[i]);
			snprintf(opts, sizeof(opts), "%s%shandle_sigbus=0", o ? o : "",
				 o && *o ? ":" : "");
			setenv(vars[i], opts, 1);
		}
		execl(self, self, "unguarded", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFSIGNALED(st))
		fail_msg("the child exited with status %d instead of dying of SIGBUS",
			 WEXITSTATUS(st));
	assert_int_equal(WTERMSIG(st), SIGBUS);
}

int main(int argc, char **argv)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	self = argv[0];
	if (argc > 1 && !strcmp(argv[1], "unguarded"))
		return unguarded_child();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated_reads_zeros),
		cmocka_unit_test(test_unguarded_still_faults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
