/*
 * zkpd-bench load --connect ADDRESS [--connections N] [--status-calls M]
 *                 [--circuit NAME --witness FILE --proofs P --proof-clients K]
 *                 [--mixed --vk FILE [--seed S]] [--runs R]
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
 *   --mixed      the proofs phase as a soak: proof i has the request_id
 *                "soak-<pid>-<run>-<i>" and a priority cycling critical,
 *                high, normal, low (shifted by one every ten proofs, so
 *                cancels fall on all four). Every tenth (i mod 10 = 9) is sent
 *                as Submit, cancelled after a random delay of 0-200 ms
 *                (from --seed, printed) and awaited; the others are Prove
 *                calls. The phase runs a tenth of the proofs at a time and
 *                then waits until Status lists no queued or running job.
 *                Checked afterwards: every request_id has exactly one final
 *                result naming it, each under its own job id (lost: none or
 *                not final; duplicated: two results, a job id shared by two
 *                request_ids, or a result naming another request_id); each
 *                DONE proof verifies against --vk with the result's public
 *                inputs; a cancelled one ends CANCELLED, or DONE when the
 *                cancel came too late; a Submit of 10 random DONE
 *                request_ids attaches to the same job; and the Status
 *                counters jobs_done + jobs_cancelled + jobs_failed grew by
 *                the number of distinct jobs.
 *
 * The daemon's RSS (Status memory.rss_bytes) is read before the phases,
 * after the connections phase (its connections still open) and after
 * every tenth of the proofs (with --mixed, at the quiet moment that follows
 * each tenth, so the readings are taken at the same point of load). Each
 * phase runs R times (default 3 for status, 1 for the others) and every
 * figure printed is the median over the runs; --mixed counts are summed.
 * Exit status: 0, 1 when a proof did not end DONE or the daemon cannot be
 * reached (with --mixed: a result lost or duplicated, a proof that does not
 * verify, a failed job, a failed attach check or counters that disagree),
 * 2 usage.
 */
#include <errno.h>
#include <limits.h>
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
#include <time.h>
#include <unistd.h>

#include "zkpd/ff.h"
#include "zkpd/groth16.h"
#include "zkpd/groth16_io.h"

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
		   "       [--circuit NAME --witness FILE [--witness-by-path] --proofs P "
		   "--proof-clients K]\n"
		   "       [--mixed --vk FILE [--seed S]] [--runs R]\n"
		   "  --witness-by-path  send FILE's absolute path (it must lie in the daemon's\n"
		   "                     server.witness_dir) instead of its bytes\n");
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

/* Sends req on c and returns in *in its answer of the given kind, after
 * any Progress events. Only one call is in flight on c. Returns 0, or -1
 * (reported; *in NULL) on a lost connection or another answer. */
static int call(zkp_client *c, Zkpd__V1__Request *req, Zkpd__V1__Response__CallCase kind,
		int timeout_ms, const char *what, Zkpd__V1__Envelope **in)
{
	zkp_error err = { 0 };
	uint64_t id;
	*in = NULL;
	int rc = send_call(c, req, &id, &err);
	while (!rc) {
		rc = zkp_client_recv(c, in, timeout_ms, &err);
		if (rc || (*in)->body_case != ZKPD__V1__ENVELOPE__BODY_PROGRESS)
			break;
		zkp_wire_free(*in);
		*in = NULL;
	}
	if (rc) {
		fprintf(stderr, "load: %s: %s\n", what, zkp_error_text(&err, rc));
		return -1;
	}
	if (!answered(*in, id, kind)) {
		report_unexpected(what, *in);
		zkp_wire_free(*in);
		*in = NULL;
		return -1;
	}
	return 0;
}

/* A Status call on c: the envelope (the caller frees it), NULL on failure. */
static Zkpd__V1__Envelope *daemon_status(zkp_client *c)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__StatusRequest st = ZKPD__V1__STATUS_REQUEST__INIT;
	Zkpd__V1__Envelope *in;
	req.call_case = ZKPD__V1__REQUEST__CALL_STATUS;
	req.status = &st;
	return call(c, &req, ZKPD__V1__RESPONSE__CALL_STATUS, STALL_MS, "status", &in) ? NULL
										      : in;
}

