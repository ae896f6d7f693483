/*
 * The test hooks of zkpd-test-hooks (engine_int.h, "Test hooks"): test
 * devices and injected device faults asked for in the environment. This
 * file is compiled into that test program only, never into the engine
 * library, so no production zkpd contains it; engine_hooks.c is what zkpd
 * links instead.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"
#include "zkpd/log.h"

const char *zkp_engine_test_hooks(void)
{
	return "test hooks compiled in (ZKPD_TEST_OFFHOST_DEVICES, "
	       "ZKPD_INJECT_DEVICE_FAULT_EVERY, ZKPD_INJECT_DEVICE_CORRUPT_EVERY, "
	       "ZKPD_TEST_LEAK_BYTES_PER_JOB, ZKPD_TEST_LOAD_WAIT_FILE): a test program, not for "
	       "production";
}

/* ZKPD_INJECT_DEVICE_FAULT_EVERY=N: every Nth NTT or MSM
 * on each device fails as a device fault would. ZKPD_INJECT_DEVICE_CORRUPT_
 * EVERY=N: every Nth G1 MSM on each device returns a wrong point, silently. */
static int inject_one(struct device *d, const char *var, bool corrupt, zkp_error *err)
{
	const char *every = getenv(var);
	if (!every || !*every)
		return 0;
	char *end;
	unsigned long n = strtoul(every, &end, 10);
	if (*end || n == 0 || n > 1000000)
		return zkp_error_set(err, ZKP_ERR_CONFIG, "%s=%s: expected 1..1000000", var, every);
	zkp_backend *faulty;
	int rc = corrupt ? zkp_backend_corrupting_new(&faulty, d->be, (unsigned)n) :
			   zkp_backend_faulty_new(&faulty, d->be, (unsigned)n);
	if (rc)
		return zkp_error_set(err, rc, "cannot create the fault-injecting backend");
	if (d->inner) /* both kinds: the outer wraps the inner wrapper */
		d->inner2 = d->be;
	else
		d->inner = d->be;
	d->be = faulty;
	zkp_log(ZKP_LOG_WARN, "%s: %s every %lu-th %s (%s): for fault tests only", d->name,
		corrupt ? "corrupting the result of" : "injecting a device fault into", n,
		corrupt ? "G1 MSM" : "NTT or MSM", var);
	return 0;
}

int engine_test_faults(struct device *d, zkp_error *err)
{
	int rc = inject_one(d, "ZKPD_INJECT_DEVICE_FAULT_EVERY", false, err);
	return rc ? rc : inject_one(d, "ZKPD_INJECT_DEVICE_CORRUPT_EVERY", true, err);
}

/* ZKPD_TEST_OFFHOST_DEVICES=N: N devices whose memory the host
 * cannot see (backend.h's offhost backend) stand in for GPUs, so the
 * daemon's device paths (uploads, resident keys per device, several
 * devices, faults) run on machines without one. */
static int offhost_devices(struct zkp_engine *e, const char *text, zkp_error *err)
{
	char *end;
	unsigned long n = strtoul(text, &end, 10);
	if (*end || n == 0 || n > 8)
		return zkp_error_set(err, ZKP_ERR_CONFIG,
				     "ZKPD_TEST_OFFHOST_DEVICES=%s: expected 1..8", text);
	e->devs = calloc(n, sizeof(*e->devs));
	if (!e->devs)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory creating devices");
	for (unsigned long i = 0; i < n; i++) {
		struct device *d = &e->devs[e->n_devs];
		memset(d, 0, sizeof(*d));
		d->index = (uint32_t)e->n_devs;
		d->gpu = -1;
		snprintf(d->name, sizeof(d->name), "offhost:%lu", i);
		d->kind = "offhost";
		int rc = zkp_backend_cpu_new(&d->host, e->pool);
		if (!rc)
			rc = zkp_backend_offhost_new(&d->be, d->host);
		if (rc)
			return zkp_error_set(err, rc, "cannot create test device %s", d->name);
		pthread_mutex_init(&d->lock, NULL);
		d->lock_init = true;
		d->t_made = eng_now();
		e->n_devs++;
		/* Limited by gpus.device_memory alone: a test device has no
		 * memory of its own to measure. */
		devmem_init(e, d, 0);
		rc = engine_test_faults(d, err);
		if (rc)
			return rc;
	}
	zkp_log(ZKP_LOG_WARN, "ZKPD_TEST_OFFHOST_DEVICES=%lu: proving on %lu test devices that "
			      "stand in for GPUs (for tests only; slower than the CPU backend)", n, n);
	return 0;
}

int engine_test_devices(struct zkp_engine *e, zkp_error *err)
{
	const char *offhost = getenv("ZKPD_TEST_OFFHOST_DEVICES");
	if (!offhost || !*offhost)
		return 0;
	int rc = offhost_devices(e, offhost, err);
	return rc ? rc : 1;
}

/* ZKPD_TEST_LEAK_BYTES_PER_JOB=N: a leak of N bytes (1..1 GiB) per ended
 * job, each page written so that it is resident. */
char *volatile engine_test_leaked;
void engine_test_job_ended(struct zkp_engine *e)
{
	(void)e;
	const char *v = getenv("ZKPD_TEST_LEAK_BYTES_PER_JOB");
	if (!v || !*v)
		return;
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || n == 0 || n > (1ul << 30))
		return;
	char *leak = malloc(n);
	if (leak)
		memset(leak, 0x5a, n);
	engine_test_leaked = leak; /* kept from the optimiser; never freed */
}

/* ZKPD_TEST_LOAD_WAIT_FILE=PATH: every load waits until PATH exists, so a
 * test can tell whether a load began (the log line) and hold it meanwhile. */
void engine_test_load_begins(const char *circuit)
{
	const char *path = getenv("ZKPD_TEST_LOAD_WAIT_FILE");
	if (!path || !*path)
		return;
	zkp_log(ZKP_LOG_WARN, "circuit %s: load waits for %s (ZKPD_TEST_LOAD_WAIT_FILE)", circuit,
		path);
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	while (access(path, F_OK))
		nanosleep(&pause, NULL);
}
