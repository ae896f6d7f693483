/*
 * zkpd-bench load --connect ADDRESS [--connections N] [--status-calls M]
 *                 [--circuit NAME --witness FILE --proofs P --proof-clients K]
 *                 [--runs R]
 *
 * Load on a running zkpd, through its framed protocol (src/daemon/wire.h):
 *
 *   connections  N connections opened at once (default 1000), each sends
 *                Health; counts the answered ones, the time to open them
 *                all and to have them all answered, and each Health's
 *                round trip.
 *   status       M Status calls in total (default 20000) over those N
 *                connections, each keeping one call in flight, driven by
 *                one thread that poll()s every socket; each call's latency.
 *   proofs       with --circuit and --witness: K client threads (default 4)
 *                send P Prove calls in total (default 40) with the witness
 *                file's bytes (wtns when the file starts with "wtns", raw
 *                otherwise). Per proof: client latency, the JobResult's
 *                total_seconds, queue_seconds and the sum of its stages'
 *                seconds; overhead (protocol and scheduling) = latency -
 *                stages - queue, in seconds and as a fraction of stages.
 *
 * The daemon's RSS (Status memory.rss_bytes) is read before the phases,
 * after the connections phase (its connections still open) and after
 * every tenth of the proofs. Each phase runs R times (default 3 for status,
 * 1 for the others) and every figure printed is the median over the runs.
 * Exit status: 0, 1 when a proof did not end DONE or the daemon cannot be
 * reached, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "wire.h"

/* Health and Status answers are small; a JobResult is a proof and inputs. */
#define MAX_FRAME (64u << 20)
/* A phase with no answer for this long has stalled: its open calls fail. */
#define STALL_MS 60000
#define PROOF_TIMEOUT_MS (30 * 60 * 1000)
#define MAX_RUNS 100

static void help(FILE *f)
{
	fprintf(f, "usage: zkpd-bench load --connect ADDRESS [--connections N] "
		   "[--status-calls M]\n"
		   "       [--circuit NAME --witness FILE --proofs P --proof-clients K] "
		   "[--runs R]\n");
}

/* ---- figures ---- */

/* Nearest-rank percentile of sorted v[0..n). */
static double pct(const double *v, size_t n, double q)
{
	if (n == 0)
		return 0;
	size_t k = (size_t)ceil(q * (double)n);
	return v[k ? k - 1 : 0];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Every phase's figures of one run are doubles named by a table, so the
 * medians over runs are taken field by field. */
enum { F_COUNT, F_FAILURES, F_SECONDS, F_THROUGHPUT, F_P50, F_P90, F_P99, F_MAX, F_COMMON };
static const char *common_names[F_COMMON] = { "count", "failures", "seconds",
					      "throughput_per_s", "latency_p50_ms",
					      "latency_p90_ms", "latency_p99_ms",
					      "latency_max_ms" };

enum { C_OPEN_SECONDS = F_COMMON, C_CONNECT_P50, C_CONNECT_P99, C_CONNECT_MAX, C_N };
static const char *conn_names[C_N - F_COMMON] = { "open_seconds", "connect_p50_ms",
						  "connect_p99_ms", "connect_max_ms" };

enum { P_TOTAL_P50 = F_COMMON, P_QUEUE_P50, P_STAGES_P50, P_OVER_P50, P_OVER_P99,
       P_FRAC_P50, P_FRAC_P99, P_PROTO_P50, P_PROTO_P99, P_N };
static const char *proof_names[P_N - F_COMMON] = {
	"total_seconds_p50", "queue_seconds_p50", "stage_seconds_p50",
	"overhead_seconds_p50", "overhead_seconds_p99", "overhead_fraction_p50",
	"overhead_fraction_p99", "protocol_seconds_p50", "protocol_seconds_p99"
};

#define NF_MAX 16

/* Sorts ms[0..n) and fills the latency fields. */
static void latency_fields(double *f, double *ms, size_t n)
{
	qsort(ms, n, sizeof(*ms), cmp_double);
	f[F_P50] = pct(ms, n, 0.50);
	f[F_P90] = pct(ms, n, 0.90);
	f[F_P99] = pct(ms, n, 0.99);
	f[F_MAX] = n ? ms[n - 1] : 0;
}

static void print_phase(const char *name, double runs[][NF_MAX], int n_runs, int nf,
			const char *const *extra)
{
	double v[MAX_RUNS];
	json_begin_object(name);
	json_num("runs", n_runs);
	for (int k = 0; k < nf; k++) {
		for (int r = 0; r < n_runs; r++)
			v[r] = runs[r][k];
		json_num(k < F_COMMON ? common_names[k] : extra[k - F_COMMON],
			 bench_median(v, (size_t)n_runs));
	}
	json_end_object();
}

/* ---- calls ---- */

static int send_call(zkp_client *c, Zkpd__V1__Request *req, uint64_t *call_id, zkp_error *err)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = zkp_client_next_call_id(c);
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = req;
	*call_id = env.call_id;
	return zkp_client_send(c, &env, err);
}