/* The daemon's RSS in bytes from a Status call on c, 0 when it fails. */
static uint64_t daemon_rss(zkp_client *c)
{
	uint64_t rss = 0;
	Zkpd__V1__Envelope *in = daemon_status(c);
	if (in && in->response->status->memory)
		rss = in->response->status->memory->rss_bytes;
	zkp_wire_free(in);
	return rss;
}

/* True when s lists no queued or running job and every pipeline is idle. */
static bool status_quiet(const Zkpd__V1__StatusResponse *s)
{
	if (s->n_jobs)
		return false;
	for (size_t i = 0; i < s->n_queues; i++)
		if (s->queues[i]->queued)
			return false;
	for (size_t i = 0; i < s->n_pipelines; i++) {
		const Zkpd__V1__PipelineStatus *p = s->pipelines[i];
		if (p->cpu_job || p->device_job || p->finalize_job || p->depth_used)
			return false;
	}
	return true;
}

/* Polls Status on c until the daemon is quiet (status_quiet), at most
 * STALL_MS; then *rss and the job counters (done + cancelled + failed) of
 * that last Status. Returns 0, or -1 when the daemon never got quiet or a
 * call failed (reported). */
static int wait_quiet(zkp_client *c, uint64_t *rss, uint64_t *ended)
{
	double t0 = bench_now_ns();
	for (;;) {
		Zkpd__V1__Envelope *in = daemon_status(c);
		if (!in)
			return -1;
		const Zkpd__V1__StatusResponse *s = in->response->status;
		bool quiet = status_quiet(s);
		if (quiet) {
			*rss = s->memory ? s->memory->rss_bytes : 0;
			*ended = s->jobs_done + s->jobs_cancelled + s->jobs_failed;
		}
		zkp_wire_free(in);
		if (quiet)
			return 0;
		if ((bench_now_ns() - t0) / 1e6 > STALL_MS) {
			fprintf(stderr, "load: the daemon still has jobs after %d ms\n", STALL_MS);
			return -1;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
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

/* --mixed: the priorities in their cycle, as named in the JSON. Proof i has
 * MIXED_PRIO(i): the cycle shifts by one every ten proofs, so the cancelled
 * ones (i mod 10 = 9) fall on every priority in turn. */
static const Zkpd__V1__Priority mixed_prio[4] = {
	ZKPD__V1__PRIORITY__PRIORITY_CRITICAL, ZKPD__V1__PRIORITY__PRIORITY_HIGH,
	ZKPD__V1__PRIORITY__PRIORITY_NORMAL, ZKPD__V1__PRIORITY__PRIORITY_LOW
};
static const char *const mixed_prio_name[4] = { "critical", "high", "normal", "low" };
#define MIXED_PRIO(i) (((i) + (i) / 10) % 4)
#define MIXED_CANCEL(i) ((i) % 10 == 9)
#define MIXED_ATTACH_CHECKS 10
#define MIXED_CANCEL_MAX_MS 200

/* --mixed checks, summed over runs. */
typedef struct {
	uint64_t prio[4][4]; /* [priority][done, cancelled, failed, other] */
	uint64_t done, cancelled, failed, other;
	uint64_t cancels_sent, cancel_done_late, cancelled_unasked;
	uint64_t lost, duplicated, verified, unverified;
	uint64_t attach_checks, attach_ok;
	uint64_t distinct_jobs, counted_jobs; /* ids seen; Status counters' growth */
} mixed_stats;

typedef struct {
	const char *addr, *circuit;
	const uint8_t *wit;
	size_t wit_len;
	bool wtns;
	const char *wit_path; /* non-NULL: the witness travels as this path */
	uint64_t proofs;
	atomic_uint_fast64_t next, done;
	uint64_t limit; /* proofs below it may start */
	pthread_mutex_t lock;
	size_t failures;
	double *lat_ms, *total_s, *queue_s, *stages_s; /* per proof, by index */
	bool *ok;
	/* [d]: the reading taken when the proofs done first reached d tenths
	 * of the run, and that count (0 when no reading ended there) */
	uint64_t rss[11], rss_at[11];
	/* --mixed */
	bool mixed;
	const zkp_groth16_pvk *pvk;
	uint64_t seed;
	int run;
	uint64_t *job_id;   /* per proof: the job of its final result, 0 none */
	uint8_t *state;     /* per proof: that result's JobState */
	uint8_t *n_final;   /* per proof: final results received */
	bool *verified;     /* per proof: DONE and the proof verifies */
	bool *mismatch;     /* per proof: a result or Submit for another request_id */
} proof_run;

static void request_id(char *buf, size_t len, const proof_run *p, uint64_t i)
{
	snprintf(buf, len, "soak-%ld-%d-%" PRIu64, (long)getpid(), p->run, i);
}

/* splitmix64: the cancel delay of proof i, from the seed. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void fill_submit(const proof_run *p, Zkpd__V1__SubmitRequest *sr, Zkpd__V1__Witness *w,
			char *rid, size_t rid_len, uint64_t i)
{
	if (p->wit_path) {
		w->source_case = ZKPD__V1__WITNESS__SOURCE_PATH;
		w->path = (char *)p->wit_path;
	} else if (p->wtns) {
		w->source_case = ZKPD__V1__WITNESS__SOURCE_WTNS;
		w->wtns.data = (uint8_t *)p->wit;
		w->wtns.len = p->wit_len;
	} else {
		w->source_case = ZKPD__V1__WITNESS__SOURCE_RAW;
		w->raw.data = (uint8_t *)p->wit;
		w->raw.len = p->wit_len;
	}
	sr->circuit = (char *)p->circuit;
	sr->witness = w;
	if (p->mixed) {
		request_id(rid, rid_len, p, i);
		sr->request_id = rid;
		sr->priority = mixed_prio[MIXED_PRIO(i)];
	}
}

/* Whether r's 192-byte proof verifies against p->pvk with r's inputs. */
static bool verify_result(const proof_run *p, const Zkpd__V1__JobResult *r, uint64_t i)
{
	zkp_error err = { 0 };
	zkp_groth16_proof proof;
	zkp_fr *inputs = calloc(r->n_public_inputs ? r->n_public_inputs : 1, sizeof(zkp_fr));
	bool ok = false;
	if (!inputs || r->proof.len != ZKP_GROTH16_PROOF_BYTES ||
	    zkp_groth16_proof_from_bytes(&proof, r->proof.data, &err))
		goto out;
	for (size_t k = 0; k < r->n_public_inputs; k++)
		if (r->public_inputs[k].len != ZKP_FR_BYTES ||
		    zkp_fr_from_le(&inputs[k], r->public_inputs[k].data))
			goto out;
	ok = zkp_groth16_verify(p->pvk, inputs, r->n_public_inputs, &proof) == 0;
out:
	if (!ok)
		fprintf(stderr, "load: proof %" PRIu64 ": job %" PRIu64 ": the proof does not "
				"verify\n",
			i, r->job_id);
	free(inputs);
	return ok;
}

/* --mixed: proof i's final result r. */
static void record_final(proof_run *p, uint64_t i, const Zkpd__V1__JobResult *r, const char *rid)
{
	p->n_final[i]++;
	p->job_id[i] = r->job_id;
	p->state[i] = (uint8_t)r->state;
	if (strcmp(r->request_id, rid)) {
		fprintf(stderr, "load: proof %" PRIu64 ": result of job %" PRIu64
				" names request_id '%s', not '%s'\n",
			i, r->job_id, r->request_id, rid);
		p->mismatch[i] = true;
	}
	if (r->state == ZKPD__V1__JOB_STATE__JOB_STATE_DONE)
		p->verified[i] = verify_result(p, r, i);
}

/* --mixed, a tenth of the proofs: Submit, Cancel after a random delay,
 * Await. Returns the Await's envelope, NULL when a call failed. */
static Zkpd__V1__Envelope *submit_cancel(proof_run *p, zkp_client *c, Zkpd__V1__SubmitRequest *sr,
					 uint64_t i)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__CancelRequest cr = ZKPD__V1__CANCEL_REQUEST__INIT;
	Zkpd__V1__AwaitRequest ar = ZKPD__V1__AWAIT_REQUEST__INIT;
	Zkpd__V1__Envelope *in;
	req.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
	req.submit = sr;
	if (call(c, &req, ZKPD__V1__RESPONSE__CALL_SUBMIT, STALL_MS, "submit", &in))
		return NULL;
	uint64_t job = in->response->submit->job_id;
	if (in->response->submit->attached) {
		fprintf(stderr, "load: proof %" PRIu64 ": a new request_id attached to job %" PRIu64
				"\n",
			i, job);
		p->mismatch[i] = true;
	}
	zkp_wire_free(in);

	long ms = (long)(mix64(p->seed ^ ((uint64_t)p->run << 32) ^ i) % (MIXED_CANCEL_MAX_MS + 1));
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 }, NULL);
	cr.job_id = job;
	req.call_case = ZKPD__V1__REQUEST__CALL_CANCEL;
	req.cancel = &cr;
	if (call(c, &req, ZKPD__V1__RESPONSE__CALL_CANCEL, STALL_MS, "cancel", &in))
		return NULL;
	zkp_wire_free(in);

	ar.job_id = job;
	req.call_case = ZKPD__V1__REQUEST__CALL_AWAIT;
	req.await = &ar;
	if (call(c, &req, ZKPD__V1__RESPONSE__CALL_RESULT, PROOF_TIMEOUT_MS, "await", &in))
		return NULL;
	return in;
}

