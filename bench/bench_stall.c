/*
 * zkpd-bench stall --connect ADDRESS --circuit NAME [--bytes B] [--runs R]
 *                  [--interval-ms MS]
 *
 * How long other clients wait while zkpd takes a large Submit. A running
 * zkpd (with server.journal_dir set, this measures the journal's write of
 * the witness) gets, per run, a Submit of a raw witness of B bytes (default
 * 256 MiB; random values below 2^248, so a well-formed raw witness that
 * simply does not fit the circuit: the job fails later, at WITNESS, which
 * costs the daemon nothing more) with a fresh request_id on one connection,
 * while a second connection sends Health every MS milliseconds (default 1)
 * from before the Submit is sent until it is answered.
 *
 * Prints per run and as medians over the runs: the Submit's latency (sent
 * to answered), and the Health round trips during it: count, p50, p99 and
 * max in milliseconds, plus the same for a quiet second before the Submit
 * (the reference). Health answered in a few milliseconds while the Submit
 * is being written means the write does not hold the event loop.
 * Exit status: 0, 1 when the daemon cannot be reached or refuses the
 * Submit for another reason than the witness, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "wire.h"

#define MAX_FRAME (64u << 20)
#define MAX_RUNS 50
#define MAX_SAMPLES 200000

static void help(FILE *f)
{
	fprintf(f, "usage: zkpd-bench stall --connect ADDRESS --circuit NAME [--bytes B] "
		   "[--runs R] [--interval-ms MS]\n"
		   "  Health round trips on one connection while another sends a Submit of a\n"
		   "  B-byte raw witness (default 256 MiB) with a fresh request_id; against a\n"
		   "  daemon with server.journal_dir this times the journal's write. Prints\n"
		   "  JSON: the Submit's latency and Health p50/p99/max during it and in a\n"
		   "  quiet second before, per run and as medians (R runs, default 3).\n");
}

typedef struct {
	const char *addr;
	double interval_ms;
	atomic_bool stop;
	double *ms;
	size_t n;
	int rc;
} pinger;

static int health(zkp_client *c, double *ms)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__HealthRequest hr = ZKPD__V1__HEALTH_REQUEST__INIT;
	zkp_error err = { 0 };
	req.call_case = ZKPD__V1__REQUEST__CALL_HEALTH;
	req.health = &hr;
	env.call_id = zkp_client_next_call_id(c);
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = &req;
	double t0 = bench_now_ns();
	int rc = zkp_client_send(c, &env, &err);
	Zkpd__V1__Envelope *in = NULL;
	if (!rc)
		rc = zkp_client_recv(c, &in, 60000, &err);
	if (rc) {
		fprintf(stderr, "zkpd-bench stall: health: %s\n", zkp_error_text(&err, rc));
		return rc;
	}
	*ms = (bench_now_ns() - t0) / 1e6;
	bool ok = in->body_case == ZKPD__V1__ENVELOPE__BODY_RESPONSE;
	zkp_wire_free(in);
	return ok ? 0 : ZKP_ERR_PROTOCOL;
}

static void *ping_main(void *arg)
{
	pinger *p = arg;
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	p->rc = zkp_client_connect(&c, p->addr, MAX_FRAME, &err);
	if (p->rc) {
		fprintf(stderr, "zkpd-bench stall: %s\n", zkp_error_text(&err, p->rc));
		return NULL;
	}
	while (!atomic_load(&p->stop) && p->n < MAX_SAMPLES) {
		double ms;
		if ((p->rc = health(c, &ms)))
			break;
		p->ms[p->n++] = ms;
		usleep((useconds_t)(p->interval_ms * 1000));
	}
	zkp_client_close(c);
	return NULL;
}

static double pct(double *v, size_t n, double q)
{
	if (!n)
		return 0;
	size_t k = (size_t)(q * (double)(n - 1) + 0.5);
	return v[k];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

enum { F_SUBMIT_MS, F_N, F_P50, F_P99, F_MAX, F_QUIET_P50, F_QUIET_P99, F_QUIET_MAX, NF };
static const char *const names[NF] = { "submit_ms", "health_calls", "health_p50_ms",
				       "health_p99_ms", "health_max_ms", "quiet_p50_ms",
				       "quiet_p99_ms", "quiet_max_ms" };

static void summarize(double *f, double *ms, size_t n, int base)
{
	qsort(ms, n, sizeof(*ms), cmp_double);
	if (base == F_P50)
		f[F_N] = (double)n;
	f[base] = pct(ms, n, 0.5);
	f[base + 1] = pct(ms, n, 0.99);
	f[base + 2] = n ? ms[n - 1] : 0;
}

/* Runs the pinger for `seconds` or until *done; fills f from base. */
static int one_run(const char *addr, const char *circuit, const uint8_t *witness, size_t bytes,
		   double interval_ms, double *f)
{
	pinger p = { .addr = addr, .interval_ms = interval_ms };
	p.ms = malloc(MAX_SAMPLES * sizeof(double));
	if (!p.ms)
		return 1;
	/* the quiet second */
	pthread_t th;
	pthread_create(&th, NULL, ping_main, &p);
	sleep(1);
	atomic_store(&p.stop, true);
	pthread_join(th, NULL);
	if (p.rc) {
		free(p.ms);
		return 1;
	}
	summarize(f, p.ms, p.n, F_QUIET_P50);

	zkp_client *c = NULL;
	zkp_error err = { 0 };
	int rc = zkp_client_connect(&c, addr, MAX_FRAME, &err);
	if (rc) {
		fprintf(stderr, "zkpd-bench stall: %s\n", zkp_error_text(&err, rc));
		free(p.ms);
		return 1;
	}
	char rid[64];
	snprintf(rid, sizeof(rid), "stall-%d-%" PRIu64, (int)getpid(),
		 (uint64_t)bench_now_ns());
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__SubmitRequest sr = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	w.source_case = ZKPD__V1__WITNESS__SOURCE_RAW;
	w.raw.data = (uint8_t *)witness;
	w.raw.len = bytes;
	sr.circuit = (char *)circuit;
	sr.witness = &w;
	sr.request_id = rid;
	req.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
	req.submit = &sr;
	env.call_id = zkp_client_next_call_id(c);
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = &req;

	p.n = 0;
	atomic_store(&p.stop, false);
	pthread_create(&th, NULL, ping_main, &p);
	usleep(20000); /* the pinger is connected and pinging */
	double t0 = bench_now_ns();
	rc = zkp_client_send(c, &env, &err);
	Zkpd__V1__Envelope *in = NULL;
	if (!rc)
		rc = zkp_client_recv(c, &in, 600000, &err);
	f[F_SUBMIT_MS] = (bench_now_ns() - t0) / 1e6;
	atomic_store(&p.stop, true);
	pthread_join(th, NULL);
	int ret = 0;
	if (rc) {
		fprintf(stderr, "zkpd-bench stall: submit: %s\n", zkp_error_text(&err, rc));
		ret = 1;
	} else if (in->body_case != ZKPD__V1__ENVELOPE__BODY_RESPONSE) {
		fprintf(stderr, "zkpd-bench stall: submit refused: %s: %s\n",
			in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR ? in->error->code : "?",
			in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR ? in->error->message : "");
		ret = 1;
	}
	if (in)
		zkp_wire_free(in);
	zkp_client_close(c);
	if (p.rc)
		ret = 1;
	summarize(f, p.ms, p.n, F_P50);
	free(p.ms);
	return ret;
}