static int send_simple(zkp_client *c, Zkpd__V1__Request__CallCase kind, uint64_t *call_id,
		       zkp_error *err)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__StatusRequest st = ZKPD__V1__STATUS_REQUEST__INIT;
	Zkpd__V1__HealthRequest ht = ZKPD__V1__HEALTH_REQUEST__INIT;
	req.call_case = kind;
	if (kind == ZKPD__V1__REQUEST__CALL_STATUS)
		req.status = &st;
	else
		req.health = &ht;
	return send_call(c, &req, call_id, err);
}

/* True when env is call_id's Response of the given kind. */
static bool answered(const Zkpd__V1__Envelope *env, uint64_t call_id,
		     Zkpd__V1__Response__CallCase kind)
{
	return env->call_id == call_id && env->body_case == ZKPD__V1__ENVELOPE__BODY_RESPONSE &&
	       env->response->call_case == kind;
}

static void report_unexpected(const char *what, const Zkpd__V1__Envelope *env)
{
	if (env->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR)
		fprintf(stderr, "load: %s: call %" PRIu64 ": %s: %s\n", what, env->call_id,
			env->error->code, env->error->message);
	else
		fprintf(stderr, "load: %s: unexpected envelope (call %" PRIu64 ", body %d)\n",
			what, env->call_id, (int)env->body_case);
}

/* The daemon's RSS in bytes from a Status call on c, 0 when it fails. */
static uint64_t daemon_rss(zkp_client *c)
{
	zkp_error err = { 0 };
	uint64_t id, rss = 0;
	Zkpd__V1__Envelope *in = NULL;
	int rc = send_simple(c, ZKPD__V1__REQUEST__CALL_STATUS, &id, &err);
	if (!rc)
		rc = zkp_client_recv(c, &in, STALL_MS, &err);
	if (rc) {
		fprintf(stderr, "load: status: %s\n", zkp_error_text(&err, rc));
		return 0;
	}
	if (answered(in, id, ZKPD__V1__RESPONSE__CALL_STATUS) && in->response->status->memory)
		rss = in->response->status->memory->rss_bytes;
	else
		report_unexpected("status", in);
	zkp_wire_free(in);
	return rss;
}

/* ---- the poll-driven phases ---- */

typedef struct {
	zkp_client *c;
	uint64_t call_id; /* the call in flight, 0 when none */
	double sent_ns;
} conn;

static void conn_drop(conn *k)
{
	zkp_client_close(k->c);
	k->c = NULL;
	k->call_id = 0;
}

static void close_all(conn *cs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cs[i].c)
			conn_drop(&cs[i]);
}

typedef struct {
	conn *cs;
	size_t n;
	Zkpd__V1__Request__CallCase kind;
	Zkpd__V1__Response__CallCase answer;
	uint64_t to_send; /* calls still to start */
	double *lat_ms;   /* one per answered call */
	size_t n_lat, failures;
	struct pollfd *pfd;
	size_t *pfd_conn;
} driver;

static void drive_send(driver *d, conn *k)
{
	zkp_error err = { 0 };
	if (!k->c || d->to_send == 0)
		return;
	d->to_send--;
	k->sent_ns = bench_now_ns();
	int rc = send_simple(k->c, d->kind, &k->call_id, &err);
	if (rc) {
		fprintf(stderr, "load: send: %s\n", zkp_error_text(&err, rc));
		d->failures++;
		conn_drop(k);
	}
}

