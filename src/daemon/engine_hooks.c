/*
 * The engine's test hooks as a production program has them: none. The
 * test program zkpd-test-hooks links engine_testhooks.c, whose definitions
 * of the same functions come first, so this file's are not linked there;
 * zkpd and every other program get these, and read no test variable.
 */
#include "engine_int.h"

const char *zkp_engine_test_hooks(void)
{
	return NULL;
}

int engine_test_devices(struct zkp_engine *e, zkp_error *err)
{
	(void)e;
	(void)err;
	return 0;
}

int engine_test_faults(struct device *d, zkp_error *err)
{
	(void)d;
	(void)err;
	return 0;
}

void engine_test_job_ended(struct zkp_engine *e)
{
	(void)e;
}

void engine_test_load_begins(const char *circuit)
{
	(void)circuit;
}