static void prove_one(proof_run *p, zkp_client *c, uint64_t i)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__ProveRequest pr = ZKPD__V1__PROVE_REQUEST__INIT;
	Zkpd__V1__SubmitRequest sr = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	Zkpd__V1__Envelope *in = NULL;
	char rid[64] = "";
	bool cancel = p->mixed && MIXED_CANCEL(i);

	fill_submit(p, &sr, &w, rid, sizeof(rid), i);
	pr.submit = &sr;
	req.call_case = ZKPD__V1__REQUEST__CALL_PROVE;
	req.prove = &pr;

	double t0 = bench_now_ns();
	if (cancel)
		in = submit_cancel(p, c, &sr, i);
	else if (call(c, &req, ZKPD__V1__RESPONSE__CALL_RESULT, PROOF_TIMEOUT_MS, "prove", &in))
		in = NULL;
	double t1 = bench_now_ns();
	if (!in)
		return;
	const Zkpd__V1__JobResult *r = in->response->result;
	if (p->mixed)
		record_final(p, i, r, rid);
	if (cancel) {
		/* not a proof of the latency figures */
	} else if (r->state != ZKPD__V1__JOB_STATE__JOB_STATE_DONE) {
		fprintf(stderr, "load: proof %" PRIu64 ": job %" PRIu64 " state %d: %s %s\n", i,
			r->job_id, (int)r->state, r->error_code, r->error_message);
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
		if (i >= p->limit)
			break;
		if (c)
			prove_one(p, c, i);
		uint64_t done = atomic_fetch_add(&p->done, 1) + 1;
		unsigned from = (unsigned)((done - 1) * 10 / p->proofs);
		unsigned to = (unsigned)(done * 10 / p->proofs);
		if (c && to > from && !p->mixed) {
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

/* Runs the proofs below p->limit on `clients` threads. Returns the threads
 * started. */
static unsigned run_clients(proof_run *p, pthread_t *th, unsigned clients)
{
	unsigned started = 0;
	for (; started < clients; started++)
		if (pthread_create(&th[started], NULL, prove_thread, p)) {
			fprintf(stderr, "load: cannot start client thread %u\n", started);
			break;
		}
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	/* indices handed out past the limit were not run */
	atomic_store(&p->next, p->limit);
	return started;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* --mixed: a Submit of DONE proof i's request_id again must attach to its
 * job. */
static bool attach_check(proof_run *p, zkp_client *c, uint64_t i)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__SubmitRequest sr = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	Zkpd__V1__Envelope *in;
	char rid[64];
	fill_submit(p, &sr, &w, rid, sizeof(rid), i);
	req.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
	req.submit = &sr;
	if (call(c, &req, ZKPD__V1__RESPONSE__CALL_SUBMIT, STALL_MS, "resubmit", &in))
		return false;
	const Zkpd__V1__SubmitResponse *r = in->response->submit;
	bool ok = r->attached && r->job_id == p->job_id[i];
	if (!ok)
		fprintf(stderr, "load: resubmit of '%s': job %" PRIu64 " attached %d, expected "
				"job %" PRIu64 " attached\n",
			rid, r->job_id, (int)r->attached, p->job_id[i]);
	zkp_wire_free(in);
	return ok;
}

/* --mixed: the checks after a run, added to *ms. mon: a connection of its
 * own; ended0: the Status counters before the run. */
static int mixed_check(proof_run *p, zkp_client *mon, uint64_t ended0, mixed_stats *ms)
{
	uint64_t n = p->proofs, n_ids = 0, n_fin = 0, rss, ended;
	uint64_t *ids = malloc(n * sizeof(uint64_t)), *fin = malloc(n * sizeof(uint64_t));
	if (!ids || !fin) {
		free(ids);
		free(fin);
		fprintf(stderr, "load: out of memory\n");
		return -1;
	}
	for (uint64_t i = 0; i < n; i++) {
		unsigned k;
		switch (p->state[i]) {
		case ZKPD__V1__JOB_STATE__JOB_STATE_DONE:
			k = 0;
			ms->done++;
			if (MIXED_CANCEL(i))
				ms->cancel_done_late++;
			if (p->verified[i])
				ms->verified++;
			else
				ms->unverified++;
			break;
		case ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED:
			k = 1;
			ms->cancelled++;
			break;
		case ZKPD__V1__JOB_STATE__JOB_STATE_FAILED:
			k = 2;
			ms->failed++;
			break;
		default:
			k = 3;
			ms->other++;
		}
		ms->prio[MIXED_PRIO(i)][k]++;
		if (MIXED_CANCEL(i))
			ms->cancels_sent++;
		if (p->n_final[i] == 0 || k == 3)
			ms->lost++;
		if (p->n_final[i] > 1 || p->mismatch[i])
			ms->duplicated++;
		/* a CANCELLED Prove was not cancelled by this bench */
		if (k == 1 && !MIXED_CANCEL(i))
			ms->cancelled_unasked++;
		if (p->job_id[i]) {
			ids[n_ids++] = p->job_id[i];
			/* Only a DONE job answers its request_id again: a
			 * cancelled or failed one would be proved anew. */
			if (k == 0)
				fin[n_fin++] = i;
		}
	}
	qsort(ids, n_ids, sizeof(uint64_t), cmp_u64);
	uint64_t distinct = 0;
	for (uint64_t k = 0; k < n_ids; k++) {
		if (k && ids[k] == ids[k - 1])
			ms->duplicated++; /* two request_ids, one job */
		else
			distinct++;
	}
	ms->distinct_jobs += distinct;

	/* a partial Fisher-Yates shuffle picks the finished ones to resubmit */
	uint64_t m = n_fin < MIXED_ATTACH_CHECKS ? n_fin : MIXED_ATTACH_CHECKS;
	for (uint64_t k = 0; k < m; k++) {
		uint64_t r = mix64(p->seed + 0x5eedull * (uint64_t)(p->run + 1) + k);
		uint64_t j = k + r % (n_fin - k);
		uint64_t t = fin[k];
		fin[k] = fin[j];
		fin[j] = t;
		ms->attach_checks++;
		if (attach_check(p, mon, fin[k]))
			ms->attach_ok++;
	}
	free(ids);
	free(fin);
	if (wait_quiet(mon, &rss, &ended))
		return -1;
	ms->counted_jobs += ended - ended0;
	return 0;
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

static int phase_proofs(double *f, proof_run *p, unsigned clients, mixed_stats *ms)
{
	uint64_t n = p->proofs;
	pthread_t *th = calloc(clients, sizeof(pthread_t));
	double *lat = malloc(n * sizeof(double)), *over = malloc(n * sizeof(double));
	double *frac = malloc(n * sizeof(double)), *tmp = malloc(n * sizeof(double));
	zkp_client *mon = NULL;
	zkp_error err = { 0 };
	uint64_t ended0 = 0;
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
	if (p->mixed) {
		uint64_t rss;
		memset(p->job_id, 0, n * sizeof(uint64_t));
		memset(p->state, 0, n);
		memset(p->n_final, 0, n);
		memset(p->verified, 0, n * sizeof(bool));
		memset(p->mismatch, 0, n * sizeof(bool));
		int crc = zkp_client_connect(&mon, p->addr, MAX_FRAME, &err);
		if (crc) {
			fprintf(stderr, "load: %s\n", zkp_error_text(&err, crc));
			goto out;
		}
		if (wait_quiet(mon, &rss, &ended0))
			goto out;
	}
	double t0 = bench_now_ns();
	if (!p->mixed) {
		p->limit = n;
		if (run_clients(p, th, clients) == 0)
			goto out;
	} else {
		for (unsigned d = 1; d <= 10; d++) {
			uint64_t ended;
			p->limit = n * d / 10;
			if (run_clients(p, th, clients) == 0 ||
			    wait_quiet(mon, &p->rss[d], &ended))
				goto out;
			p->rss_at[d] = p->rss[d] ? p->limit : 0;
		}
	}
	double s = (bench_now_ns() - t0) / 1e9;

	size_t m = 0, expected = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (!p->mixed || !MIXED_CANCEL(i))
			expected++;
		if (!p->ok[i])
			continue;
		lat[m] = p->lat_ms[i];
		over[m] = p->lat_ms[i] / 1e3 - p->stages_s[i] - p->queue_s[i];
		frac[m] = p->stages_s[i] > 0 ? over[m] / p->stages_s[i] : 0;
		m++;
	}
	f[F_COUNT] = (double)m;
	f[F_FAILURES] = (double)(expected - m);
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
	if (p->mixed && mixed_check(p, mon, ended0, ms))
		goto out;
	rc = 0;
out:
	zkp_client_close(mon);
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

static void print_mixed(const mixed_stats *ms)
{
	static const char *const state_name[4] = { "done", "cancelled", "failed", "other" };
	json_begin_object("mixed");
	json_begin_object("by_priority");
	for (unsigned k = 0; k < 4; k++) {
		json_begin_object(mixed_prio_name[k]);
		for (unsigned s = 0; s < 4; s++)
			json_num(state_name[s], (double)ms->prio[k][s]);
		json_end_object();
	}
	json_end_object();
	json_begin_object("by_state");
	json_num("done", (double)ms->done);
	json_num("cancelled", (double)ms->cancelled);
	json_num("failed", (double)ms->failed);
	json_num("other", (double)ms->other);
	json_end_object();
	json_num("cancels_sent", (double)ms->cancels_sent);
	json_num("cancelled_done_too_late", (double)ms->cancel_done_late);
	json_num("cancelled_unasked", (double)ms->cancelled_unasked);
	json_num("lost", (double)ms->lost);
	json_num("duplicated", (double)ms->duplicated);
	json_num("verified", (double)ms->verified);
	json_num("unverified", (double)ms->unverified);
	json_num("attach_checks", (double)ms->attach_checks);
	json_num("attach_ok", (double)ms->attach_ok);
	json_num("distinct_jobs", (double)ms->distinct_jobs);
	json_num("status_jobs_ended", (double)ms->counted_jobs);
	json_end_object();
}

/* Every --mixed check passed. */
static bool mixed_ok(const mixed_stats *ms)
{
	return ms->lost == 0 && ms->duplicated == 0 && ms->unverified == 0 && ms->failed == 0 &&
	       ms->other == 0 && ms->cancelled_unasked == 0 && ms->attach_ok == ms->attach_checks &&
	       ms->counted_jobs == ms->distinct_jobs;
}

static double mib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0);
}

int bench_load_main(int argc, char **argv)
{
	const char *addr = NULL, *circuit = NULL, *wit_path = NULL, *vk_path = NULL;
	bool mixed = false;
	uint64_t seed = 0;
	bool seeded = false, by_path = false;
	char abs_wit[PATH_MAX];
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
		else if (!strcmp(argv[i], "--mixed"))
			mixed = true;
		else if (!strcmp(argv[i], "--witness-by-path"))
			by_path = true;
		else if (!strcmp(argv[i], "--vk") && more)
			vk_path = argv[++i];
		else if (!strcmp(argv[i], "--seed") && more) {
			seed = strtoull(argv[++i], NULL, 0);
			seeded = true;
		} else if (!strcmp(argv[i], "--runs") && more)
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
	    !circuit != !wit_path || (mixed && (!circuit || !vk_path))) {
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
	mixed_stats ms;
	zkp_groth16_vk vk;
	zkp_groth16_pvk *pvk = NULL;
	double (*f_conn)[NF_MAX] = calloc(MAX_RUNS, sizeof(*f_conn));
	double (*f_status)[NF_MAX] = calloc(MAX_RUNS, sizeof(*f_status));
	double (*f_proofs)[NF_MAX] = calloc(MAX_RUNS, sizeof(*f_proofs));
	uint64_t rss_before, rss_conn;
	uint64_t (*rss_proofs)[11] = calloc(MAX_RUNS, sizeof(*rss_proofs));
	uint64_t (*rss_at)[11] = calloc(MAX_RUNS, sizeof(*rss_at));
	int ret = 1, rc;

	memset(&pr, 0, sizeof(pr));
	memset(&ms, 0, sizeof(ms));
	zkp_groth16_vk_init(&vk);
	pthread_mutex_init(&pr.lock, NULL);
	if (!seeded)
		seed = (uint64_t)bench_now_ns() ^ ((uint64_t)getpid() << 40);
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
		if (by_path) {
			if (!realpath(wit_path, abs_wit)) {
				fprintf(stderr, "load: %s: %s\n", wit_path, strerror(errno));
				goto out;
			}
			pr.wit_path = abs_wit;
		}
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
	if (mixed) {
		rc = zkp_groth16_vk_load(&vk, vk_path, 0, &err);
		if (!rc)
			rc = zkp_groth16_pvk_new(&pvk, &vk);
		if (rc) {
			fprintf(stderr, "load: %s: %s\n", vk_path, zkp_error_text(&err, rc));
			goto out;
		}
		pr.mixed = true;
		pr.pvk = pvk;
		pr.seed = seed;
		pr.job_id = calloc(pr.proofs, sizeof(uint64_t));
		pr.state = calloc(pr.proofs, 1);
		pr.n_final = calloc(pr.proofs, 1);
		pr.verified = calloc(pr.proofs, sizeof(bool));
		pr.mismatch = calloc(pr.proofs, sizeof(bool));
		if (!pr.job_id || !pr.state || !pr.n_final || !pr.verified || !pr.mismatch) {
			fprintf(stderr, "load: out of memory\n");
			goto out;
		}
	}
	rc = zkp_client_connect(&mon, addr, MAX_FRAME, &err);
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
		pr.run = r;
		if (phase_proofs(f_proofs[r], &pr, (unsigned)clients, &ms))
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
		json_str("witness_format", pr.wit_path ? "path" : pr.wtns ? "wtns" : "raw");
		json_num("witness_bytes", (double)wit_len);
		json_num("proofs", (double)proofs);
		json_num("proof_clients", (double)clients);
	}
	if (mixed) {
		char sbuf[24];
		snprintf(sbuf, sizeof(sbuf), "%" PRIu64, seed);
		json_str("mode", "mixed");
		json_str("vk", vk_path);
		json_str("seed", sbuf);
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
	uint64_t first = 0, second = 0, last = 0;
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
			else if (!second)
				second = rss_proofs[r][d];
			last = rss_proofs[r][d];
		}
	if (first) {
		json_num("proof_growth_mib", mib(last) - mib(first));
		json_num("proof_growth_fraction", ((double)last - (double)first) / (double)first);
	}
	if (mixed && second) {
		/* quiet readings: the 2nd tenth to the last, past the warm-up */
		json_num("quiet_growth_mib", mib(last) - mib(second));
		json_num("quiet_growth_fraction", ((double)last - (double)second) / (double)second);
	}
	json_end_object();
	if (mixed)
		print_mixed(&ms);
	json_end_object();
	json_done();

	ret = 0;
	for (int r = 0; r < runs_proofs; r++)
		if (f_proofs[r][F_FAILURES] > 0)
			ret = 1;
	if (mixed && !mixed_ok(&ms))
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
	free(pr.job_id);
	free(pr.state);
	free(pr.n_final);
	free(pr.verified);
	free(pr.mismatch);
	zkp_groth16_pvk_free(pvk);
	zkp_groth16_vk_release(&vk);
	pthread_mutex_destroy(&pr.lock);
	free(f_conn);
	free(f_status);
	free(f_proofs);
	free(rss_proofs);
	free(rss_at);
	return ret;
}