/* Reads k's answer once poll says its socket is readable. Only one call is
 * in flight per connection, so a receive that finds no whole frame yet
 * (ZKP_ERR_TIMEOUT with timeout 0) leaves nothing buffered behind it
 * that poll would not announce. */
static void drive_recv(driver *d, conn *k, bool next)
{
	zkp_error err = { 0 };
	Zkpd__V1__Envelope *in = NULL;
	int rc = zkp_client_recv(k->c, &in, 0, &err);
	if (rc == ZKP_ERR_TIMEOUT)
		return;
	if (rc) {
		fprintf(stderr, "load: recv: %s\n", zkp_error_text(&err, rc));
		d->failures++;
		conn_drop(k);
		return;
	}
	double now = bench_now_ns();
	bool ok = answered(in, k->call_id, d->answer);
	if (ok && d->answer == ZKPD__V1__RESPONSE__CALL_HEALTH && !in->response->health->serving)
		ok = false;
	if (ok) {
		d->lat_ms[d->n_lat++] = (now - k->sent_ns) / 1e6;
	} else {
		report_unexpected(d->kind == ZKPD__V1__REQUEST__CALL_HEALTH ? "health" : "status",
				  in);
		d->failures++;
	}
	bool closing = in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR && in->call_id == 0;
	zkp_wire_free(in);
	k->call_id = 0;
	if (closing)
		conn_drop(k);
	else if (next)
		drive_send(d, k);
}

/* Starts one call on every connection (while calls remain), then answers
 * and restarts them (when next) until none is in flight. Returns the
 * seconds taken. */
static double drive(driver *d, bool next)
{
	double t0 = bench_now_ns();
	for (size_t i = 0; i < d->n; i++)
		drive_send(d, &d->cs[i]);
	for (;;) {
		size_t np = 0;
		for (size_t i = 0; i < d->n; i++) {
			if (!d->cs[i].c || !d->cs[i].call_id)
				continue;
			d->pfd[np] = (struct pollfd){ .fd = zkp_client_fd(d->cs[i].c),
						      .events = POLLIN };
			d->pfd_conn[np++] = i;
		}
		if (np == 0)
			break;
		int rc = poll(d->pfd, np, STALL_MS);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			if (rc == 0)
				fprintf(stderr, "load: %zu calls unanswered after %d ms\n", np,
					STALL_MS);
			else
				fprintf(stderr, "load: poll: %s\n", strerror(errno));
			for (size_t j = 0; j < np; j++) {
				d->failures++;
				conn_drop(&d->cs[d->pfd_conn[j]]);
			}
			break;
		}
		for (size_t j = 0; j < np; j++)
			if (d->pfd[j].revents)
				drive_recv(d, &d->cs[d->pfd_conn[j]], next);
	}
	return (bench_now_ns() - t0) / 1e9;
}

static void driver_init(driver *d, conn *cs, size_t n, uint64_t calls, bool status)
{
	memset(d, 0, sizeof(*d));
	d->cs = cs;
	d->n = n;
	d->kind = status ? ZKPD__V1__REQUEST__CALL_STATUS : ZKPD__V1__REQUEST__CALL_HEALTH;
	d->answer = status ? ZKPD__V1__RESPONSE__CALL_STATUS : ZKPD__V1__RESPONSE__CALL_HEALTH;
	d->to_send = calls;
	d->lat_ms = malloc((calls ? calls : 1) * sizeof(double));
	d->pfd = malloc((n ? n : 1) * sizeof(struct pollfd));
	d->pfd_conn = malloc((n ? n : 1) * sizeof(size_t));
}

static void driver_release(driver *d)
{
	free(d->lat_ms);
	free(d->pfd);
	free(d->pfd_conn);
}