int bench_stall_main(int argc, char **argv)
{
	const char *addr = NULL, *circuit = NULL;
	double bytes_d = 256.0 * 1024 * 1024, interval = 1;
	int runs = 3;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help(stdout);
			return 0;
		} else if (!strcmp(a, "--connect") && has) {
			addr = argv[++i];
		} else if (!strcmp(a, "--circuit") && has) {
			circuit = argv[++i];
		} else if (!strcmp(a, "--bytes") && has) {
			bytes_d = strtod(argv[++i], NULL);
		} else if (!strcmp(a, "--runs") && has) {
			runs = atoi(argv[++i]);
		} else if (!strcmp(a, "--interval-ms") && has) {
			interval = strtod(argv[++i], NULL);
		} else {
			help(stderr);
			return 2;
		}
	}
	if (!addr || !circuit || runs < 1 || runs > MAX_RUNS || bytes_d < 32 ||
	    bytes_d > 4.0 * 1024 * 1024 * 1024 - 4096 || interval < 0) {
		help(stderr);
		return 2;
	}
	size_t bytes = (size_t)bytes_d / 32 * 32;
	uint8_t *witness = malloc(bytes);
	if (!witness) {
		fprintf(stderr, "zkpd-bench stall: no memory for %zu bytes\n", bytes);
		return 1;
	}
	/* values below 2^248: canonical field elements */
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (size_t i = 0; i < bytes; i += 8) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		memcpy(witness + i, &x, 8);
	}
	for (size_t i = 31; i < bytes; i += 32)
		witness[i] = 0;
	double f[MAX_RUNS][NF];
	int rc = 0;
	for (int r = 0; r < runs && !rc; r++)
		rc = one_run(addr, circuit, witness, bytes, interval, f[r]);
	free(witness);
	if (rc)
		return 1;
	json_begin_object(NULL);
	json_str("bench", "stall");
	json_num("bytes", (double)bytes);
	json_num("runs", runs);
	json_num("interval_ms", interval);
	json_begin_array("per_run");
	for (int r = 0; r < runs; r++) {
		json_begin_object(NULL);
		for (int k = 0; k < NF; k++)
			json_num(names[k], f[r][k]);
		json_end_object();
	}
	json_end_array();
	json_begin_object("median");
	for (int k = 0; k < NF; k++) {
		double v[MAX_RUNS];
		for (int r = 0; r < runs; r++)
			v[r] = f[r][k];
		json_num(names[k], bench_median(v, (size_t)runs));
	}
	json_end_object();
	json_end_object();
	json_done();
	return 0;
}
