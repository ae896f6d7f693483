/*
 * sockdir: the rule for the directories of Unix sockets. A missing
 * directory passes --check-config only when zkpd makes it (named zkpd...,
 * its parent there), and zkpd makes only that one, 0750 when socket_mode
 * lets the group in, else 0700; an existing one must let the group in
 * when socket_mode does, and must not be writable by anyone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sockdir.h"
#include "zkpd/config.h"

static char top[64];
static char path[256];

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/zkpd-sockdir-test.XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *sock_in(const char *dir)
{
	snprintf(path, sizeof(path), "%s/%s/zkpd.sock", top, dir);
	return path;
}

static unsigned mode_of(const char *dir)
{
	char d[256];
	struct stat st;
	snprintf(d, sizeof(d), "%s/%s", top, dir);
	return stat(d, &st) ? 0 : (unsigned)(st.st_mode & 07777);
}

static void test_missing(void **state)
{
	(void)state;
	zkp_config cfg;
	zkp_config_init(&cfg);
	zkp_error err = { 0 };
	bool make = true;
	/* Not zkpd's own: refused, and never made. */
	assert_int_equal(zkp_sockdir_check(&cfg, "server.listen", sock_in("other"), &make, &err),
			 ZKP_ERR_CONFIG);
	assert_false(make);
	assert_non_null(strstr(err.msg, "server.listen: directory"));
	assert_non_null(strstr(err.msg, "does not exist"));
	assert_int_equal(zkp_sockdir_make(&cfg, sock_in("other"), &err), ZKP_ERR_IO);
	assert_int_equal(mode_of("other"), 0);
	/* A parent that is missing too: not made either. */
	assert_int_equal(zkp_sockdir_make(&cfg, sock_in("no/zkpd"), &err), ZKP_ERR_IO);
	assert_int_equal(mode_of("no"), 0);

	/* zkpd's own, group let in (socket_mode 0660): made 0750. */
	assert_int_equal(zkp_sockdir_check(&cfg, "grpc.listen", sock_in("zkpd"), &make, &err), 0);
	assert_true(make);
	assert_int_equal(zkp_sockdir_make(&cfg, sock_in("zkpd"), &err), 0);
	assert_int_equal(mode_of("zkpd"), 0750);
	/* socket_mode 0600: made 0700. */
	cfg.socket_mode = 0600;
	assert_int_equal(zkp_sockdir_make(&cfg, sock_in("zkpd-2"), &err), 0);
	assert_int_equal(mode_of("zkpd-2"), 0700);
	zkp_config_release(&cfg);
}

static void test_existing(void **state)
{
	(void)state;
	zkp_config cfg;
	zkp_config_init(&cfg);
	zkp_error err = { 0 };
	bool make = true;
	char d[256];
	snprintf(d, sizeof(d), "%s/private", top);
	assert_int_equal(mkdir(d, 0700), 0);
	assert_int_equal(chmod(d, 0700), 0);
	/* 0700 keeps out the group socket_mode 0660 lets in. */
	assert_int_equal(zkp_sockdir_check(&cfg, "server.listen", sock_in("private"), &make, &err),
			 ZKP_ERR_CONFIG);
	assert_false(make);
	assert_non_null(strstr(err.msg, "keeps out the socket's group"));
	assert_non_null(strstr(err.msg, "0660"));
	cfg.socket_mode = 0600;
	assert_int_equal(zkp_sockdir_check(&cfg, "server.listen", sock_in("private"), &make, &err),
			 0);
	/* 0750: the group may enter. */
	cfg.socket_mode = 0660;
	assert_int_equal(chmod(d, 0750), 0);
	assert_int_equal(zkp_sockdir_check(&cfg, "server.listen", sock_in("private"), &make, &err),
			 0);
	/* Writable by anyone, no sticky bit: anyone could replace the socket. */
	assert_int_equal(chmod(d, 0777), 0);
	assert_int_equal(zkp_sockdir_check(&cfg, "server.listen", sock_in("private"), &make, &err),
			 ZKP_ERR_CONFIG);
	assert_non_null(strstr(err.msg, "anyone may replace"));
	/* An existing directory is never touched by make. */
	assert_int_equal(zkp_sockdir_make(&cfg, sock_in("private"), &err), 0);
	assert_int_equal(mode_of("private"), 0777);
	zkp_config_release(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