/* Phase "connections": opens n connections into cs, sends Health on each. */
static int phase_connections(double *f, conn *cs, size_t n, const char *addr)
{
	driver d;
	double *connect_ms = malloc((n ? n : 1) * sizeof(double));
	size_t n_conn = 0, refused = 0;
	driver_init(&d, cs, n, n, false);
	if (!connect_ms || !d.lat_ms || !d.pfd || !d.pfd_conn) {
		free(connect_ms);
		driver_release(&d);
		fprintf(stderr, "load: out of memory\n");
		return -1;
	}
	double t0 = bench_now_ns();
	for (size_t i = 0; i < n; i++) {
		zkp_error err = { 0 };
		double c0 = bench_now_ns();
		int rc = zkp_client_connect(&cs[i].c, addr, MAX_FRAME, &err);
		if (rc) {
			if (refused++ == 0)
				fprintf(stderr, "load: connection %zu: %s\n", i,
					zkp_error_text(&err, rc));
			cs[i].c = NULL;
			continue;
		}
		cs[i].call_id = 0;
		connect_ms[n_conn++] = (bench_now_ns() - c0) / 1e6;
	}
	double open_s = (bench_now_ns() - t0) / 1e9;
	drive(&d, false);
	double total_s = (bench_now_ns() - t0) / 1e9;

	f[F_COUNT] = (double)d.n_lat;
	f[F_FAILURES] = (double)(d.failures + refused);
	f[F_SECONDS] = total_s;
	f[F_THROUGHPUT] = total_s > 0 ? (double)d.n_lat / total_s : 0;
	latency_fields(f, d.lat_ms, d.n_lat);
	f[C_OPEN_SECONDS] = open_s;
	qsort(connect_ms, n_conn, sizeof(double), cmp_double);
	f[C_CONNECT_P50] = pct(connect_ms, n_conn, 0.50);
	f[C_CONNECT_P99] = pct(connect_ms, n_conn, 0.99);
	f[C_CONNECT_MAX] = n_conn ? connect_ms[n_conn - 1] : 0;
	free(connect_ms);
	driver_release(&d);
	return 0;
}

/* Phase "status": m Status calls over the open connections of cs. */
static int phase_status(double *f, conn *cs, size_t n, uint64_t m)
{
	driver d;
	driver_init(&d, cs, n, m, true);
	if (!d.lat_ms || !d.pfd || !d.pfd_conn) {
		driver_release(&d);
		fprintf(stderr, "load: out of memory\n");
		return -1;
	}
	double s = drive(&d, true);
	/* calls never started because every connection was lost */
	d.failures += (size_t)d.to_send;
	f[F_COUNT] = (double)d.n_lat;
	f[F_FAILURES] = (double)d.failures;
	f[F_SECONDS] = s;
	f[F_THROUGHPUT] = s > 0 ? (double)d.n_lat / s : 0;
	latency_fields(f, d.lat_ms, d.n_lat);
	driver_release(&d);
	return 0;
}

/* ---- the proofs phase ---- */

typedef struct {
	const char *addr, *circuit;
	const uint8_t *wit;
	size_t wit_len;
	bool wtns;
	uint64_t proofs;
	atomic_uint_fast64_t next, done;
	pthread_mutex_t lock;
	size_t failures;
	double *lat_ms, *total_s, *queue_s, *stages_s; /* per proof, by index */
	bool *ok;
	/* [d]: the reading taken when the proofs done first reached d tenths
	 * of the run, and that count (0 when no reading ended there) */
	uint64_t rss[11], rss_at[11];
} proof_run;

static void prove_one(proof_run *p, zkp_client *c, uint64_t i)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__ProveRequest pr = ZKPD__V1__PROVE_REQUEST__INIT;
	Zkpd__V1__SubmitRequest sr = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	Zkpd__V1__Envelope *in = NULL;
	zkp_error err = { 0 };
	uint64_t id;

	if (p->wtns) {
		w.source_case = ZKPD__V1__WITNESS__SOURCE_WTNS;
		w.wtns.data = (uint8_t *)p->wit;
		w.wtns.len = p->wit_len;
	} else {
		w.source_case = ZKPD__V1__WITNESS__SOURCE_RAW;
		w.raw.data = (uint8_t *)p->wit;
		w.raw.len = p->wit_len;
	}
	sr.circuit = (char *)p->circuit;
	sr.witness = &w;
	pr.submit = &sr;
	req.call_case = ZKPD__V1__REQUEST__CALL_PROVE;
	req.prove = &pr;

	double t0 = bench_now_ns();
	int rc = send_call(c, &req, &id, &err);
	while (!rc) {
		rc = zkp_client_recv(c, &in, PROOF_TIMEOUT_MS, &err);
		if (rc || in->body_case != ZKPD__V1__ENVELOPE__BODY_PROGRESS)
			break;
		zkp_wire_free(in);
		in = NULL;
	}
	double t1 = bench_now_ns();
	if (rc) {
		fprintf(stderr, "load: proof %" PRIu64 ": %s\n", i, zkp_error_text(&err, rc));
		return;
	}
	if (!answered(in, id, ZKPD__V1__RESPONSE__CALL_RESULT)) {
		report_unexpected("prove", in);
	} else {
		const Zkpd__V1__JobResult *r = in->response->result;
		if (r->state != ZKPD__V1__JOB_STATE__JOB_STATE_DONE) {
			fprintf(stderr, "load: proof %" PRIu64 ": job %" PRIu64 " state %d: %s %s\n",
				i, r->job_id, (int)r->state, r->error_code, r->error_message);
		} else {
			double stages = 0;
			for (size_t k = 0; k < r->n_stages; k++)
				stages += r->stages[k]->seconds;
			p->lat_ms[i] = (t1 - t0) / 1e6;
			p->total_s[i] = r->total_seconds;
			p->queue_s[i] = r->queue_seconds;
			p->stages_s[i] = stages;
			p->ok[i] = true;
		}
	}
	zkp_wire_free(in);
}

static void *prove_thread(void *arg)
{
	proof_run *p = arg;
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	int rc = zkp_client_connect(&c, p->addr, MAX_FRAME, &err);
	if (rc)
		fprintf(stderr, "load: proof client: %s\n", zkp_error_text(&err, rc));
	for (;;) {
		uint64_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->proofs)
			break;
		if (c)
			prove_one(p, c, i);
		uint64_t done = atomic_fetch_add(&p->done, 1) + 1;
		unsigned from = (unsigned)((done - 1) * 10 / p->proofs);
		unsigned to = (unsigned)(done * 10 / p->proofs);
		if (c && to > from) {
			uint64_t rss = daemon_rss(c);
			pthread_mutex_lock(&p->lock);
			p->rss[to] = rss;
			p->rss_at[to] = rss ? done : 0;
			pthread_mutex_unlock(&p->lock);
		}
	}
	zkp_client_close(c);
	return NULL;
}

/* The median of v[i] over the proofs i that ended DONE (tmp: n doubles). */
static double median_ok(double *tmp, const double *v, const bool *ok, uint64_t n)
{
	size_t m = 0;
	for (uint64_t i = 0; i < n; i++)
		if (ok[i])
			tmp[m++] = v[i];
	return m ? bench_median(tmp, m) : 0;
}

static int phase_proofs(double *f, proof_run *p, unsigned clients)
{
	uint64_t n = p->proofs;
	pthread_t *th = calloc(clients, sizeof(pthread_t));
	double *lat = malloc(n * sizeof(double)), *over = malloc(n * sizeof(double));
	double *frac = malloc(n * sizeof(double)), *tmp = malloc(n * sizeof(double));
	int rc = -1;
	atomic_store(&p->next, 0);
	atomic_store(&p->done, 0);
	memset(p->rss, 0, sizeof(p->rss));
	memset(p->rss_at, 0, sizeof(p->rss_at));
	memset(p->ok, 0, n * sizeof(bool));
	if (!th || !lat || !over || !frac || !tmp) {
		fprintf(stderr, "load: out of memory\n");
		goto out;
	}
	double t0 = bench_now_ns();
	unsigned started = 0;
	for (; started < clients; started++)
		if (pthread_create(&th[started], NULL, prove_thread, p)) {
			fprintf(stderr, "load: cannot start client thread %u\n", started);
			break;
		}
	if (started == 0)
		goto out;
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	double s = (bench_now_ns() - t0) / 1e9;

	size_t m = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (!p->ok[i])
			continue;
		lat[m] = p->lat_ms[i];
		over[m] = p->lat_ms[i] / 1e3 - p->stages_s[i] - p->queue_s[i];
		frac[m] = p->stages_s[i] > 0 ? over[m] / p->stages_s[i] : 0;
		m++;
	}
	f[F_COUNT] = (double)m;
	f[F_FAILURES] = (double)(n - m);
	f[F_SECONDS] = s;
	f[F_THROUGHPUT] = s > 0 ? (double)m / s : 0;
	latency_fields(f, lat, m);
	f[P_TOTAL_P50] = median_ok(tmp, p->total_s, p->ok, n);
	f[P_QUEUE_P50] = median_ok(tmp, p->queue_s, p->ok, n);
	f[P_STAGES_P50] = median_ok(tmp, p->stages_s, p->ok, n);
	qsort(over, m, sizeof(double), cmp_double);
	qsort(frac, m, sizeof(double), cmp_double);
	f[P_OVER_P50] = pct(over, m, 0.50);
	f[P_OVER_P99] = pct(over, m, 0.99);
	f[P_FRAC_P50] = pct(frac, m, 0.50);
	f[P_FRAC_P99] = pct(frac, m, 0.99);
	size_t k = 0;
	for (uint64_t i = 0; i < n; i++)
		if (p->ok[i])
			over[k++] = p->lat_ms[i] / 1e3 - p->total_s[i];
	qsort(over, m, sizeof(double), cmp_double);
	f[P_PROTO_P50] = pct(over, m, 0.50);
	f[P_PROTO_P99] = pct(over, m, 0.99);
	rc = 0;
out:
	free(th);
	free(lat);
	free(over);
	free(frac);
	free(tmp);
	return rc;
}

/* ---- main ---- */

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "load: %s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = -1;
	long n;
	if (fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) {
		fprintf(stderr, "load: %s: cannot size the file\n", path);
		goto out;
	}
	*buf = malloc(n ? (size_t)n : 1);
	if (!*buf || fread(*buf, 1, (size_t)n, fp) != (size_t)n) {
		fprintf(stderr, "load: %s: cannot read %ld bytes\n", path, n);
		goto out;
	}
	*len = (size_t)n;
	rc = 0;
out:
	fclose(fp);
	return rc;
}

static double mib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0);
}

int bench_load_main(int argc, char **argv)
{
	const char *addr = NULL, *circuit = NULL, *wit_path = NULL;
	long connections = 1000, proofs = 40, clients = 4, runs = 0;
	long long status_calls = 20000;
	for (int i = 1; i < argc; i++) {
		bool more = i + 1 < argc;
		if (!strcmp(argv[i], "--connect") && more)
			addr = argv[++i];
		else if (!strcmp(argv[i], "--connections") && more)
			connections = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--status-calls") && more)
			status_calls = strtoll(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--circuit") && more)
			circuit = argv[++i];
		else if (!strcmp(argv[i], "--witness") && more)
			wit_path = argv[++i];
		else if (!strcmp(argv[i], "--proofs") && more)
			proofs = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--proof-clients") && more)
			clients = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--runs") && more)
			runs = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return 0;
		} else {
			help(stderr);
			return 2;
		}
	}
	if (!addr || connections < 1 || connections > 1000000 || status_calls < 0 ||
	    proofs < 1 || clients < 1 || clients > 1024 || runs < 0 || runs > MAX_RUNS ||
	    !circuit != !wit_path) {
		help(stderr);
		return 2;
	}
	int runs_conn = runs ? (int)runs : 1, runs_status = runs ? (int)runs : 3;
	int runs_proofs = circuit ? (runs ? (int)runs : 1) : 0;

	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			fprintf(stderr, "load: cannot raise the open-file limit: %s\n",
				strerror(errno));
	}
	getrlimit(RLIMIT_NOFILE, &rl);

	size_t n = (size_t)connections;
	conn *cs = calloc(n, sizeof(conn));
	uint8_t *wit = NULL;
	size_t wit_len = 0;
	zkp_client *mon = NULL;
	zkp_error err = { 0 };
	proof_run pr;
	double (*f_conn)[NF_MAX] = calloc(MAX_RUNS, sizeof(*f_conn));
	double (*f_status)[NF_MAX] = calloc(MAX_RUNS, sizeof(*f_status));
	double (*f_proofs)[NF_MAX] = calloc(MAX_RUNS, sizeof(*f_proofs));
	uint64_t rss_before, rss_conn;
	uint64_t (*rss_proofs)[11] = calloc(MAX_RUNS, sizeof(*rss_proofs));
	uint64_t (*rss_at)[11] = calloc(MAX_RUNS, sizeof(*rss_at));
	int ret = 1;

	memset(&pr, 0, sizeof(pr));
	pthread_mutex_init(&pr.lock, NULL);
	if (!cs || !f_conn || !f_status || !f_proofs || !rss_proofs || !rss_at) {
		fprintf(stderr, "load: out of memory\n");
		goto out;
	}
	if (circuit) {
		if (read_file(wit_path, &wit, &wit_len))
			goto out;
		pr.addr = addr;
		pr.circuit = circuit;
		pr.wit = wit;
		pr.wit_len = wit_len;
		pr.wtns = wit_len >= 4 && !memcmp(wit, "wtns", 4);
		pr.proofs = (uint64_t)proofs;
		pr.lat_ms = calloc(pr.proofs, sizeof(double));
		pr.total_s = calloc(pr.proofs, sizeof(double));
		pr.queue_s = calloc(pr.proofs, sizeof(double));
		pr.stages_s = calloc(pr.proofs, sizeof(double));
		pr.ok = calloc(pr.proofs, sizeof(bool));
		if (!pr.lat_ms || !pr.total_s || !pr.queue_s || !pr.stages_s || !pr.ok) {
			fprintf(stderr, "load: out of memory\n");
			goto out;
		}
	}
	int rc = zkp_client_connect(&mon, addr, MAX_FRAME, &err);
	if (rc) {
		fprintf(stderr, "load: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	rss_before = daemon_rss(mon);

	for (int r = 0; r < runs_conn; r++) {
		close_all(cs, n);
		if (phase_connections(f_conn[r], cs, n, addr))
			goto out;
	}
	rss_conn = daemon_rss(mon);
	for (int r = 0; r < runs_status; r++)
		if (phase_status(f_status[r], cs, n, (uint64_t)status_calls))
			goto out;
	close_all(cs, n);
	for (int r = 0; r < runs_proofs; r++) {
		if (phase_proofs(f_proofs[r], &pr, (unsigned)clients))
			goto out;
		memcpy(rss_proofs[r], pr.rss, sizeof(pr.rss));
		memcpy(rss_at[r], pr.rss_at, sizeof(pr.rss_at));
	}

	json_begin_object(NULL);
	json_str("bench", "load");
	json_begin_object("inputs");
	json_str("connect", addr);
	json_num("connections", (double)connections);
	json_num("status_calls", (double)status_calls);
	json_num("open_file_limit", (double)rl.rlim_cur);
	if (circuit) {
		json_str("circuit", circuit);
		json_str("witness", wit_path);
		json_str("witness_format", pr.wtns ? "wtns" : "raw");
		json_num("witness_bytes", (double)wit_len);
		json_num("proofs", (double)proofs);
		json_num("proof_clients", (double)clients);
	}
	json_end_object();
	print_phase("connections", f_conn, runs_conn, C_N, conn_names);
	print_phase("status", f_status, runs_status, F_COMMON, NULL);
	if (circuit)
		print_phase("proofs", f_proofs, runs_proofs, P_N, proof_names);

	/* Keys name the point of each reading; after_P_proofs counts the
	 * proofs of every run so far. */
	json_begin_object("rss_mib");
	json_num("before", mib(rss_before));
	json_num("after_connections", mib(rss_conn));
	uint64_t first = 0, last = 0;
	for (int r = 0; r < runs_proofs; r++)
		for (unsigned d = 1; d <= 10; d++) {
			char key[48];
			if (!rss_at[r][d])
				continue;
			uint64_t done = (uint64_t)r * pr.proofs + rss_at[r][d];
			snprintf(key, sizeof(key), "after_%" PRIu64 "_proofs", done);
			json_num(key, mib(rss_proofs[r][d]));
			if (!first)
				first = rss_proofs[r][d];
			last = rss_proofs[r][d];
		}
	if (first) {
		json_num("proof_growth_mib", mib(last) - mib(first));
		json_num("proof_growth_fraction", ((double)last - (double)first) / (double)first);
	}
	json_end_object();
	json_end_object();
	json_done();

	ret = 0;
	for (int r = 0; r < runs_proofs; r++)
		if (f_proofs[r][F_FAILURES] > 0)
			ret = 1;
out:
	zkp_client_close(mon);
	if (cs)
		close_all(cs, n);
	free(cs);
	free(wit);
	free(pr.lat_ms);
	free(pr.total_s);
	free(pr.queue_s);
	free(pr.stages_s);
	free(pr.ok);
	pthread_mutex_destroy(&pr.lock);
	free(f_conn);
	free(f_status);
	free(f_proofs);
	free(rss_proofs);
	free(rss_at);
	return ret;
}
