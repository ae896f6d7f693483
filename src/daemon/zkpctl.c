/*
 * zkpctl: the command-line client of zkpd. One connection, one call per
 * run (prove: one Prove call), answers checked against the call id that was
 * sent. Human output by default; --json prints one JSON object per call
 * result on stdout. Progress of prove and await goes to stderr: a redrawn
 * bar on a terminal, else one line per event.
 *
 * Exit codes: see usage() and the ZKP_EXIT_* constants.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"
#include "zkpctl_grpc.h"
#include "zkpctl_json.h"
#include "zkpd/config.h"

enum {
	ZKP_EXIT_OK = 0,
	ZKP_EXIT_FAIL = 1,    /* the job failed or was cancelled; a result not written */
	ZKP_EXIT_USAGE = 2,   /* bad arguments, an unreadable witness file */
	ZKP_EXIT_CONNECT = 3, /* cannot connect, connection lost, protocol error */
	ZKP_EXIT_TIMEOUT = 4,
	ZKP_EXIT_DAEMON = 5,  /* the daemon answered the call with an Error */
};

#define PROOF_BYTES 192
#define REQUEST_ID_MAX 128
/* Answers are small; a Status of a busy daemon is the largest. */
#define ANSWER_MAX_FRAME (256u << 20)
#define MAX_ADDRESSES 16
/* Calls other than prove, await and load answer at once. */
#define QUICK_TIMEOUT_S 30.0
/* Past the daemon-side timeout of Prove and Await, how long the answer
 * saying "still running" may take to arrive. */
#define AWAIT_GRACE_MS 5000

/* A SnapDeals update's partitions: 16 at the most (32 and 64 GiB). */
#define SNAP_MAX_PARTITIONS 16
/* Files after CIRCUIT: a SnapDeals update's partitions, or a PoSt
 * partition's sector proofs (2,349 at the most: 32 GiB WindowPoSt). */
#define MAX_FILES 2349

/* Command options, allowed per command. */
enum {
	O_PRIORITY = 1 << 0,
	O_REQUEST_ID = 1 << 1,
	O_WITNESS_PATH = 1 << 2,
	O_OUT = 1 << 3,
	O_PROOF_JSON = 1 << 4,
	O_PUBLIC_JSON = 1 << 5,
	O_C1_PATH = 1 << 6,
	O_COMMS = 1 << 7, /* --comm-r-old, --comm-d-new, --comm-r-new */
	O_POST = 1 << 8,  /* --proof-type, --randomness, --partition */
};
#define O_SUBMIT (O_PRIORITY | O_REQUEST_ID | O_WITNESS_PATH)
#define O_RESULT (O_OUT | O_PROOF_JSON | O_PUBLIC_JSON)

struct ctl;

struct cmd {
	const char *name;
	int min_args, max_args; /* positional arguments */
	unsigned opts;          /* O_* allowed */
	int (*fn)(struct ctl *x);
	const char *synopsis;
};

struct ctl {
	const struct cmd *cmd;
	const char *address;
	const char *tls_ca, *tls_cert, *tls_key; /* any set: TLS */
	const char *token_file;
	bool json;
	double timeout_s; /* < 0: the command's default */
	const char *args[1 + MAX_FILES];
	int n_args;
	unsigned given; /* O_* seen */
	Zkpd__V1__Priority priority;
	const char *request_id, *out, *proof_json, *public_json, *witness_path;
	const char *c1_path; /* porep: a C1 on the daemon's side */
	bool porep;          /* porep: the WITNESS bytes are a C1 */
	bool snap;           /* snap: args[1..] are PartitionProof files */
	bool post;           /* post: args[1..] are FallbackPoStSectorProof files */
	uint8_t comm[3][32]; /* snap: comm_r_old, comm_d_new, comm_r_new */
	uint8_t randomness[32]; /* post */
	uint64_t proof_type;    /* post: the registered PoSt proof */
	uint32_t partition;     /* post */
	uint8_t *parts[MAX_FILES];
	size_t part_len[MAX_FILES];
	ProtobufCBinaryData part_bin[MAX_FILES];
	Zkpd__V1__SnapUpdate update;
	Zkpd__V1__PostPartition post_partition;
	uint64_t job;       /* await, cancel */
	uint8_t *witness;   /* prove, submit: the WITNESS file's bytes */
	size_t witness_len;

	zkp_client *c;
	bool tty;
	/* progress display */
	bool bar_drawn;
	int last_stage, last_percent;
	uint32_t last_position;
	uint32_t last_partitions_done; /* a split job's: printed when it grows */
};

/* ---- names ---- */

static const char *const stage_names[] = { "queued", "load", "witness", "eval", "ntt",
					   "msm", "assemble", "verify", "done" };
static const char *const state_names[] = { "unknown", "queued", "running",
					   "done", "failed", "cancelled" };
static const char *const priority_names[] = { "normal", "low", "high", "critical" };

#define NAME_OF(table, v)                                                              \
	((unsigned)(v) < sizeof(table) / sizeof(table[0]) ? table[(unsigned)(v)] : "?")

static const char *stage_name(int s)
{
	return NAME_OF(stage_names, s);
}

static const char *state_name(int s)
{
	return NAME_OF(state_names, s);
}

static const char *priority_name(int p)
{
	return NAME_OF(priority_names, p);
}

/* ---- output helpers ---- */

static void human_size(char *buf, size_t size, uint64_t v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = 0;
	while (d >= 1024.0 && u < 4) {
		d /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%" PRIu64 " B", v);
	else
		snprintf(buf, size, "%.1f %s", d, units[u]);
}

static void human_duration(char *buf, size_t size, double s)
{
	if (!(s >= 0))
		s = 0;
	if (s < 60) {
		snprintf(buf, size, "%.1f s", s);
		return;
	}
	uint64_t t = (uint64_t)s;
	if (t < 3600)
		snprintf(buf, size, "%um%02us", (unsigned)(t / 60), (unsigned)(t % 60));
	else if (t < 86400)
		snprintf(buf, size, "%uh%02um", (unsigned)(t / 3600), (unsigned)(t / 60 % 60));
	else
		snprintf(buf, size, "%ud%02uh", (unsigned)(t / 86400), (unsigned)(t / 3600 % 24));
}

/* A 32-byte little-endian field element in decimal, as snarkjs writes it:
 * repeated division by 10 of the big-endian copy. */
static void decimal_from_le(char *buf, size_t size, const uint8_t *le, size_t n)
{
	uint8_t be[64];
	char digits[160];
	size_t nd = 0;
	if (n > sizeof(be))
		n = sizeof(be);
	for (size_t i = 0; i < n; i++)
		be[i] = le[n - 1 - i];
	for (;;) {
		bool zero = true;
		unsigned rem = 0;
		for (size_t i = 0; i < n; i++) {
			unsigned cur = rem << 8 | be[i];
			be[i] = (uint8_t)(cur / 10);
			rem = cur % 10;
			if (be[i])
				zero = false;
		}
		digits[nd++] = (char)('0' + rem);
		if (zero)
			break;
	}
	size_t k = 0;
	while (nd > 0 && k + 1 < size)
		buf[k++] = digits[--nd];
	buf[k] = 0;
}

/* ---- files ---- */

static int read_file(const char *path, uint8_t **data, size_t *len)
{
	int ret = -1;
	uint8_t *buf = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		goto out;
	struct stat st;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		if (!errno)
			errno = EINVAL;
		goto out;
	}
	size_t n = (size_t)st.st_size;
	buf = malloc(n ? n : 1);
	if (!buf)
		goto out;
	if (fread(buf, 1, n, f) != n) {
		errno = ferror(f) ? EIO : EINVAL;
		goto out;
	}
	*data = buf;
	*len = n;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	if (f)
		fclose(f);
	return ret;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, len, f);
	int rc = fclose(f);
	return w == len && rc == 0 ? 0 : -1;
}

/* snarkjs public.json: the public inputs as decimal strings. */
static int write_public_json(const char *path, const ProtobufCBinaryData *in, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("[\n", f);
	for (size_t i = 0; i < n; i++) {
		char dec[160];
		decimal_from_le(dec, sizeof(dec), in[i].data, in[i].len);
		fprintf(f, " \"%s\"%s\n", dec, i + 1 < n ? "," : "");
	}
	fputs("]\n", f);
	return fclose(f) ? -1 : 0;
}

/* ---- progress ---- */

static void progress_end(struct ctl *x)
{
	if (x->bar_drawn) {
		fputc('\n', stderr);
		x->bar_drawn = false;
	}
}

static void show_progress(struct ctl *x, const Zkpd__V1__Progress *p)
{
	int percent = p->percent > 100 ? 100 : (int)p->percent;
	if (x->tty) {
		if (x->bar_drawn && (int)p->stage == x->last_stage && percent == x->last_percent &&
		    p->queue_position == x->last_position)
			return;
		char bar[31];
		int fill = percent * 30 / 100;
		for (int i = 0; i < 30; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[30] = 0;
		if (p->state == ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED)
			fprintf(stderr, "\rjob %" PRIu64 " [%s] %3d%% queued, position %u   ",
				p->job_id, bar, percent, p->queue_position);
		else if (p->partitions)
			fprintf(stderr, "\rjob %" PRIu64 " [%s] %3d%% %-9s partitions %u/%u   ",
				p->job_id, bar, percent, stage_name(p->stage), p->partitions_done,
				p->partitions);
		else
			fprintf(stderr, "\rjob %" PRIu64 " [%s] %3d%% %-12s", p->job_id, bar, percent,
				stage_name(p->stage));
		fflush(stderr);
		x->bar_drawn = true;
	} else if (p->state == ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED ||
		   p->stage == ZKPD__V1__STAGE__STAGE_QUEUED) {
		if (x->last_stage == ZKPD__V1__STAGE__STAGE_QUEUED &&
		    p->queue_position == x->last_position)
			return;
		if (p->queue_position)
			fprintf(stderr, "job %" PRIu64 ": queued at position %u\n", p->job_id,
				p->queue_position);
		else
			fprintf(stderr, "job %" PRIu64 ": queued\n", p->job_id);
	} else if (p->stage == ZKPD__V1__STAGE__STAGE_DONE) {
		if (x->last_stage == ZKPD__V1__STAGE__STAGE_DONE)
			return;
		fprintf(stderr, "job %" PRIu64 ": finished after %.3f s\n", p->job_id,
			p->elapsed_seconds);
	} else if (p->partitions) {
		/* A sector job: its stage events are its partitions' (and its
		 * own C1 check's), whose times add up in the summary's stage
		 * lines; here each stage's start once, and the partitions
		 * proved as their count grows. */
		if (p->partitions_done > x->last_partitions_done)
			fprintf(stderr, "job %" PRIu64 ": partitions proved: %u/%u\n", p->job_id,
				p->partitions_done, p->partitions);
		else if (!p->stage_finished && (int)p->stage != x->last_stage)
			fprintf(stderr, "job %" PRIu64 ": %s started\n", p->job_id,
				stage_name(p->stage));
		x->last_partitions_done = p->partitions_done;
	} else if (p->stage_finished) {
		/* A stage's seconds are final only when the job ends (its last
		 * span runs on past the stage's end): the summary prints them;
		 * here the time since submit, which is final as printed. */
		fprintf(stderr, "job %" PRIu64 ": %s finished, %.3f s since submit\n", p->job_id,
			stage_name(p->stage), p->elapsed_seconds);
	} else {
		fprintf(stderr, "job %" PRIu64 ": %s started\n", p->job_id, stage_name(p->stage));
	}
	x->last_stage = (int)p->stage;
	x->last_percent = percent;
	x->last_position = p->queue_position;
}

/* ---- calls ---- */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void print_daemon_error(struct ctl *x, const Zkpd__V1__Error *e)
{
	fprintf(stderr, "zkpctl: %s: %s\n", e->code, e->message);
	if (x->json) {
		struct jw w = { stdout, false };
		jw_open(&w, NULL, '{');
		jw_open(&w, "error", '{');
		jw_str(&w, "code", e->code);
		jw_str(&w, "message", e->message);
		jw_close(&w, '}');
		jw_close(&w, '}');
		jw_done(&w);
	}
}

/* Sends req under a fresh call id and waits for its answer, showing the
 * progress events before it. *ret gets the envelope holding a Response of
 * kind want. wait_ms: -1 forever. Returns an exit code. */
static int call(struct ctl *x, Zkpd__V1__Request *req, Zkpd__V1__Response__CallCase want,
		int64_t wait_ms, Zkpd__V1__Envelope **ret)
{
	zkp_error err = { 0 };
	uint64_t id = zkp_client_next_call_id(x->c);
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = req;
	int rc = zkp_client_send(x->c, &env, &err);
	if (rc) {
		fprintf(stderr, "zkpctl: %s\n", zkp_error_text(&err, rc));
		return ZKP_EXIT_CONNECT;
	}
	int64_t deadline = wait_ms >= 0 ? now_ms() + wait_ms : -1;
	for (;;) {
		int wait = -1;
		if (deadline >= 0) {
			int64_t left = deadline - now_ms();
			wait = left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
		}
		Zkpd__V1__Envelope *in = NULL;
		rc = zkp_client_recv(x->c, &in, wait, &err);
		if (rc) {
			progress_end(x);
			if (rc == ZKP_ERR_TIMEOUT) {
				fprintf(stderr, "zkpctl: %s: no answer within %.3g s\n", x->address,
					(double)wait_ms / 1000.0);
				return ZKP_EXIT_TIMEOUT;
			}
			fprintf(stderr, "zkpctl: %s\n", zkp_error_text(&err, rc));
			return ZKP_EXIT_CONNECT;
		}
		if (in->call_id != id) {
			progress_end(x);
			if (in->call_id == 0 && in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR)
				fprintf(stderr, "zkpctl: %s: the daemon closed the connection: %s: %s\n",
					x->address, in->error->code, in->error->message);
			else
				fprintf(stderr, "zkpctl: %s: protocol error: answer for call %" PRIu64
						" while waiting on call %" PRIu64 "\n",
					x->address, in->call_id, id);
			zkp_wire_free(in);
			return ZKP_EXIT_CONNECT;
		}
		switch (in->body_case) {
		case ZKPD__V1__ENVELOPE__BODY_PROGRESS:
			show_progress(x, in->progress);
			zkp_wire_free(in);
			continue;
		case ZKPD__V1__ENVELOPE__BODY_ERROR:
			progress_end(x);
			print_daemon_error(x, in->error);
			zkp_wire_free(in);
			return ZKP_EXIT_DAEMON;
		case ZKPD__V1__ENVELOPE__BODY_RESPONSE:
			progress_end(x);
			if (in->response->call_case != want) {
				fprintf(stderr, "zkpctl: %s: protocol error: response kind %d to a "
						"call expecting kind %d\n",
					x->address, (int)in->response->call_case, (int)want);
				zkp_wire_free(in);
				return ZKP_EXIT_CONNECT;
			}
			*ret = in;
			return ZKP_EXIT_OK;
		default:
			progress_end(x);
			fprintf(stderr, "zkpctl: %s: protocol error: an envelope with no answer\n",
				x->address);
			zkp_wire_free(in);
			return ZKP_EXIT_CONNECT;
		}
	}
}

/* The wait of a call: --timeout, else the command's default. */
static int64_t wait_ms(const struct ctl *x, bool long_call)
{
	if (x->timeout_s >= 0)
		return (int64_t)(x->timeout_s * 1000.0);
	return long_call ? -1 : (int64_t)(QUICK_TIMEOUT_S * 1000.0);
}

/* The daemon-side timeout of Prove and Await (0: none). */
static uint32_t job_timeout_ms(const struct ctl *x)
{
	if (x->timeout_s < 0)
		return 0;
	double ms = x->timeout_s * 1000.0;
	return ms < 1 ? 1 : (uint32_t)ms;
}

static int64_t job_wait_ms(const struct ctl *x)
{
	return x->timeout_s < 0 ? -1 : (int64_t)job_timeout_ms(x) + AWAIT_GRACE_MS;
}

/* ---- job results ---- */

static double spans_sum(Zkpd__V1__Span *const *sp, size_t n)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += sp[i]->seconds;
	return sum;
}

/* "spans": {name: seconds, ...} and "spans_seconds": their sum. */
static void json_spans(struct jw *w, Zkpd__V1__Span *const *sp, size_t n)
{
	jw_open(w, "spans", '{');
	for (size_t i = 0; i < n; i++)
		jw_f64(w, sp[i]->name, sp[i]->seconds);
	jw_close(w, '}');
	jw_f64(w, "spans_seconds", spans_sum(sp, n));
}

static void json_result(const Zkpd__V1__JobResult *r)
{
	struct jw w = { stdout, false };
	jw_open(&w, NULL, '{');
	jw_u64(&w, "job_id", r->job_id);
	jw_str(&w, "state", state_name(r->state));
	jw_str(&w, "circuit", r->circuit);
	if (r->request_id[0])
		jw_str(&w, "request_id", r->request_id);
	jw_f64(&w, "queue_seconds", r->queue_seconds);
	jw_f64(&w, "total_seconds", r->total_seconds);
	if (r->device[0])
		jw_str(&w, "device", r->device);
	if (r->device_busy_known)
		jw_f64(&w, "device_busy_seconds", r->device_busy_seconds);
	json_spans(&w, r->spans, r->n_spans);
	if (r->partitions)
		jw_u64(&w, "partitions", r->partitions);
	if (r->parent_job_id) {
		jw_u64(&w, "parent_job_id", r->parent_job_id);
		jw_u64(&w, "partition", r->partition);
	}
	jw_open(&w, "stages", '[');
	for (size_t i = 0; i < r->n_stages; i++) {
		jw_open(&w, NULL, '{');
		jw_str(&w, "stage", stage_name(r->stages[i]->stage));
		jw_f64(&w, "seconds", r->stages[i]->seconds);
		jw_u64(&w, "rss_bytes", r->stages[i]->rss_bytes);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	if (r->n_partition_times) {
		jw_open(&w, "partition_times", '[');
		for (size_t i = 0; i < r->n_partition_times; i++) {
			const Zkpd__V1__PartitionTimes *pt = r->partition_times[i];
			jw_open(&w, NULL, '{');
			jw_u64(&w, "partition", pt->partition);
			jw_u64(&w, "job_id", pt->job_id);
			jw_str(&w, "state", state_name(pt->state));
			jw_f64(&w, "total_seconds", pt->total_seconds);
			json_spans(&w, pt->spans, pt->n_spans);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
	}
	if (r->proof.len)
		jw_hex(&w, "proof", r->proof.data, r->proof.len);
	if (r->proof_json[0])
		jw_str(&w, "proof_json", r->proof_json);
	jw_open(&w, "public_inputs", '[');
	for (size_t i = 0; i < r->n_public_inputs; i++) {
		char dec[160];
		decimal_from_le(dec, sizeof(dec), r->public_inputs[i].data,
				r->public_inputs[i].len);
		jw_str(&w, NULL, dec);
	}
	jw_close(&w, ']');
	if (r->error_code[0]) {
		jw_str(&w, "error_code", r->error_code);
		jw_str(&w, "error_message", r->error_message);
	}
	jw_close(&w, '}');
	jw_done(&w);
}

/* "  span NAME SECONDS s" per span, then their sum against total (the
 * wall time the spans tile). */
static void human_spans(Zkpd__V1__Span *const *sp, size_t n, double total)
{
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		printf("  span %-14s %9.3f s\n", sp[i]->name, sp[i]->seconds);
	double sum = spans_sum(sp, n);
	printf("  spans %.3f s of %.3f s (%.1f %%)\n", sum, total,
	       total > 0 ? 100.0 * sum / total : 100.0);
}

/* A split job's partitions, one line each (their spans add up to their
 * totals), then each span summed over the partitions: where the
 * partitions' time went, in partition-seconds (they overlap in wall
 * time). */
static void human_partitions(const Zkpd__V1__JobResult *r)
{
	if (!r->n_partition_times)
		return;
	double by_name[64] = { 0 };
	const char *names[64];
	size_t n_names = 0;
	for (size_t i = 0; i < r->n_partition_times; i++) {
		const Zkpd__V1__PartitionTimes *pt = r->partition_times[i];
		if (!pt->n_spans) {
			printf("  partition %u (job %" PRIu64 ") %s\n", pt->partition, pt->job_id,
			       state_name(pt->state));
			continue;
		}
		printf("  partition %u (job %" PRIu64 ") %s %.3f s:", pt->partition, pt->job_id,
		       state_name(pt->state), pt->total_seconds);
		for (size_t k = 0; k < pt->n_spans; k++) {
			const Zkpd__V1__Span *sp = pt->spans[k];
			printf(" %s %.3f", sp->name, sp->seconds);
			size_t at = 0;
			while (at < n_names && strcmp(names[at], sp->name))
				at++;
			if (at == n_names && n_names < 64)
				names[n_names++] = sp->name;
			if (at < n_names)
				by_name[at] += sp->seconds;
		}
		double sum = spans_sum(pt->spans, pt->n_spans);
		printf(" = %.3f s (%.1f %%)\n", sum,
		       pt->total_seconds > 0 ? 100.0 * sum / pt->total_seconds : 100.0);
	}
	if (!n_names)
		return;
	printf("  partitions' spans summed:");
	double all = 0;
	for (size_t k = 0; k < n_names; k++) {
		printf(" %s %.3f", names[k], by_name[k]);
		all += by_name[k];
	}
	printf(" = %.3f partition-seconds\n", all);
}

static void human_result(const struct ctl *x, const Zkpd__V1__JobResult *r)
{
	printf("job %" PRIu64 " %s: circuit %s, %.3f s (queued %.3f s)\n", r->job_id,
	       state_name(r->state), r->circuit, r->total_seconds, r->queue_seconds);
	if (r->device[0] && r->device_busy_known)
		printf("  device %s, busy %.3f s for this job (%.1f %% of its time)\n", r->device,
		       r->device_busy_seconds,
		       r->total_seconds > 0 ? 100.0 * r->device_busy_seconds / r->total_seconds : 0);
	else if (r->device[0])
		printf("  device %s\n", r->device);
	human_spans(r->spans, r->n_spans, r->total_seconds);
	human_partitions(r);
	for (size_t i = 0; i < r->n_stages; i++) {
		char rss[32];
		human_size(rss, sizeof(rss), r->stages[i]->rss_bytes);
		printf("  stage %-9s %9.3f s   rss %s\n", stage_name(r->stages[i]->stage),
		       r->stages[i]->seconds, rss);
	}
	if (r->state != ZKPD__V1__JOB_STATE__JOB_STATE_DONE)
		return;
	if (x->out)
		printf("proof written to %s\n", x->out);
	if (x->proof_json)
		printf("proof.json written to %s\n", x->proof_json);
	if (!x->out && !x->proof_json) {
		printf("proof ");
		for (size_t i = 0; i < r->proof.len; i++)
			printf("%02x", r->proof.data[i]);
		printf("\n");
	}
	if (r->partitions) {
		/* Hundreds per partition: --json or --public-json has them. */
		printf("%u partition proof(s), %zu bytes; %zu public inputs (%zu per partition)\n",
		       r->partitions, r->proof.len, r->n_public_inputs,
		       r->n_public_inputs / r->partitions);
		return;
	}
	for (size_t i = 0; i < r->n_public_inputs; i++) {
		char dec[160];
		decimal_from_le(dec, sizeof(dec), r->public_inputs[i].data,
				r->public_inputs[i].len);
		printf("public[%zu] %s\n", i, dec);
	}
}

/* Writes the requested files, prints the result, and maps its state to
 * the exit code. */
static int finish_job(struct ctl *x, const Zkpd__V1__JobResult *r)
{
	switch (r->state) {
	case ZKPD__V1__JOB_STATE__JOB_STATE_DONE:
		break;
	case ZKPD__V1__JOB_STATE__JOB_STATE_FAILED:
	case ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED:
		if (x->json)
			json_result(r);
		fprintf(stderr, "zkpctl: job %" PRIu64 " %s: %s: %s\n", r->job_id,
			state_name(r->state), r->error_code[0] ? r->error_code : "ERR_CANCELLED",
			r->error_message[0] ? r->error_message : state_name(r->state));
		return ZKP_EXIT_FAIL;
	case ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED:
	case ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING:
		if (x->json)
			json_result(r);
		fprintf(stderr,
			"zkpctl: job %" PRIu64 " still %s after %.3g s; zkpctl await %" PRIu64
			" waits for it\n",
			r->job_id, state_name(r->state), x->timeout_s, r->job_id);
		return ZKP_EXIT_TIMEOUT;
	default:
		fprintf(stderr, "zkpctl: %s: protocol error: job %" PRIu64 " result in state %s\n",
			x->address, r->job_id, state_name(r->state));
		return ZKP_EXIT_CONNECT;
	}
	size_t want = (size_t)PROOF_BYTES * (r->partitions ? r->partitions : 1);
	if (r->proof.len != want) {
		fprintf(stderr, "zkpctl: %s: protocol error: a proof of %zu bytes (expected %zu)\n",
			x->address, r->proof.len, want);
		return ZKP_EXIT_CONNECT;
	}
	if (x->out && write_file(x->out, r->proof.data, r->proof.len)) {
		fprintf(stderr, "zkpctl: cannot write %s: %s\n", x->out, strerror(errno));
		return ZKP_EXIT_FAIL;
	}
	if (x->proof_json) {
		if (!r->proof_json[0]) {
			fprintf(stderr, "zkpctl: job %" PRIu64 ": the daemon returned no proof.json "
					"(the job was submitted without it)\n",
				r->job_id);
			return ZKP_EXIT_FAIL;
		}
		if (write_file(x->proof_json, r->proof_json, strlen(r->proof_json))) {
			fprintf(stderr, "zkpctl: cannot write %s: %s\n", x->proof_json,
				strerror(errno));
			return ZKP_EXIT_FAIL;
		}
	}
	if (x->public_json &&
	    write_public_json(x->public_json, r->public_inputs, r->n_public_inputs)) {
		fprintf(stderr, "zkpctl: cannot write %s: %s\n", x->public_json, strerror(errno));
		return ZKP_EXIT_FAIL;
	}
	if (x->json)
		json_result(r);
	else
		human_result(x, r);
	return ZKP_EXIT_OK;
}

/* ---- commands ---- */

static int parse_job(const char *s, uint64_t *job)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end || errno || v == 0 || s[0] == '-') {
		fprintf(stderr, "zkpctl: bad job id '%s'\n", s);
		return -1;
	}
	*job = v;
	return 0;
}

/* Fills a SubmitRequest from the arguments. */
static void fill_submit(struct ctl *x, Zkpd__V1__SubmitRequest *s, Zkpd__V1__Witness *w,
			bool snarkjs)
{
	s->circuit = (char *)x->args[0];
	s->priority = x->priority;
	if (x->request_id)
		s->request_id = (char *)x->request_id;
	s->format = snarkjs ? ZKPD__V1__PROOF_FORMAT__PROOF_FORMAT_SNARKJS_JSON
			    : ZKPD__V1__PROOF_FORMAT__PROOF_FORMAT_BYTES;
	s->witness = w;
	if (x->post) {
		x->post_partition = (Zkpd__V1__PostPartition)ZKPD__V1__POST_PARTITION__INIT;
		x->post_partition.registered_proof = x->proof_type;
		x->post_partition.randomness = (ProtobufCBinaryData){ 32, x->randomness };
		x->post_partition.partition_index = x->partition;
		for (int k = 0; k + 1 < x->n_args; k++)
			x->part_bin[k] = (ProtobufCBinaryData){ x->part_len[k], x->parts[k] };
		x->post_partition.n_sector_proofs = (size_t)x->n_args - 1;
		x->post_partition.sector_proofs = x->part_bin;
		w->source_case = ZKPD__V1__WITNESS__SOURCE_POST;
		w->post = &x->post_partition;
	} else if (x->snap) {
		x->update = (Zkpd__V1__SnapUpdate)ZKPD__V1__SNAP_UPDATE__INIT;
		x->update.comm_r_old = (ProtobufCBinaryData){ 32, x->comm[0] };
		x->update.comm_d_new = (ProtobufCBinaryData){ 32, x->comm[1] };
		x->update.comm_r_new = (ProtobufCBinaryData){ 32, x->comm[2] };
		for (int k = 0; k + 1 < x->n_args; k++)
			x->part_bin[k] = (ProtobufCBinaryData){ x->part_len[k], x->parts[k] };
		x->update.n_partition_proofs = (size_t)x->n_args - 1;
		x->update.partition_proofs = x->part_bin;
		w->source_case = ZKPD__V1__WITNESS__SOURCE_SNAP;
		w->snap = &x->update;
	} else if (x->porep && x->c1_path) {
		w->source_case = ZKPD__V1__WITNESS__SOURCE_C1_PATH;
		w->c1_path = (char *)x->c1_path;
	} else if (x->porep) {
		w->source_case = ZKPD__V1__WITNESS__SOURCE_C1;
		w->c1.data = x->witness;
		w->c1.len = x->witness_len;
	} else if (x->witness_path) {
		w->source_case = ZKPD__V1__WITNESS__SOURCE_PATH;
		w->path = (char *)x->witness_path;
	} else if (x->witness_len >= 4 && !memcmp(x->witness, "wtns", 4)) {
		w->source_case = ZKPD__V1__WITNESS__SOURCE_WTNS;
		w->wtns.data = x->witness;
		w->wtns.len = x->witness_len;
	} else {
		w->source_case = ZKPD__V1__WITNESS__SOURCE_RAW;
		w->raw.data = x->witness;
		w->raw.len = x->witness_len;
	}
}

static int cmd_prove(struct ctl *x)
{
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	Zkpd__V1__SubmitRequest s = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__ProveRequest p = ZKPD__V1__PROVE_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	fill_submit(x, &s, &w, x->proof_json != NULL);
	p.submit = &s;
	p.timeout_ms = job_timeout_ms(x);
	req.call_case = ZKPD__V1__REQUEST__CALL_PROVE;
	req.prove = &p;
	int ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_RESULT, job_wait_ms(x), &in);
	if (ret == ZKP_EXIT_OK)
		ret = finish_job(x, in->response->result);
	zkp_wire_free(in);
	return ret;
}

/* prove, with the bytes (or --c1-path) a Filecoin C1 output. */
static int cmd_porep(struct ctl *x)
{
	x->porep = true;
	return cmd_prove(x);
}

static int cmd_snap(struct ctl *x)
{
	x->snap = true;
	return cmd_prove(x);
}

static int cmd_post(struct ctl *x)
{
	x->post = true;
	return cmd_prove(x);
}

/* 64 hex digits (an optional 0x first) into 32 bytes, in order. */
static int parse_hex32(const char *s, uint8_t out[32])
{
	if (!strncmp(s, "0x", 2))
		s += 2;
	if (strlen(s) != 64)
		return -1;
	for (int i = 0; i < 32; i++) {
		unsigned v;
		if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return 0;
}

static int cmd_submit(struct ctl *x)
{
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	Zkpd__V1__SubmitRequest s = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	/* the proof.json too, so that a later await --proof-json has it */
	fill_submit(x, &s, &w, true);
	req.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
	req.submit = &s;
	int ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_SUBMIT, wait_ms(x, false), &in);
	if (ret)
		goto out;
	const Zkpd__V1__SubmitResponse *r = in->response->submit;
	if (x->json) {
		struct jw j = { stdout, false };
		jw_open(&j, NULL, '{');
		jw_u64(&j, "job_id", r->job_id);
		jw_bool(&j, "attached", r->attached);
		jw_str(&j, "state", state_name(r->state));
		jw_close(&j, '}');
		jw_done(&j);
	} else {
		printf("%" PRIu64 "\n", r->job_id);
		if (r->attached)
			fprintf(stderr, "zkpctl: request id '%s' names job %" PRIu64
					" (%s): attached to it\n",
				x->request_id ? x->request_id : "", r->job_id, state_name(r->state));
	}
out:
	zkp_wire_free(in);
	return ret;
}

static int cmd_await(struct ctl *x)
{
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__AwaitRequest a = ZKPD__V1__AWAIT_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	a.job_id = x->job;
	if (!x->job && x->request_id)
		a.request_id = (char *)x->request_id;
	a.timeout_ms = job_timeout_ms(x);
	req.call_case = ZKPD__V1__REQUEST__CALL_AWAIT;
	req.await = &a;
	int ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_RESULT, job_wait_ms(x), &in);
	if (ret == ZKP_EXIT_OK)
		ret = finish_job(x, in->response->result);
	zkp_wire_free(in);
	return ret;
}

static int cmd_cancel(struct ctl *x)
{
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__CancelRequest cr = ZKPD__V1__CANCEL_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	cr.job_id = x->job;
	req.call_case = ZKPD__V1__REQUEST__CALL_CANCEL;
	req.cancel = &cr;
	int ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_CANCEL, wait_ms(x, false), &in);
	if (ret)
		goto out;
	Zkpd__V1__JobState st = in->response->cancel->state;
	if (x->json) {
		struct jw w = { stdout, false };
		jw_open(&w, NULL, '{');
		jw_u64(&w, "job_id", cr.job_id);
		jw_str(&w, "state", state_name(st));
		jw_close(&w, '}');
		jw_done(&w);
	} else if (st == ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED) {
		printf("job %" PRIu64 ": cancelled\n", cr.job_id);
	} else if (st == ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING) {
		printf("job %" PRIu64 ": running; it stops at its next stage boundary\n",
		       cr.job_id);
	} else {
		printf("job %" PRIu64 ": already %s\n", cr.job_id, state_name(st));
	}
out:
	zkp_wire_free(in);
	return ret;
}

static void json_circuit(struct jw *w, const char *key, const Zkpd__V1__CircuitStatus *c)
{
	jw_open(w, key, '{');
	jw_str(w, "name", c->name);
	jw_bool(w, "loaded", c->loaded);
	jw_u64(w, "constraints", c->constraints);
	jw_u64(w, "domain", c->domain);
	jw_u64(w, "inputs", c->inputs);
	jw_u64(w, "aux", c->aux);
	jw_u64(w, "pce_bytes", c->pce_bytes);
	jw_u64(w, "key_bytes", c->key_bytes);
	jw_u64(w, "refcount", c->refcount);
	jw_u64(w, "working_set_bytes", c->working_set_bytes);
	jw_str(w, "key_format", c->key_format);
	jw_bool(w, "insecure_dev_key", c->insecure_dev_key);
	if (c->porep_sector_bytes)
		jw_u64(w, "porep_sector_bytes", c->porep_sector_bytes);
	if (c->snap_sector_bytes)
		jw_u64(w, "snap_sector_bytes", c->snap_sector_bytes);
	if (c->window_post_sector_bytes)
		jw_u64(w, "window_post_sector_bytes", c->window_post_sector_bytes);
	if (c->winning_post_sector_bytes)
		jw_u64(w, "winning_post_sector_bytes", c->winning_post_sector_bytes);
	if (c->load_error && c->load_error[0])
		jw_str(w, "load_error", c->load_error);
	jw_close(w, '}');
}

static void json_status(const Zkpd__V1__StatusResponse *s)
{
	struct jw w = { stdout, false };
	jw_open(&w, NULL, '{');
	jw_str(&w, "version", s->version);
	jw_f64(&w, "uptime_seconds", s->uptime_seconds);
	jw_bool(&w, "accepting", s->accepting);
	jw_u64(&w, "connections", s->connections);
	jw_u64(&w, "jobs_done", s->jobs_done);
	jw_u64(&w, "jobs_failed", s->jobs_failed);
	jw_u64(&w, "jobs_cancelled", s->jobs_cancelled);
	jw_open(&w, "queues", '[');
	for (size_t i = 0; i < s->n_queues; i++) {
		jw_open(&w, NULL, '{');
		jw_str(&w, "priority", priority_name(s->queues[i]->priority));
		jw_u64(&w, "queued", s->queues[i]->queued);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_open(&w, "pipelines", '[');
	for (size_t i = 0; i < s->n_pipelines; i++) {
		const Zkpd__V1__PipelineStatus *p = s->pipelines[i];
		jw_open(&w, NULL, '{');
		jw_u64(&w, "id", p->id);
		jw_str(&w, "device", p->device);
		jw_u64(&w, "cpu_job", p->cpu_job);
		jw_str(&w, "cpu_stage", stage_name(p->cpu_stage));
		jw_u64(&w, "device_job", p->device_job);
		jw_u64(&w, "finalize_job", p->finalize_job);
		jw_u64(&w, "depth_used", p->depth_used);
		jw_u64(&w, "proofs", p->proofs);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_open(&w, "devices", '[');
	for (size_t i = 0; i < s->n_devices; i++) {
		const Zkpd__V1__DeviceStatus *d = s->devices[i];
		jw_open(&w, NULL, '{');
		jw_str(&w, "name", d->name);
		jw_str(&w, "kind", d->kind);
		jw_u64(&w, "memory_bytes", d->memory_bytes);
		jw_u64(&w, "memory_used_bytes", d->memory_used_bytes);
		jw_u64(&w, "faults", d->faults);
		jw_u64(&w, "cpu_fallbacks", d->cpu_fallbacks);
		jw_u64(&w, "memory_limit_bytes", d->memory_limit_bytes);
		jw_u64(&w, "memory_reserved_bytes", d->memory_reserved_bytes);
		jw_u64(&w, "memory_peak_reserved_bytes", d->memory_peak_reserved_bytes);
		jw_u64(&w, "memory_waits", d->memory_waits);
		jw_bool(&w, "failed", d->failed);
		if (d->busy_known) {
			jw_f64(&w, "busy_seconds", d->busy_seconds);
			jw_f64(&w, "busy_fraction", d->busy_fraction);
		}
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_open(&w, "circuits", '[');
	for (size_t i = 0; i < s->n_circuits; i++)
		json_circuit(&w, NULL, s->circuits[i]);
	jw_close(&w, ']');
	if (s->memory) {
		const Zkpd__V1__MemoryStatus *m = s->memory;
		jw_open(&w, "memory", '{');
		jw_u64(&w, "rss_bytes", m->rss_bytes);
		jw_u64(&w, "peak_rss_bytes", m->peak_rss_bytes);
		jw_u64(&w, "allocated_bytes", m->allocated_bytes);
		jw_u64(&w, "resident_bytes", m->resident_bytes);
		jw_u64(&w, "budget_bytes", m->budget_bytes);
		jw_u64(&w, "reserved_bytes", m->reserved_bytes);
		jw_u64(&w, "critical_reserve_bytes", m->critical_reserve_bytes);
		jw_open(&w, "counters", '{');
		for (size_t i = 0; i < m->n_counters; i++)
			jw_u64(&w, m->counters[i]->name, m->counters[i]->value);
		jw_close(&w, '}');
		jw_close(&w, '}');
	}
	jw_open(&w, "jobs", '[');
	for (size_t i = 0; i < s->n_jobs; i++) {
		const Zkpd__V1__JobSummary *j = s->jobs[i];
		jw_open(&w, NULL, '{');
		jw_u64(&w, "job_id", j->job_id);
		jw_str(&w, "circuit", j->circuit);
		jw_str(&w, "priority", priority_name(j->priority));
		jw_str(&w, "state", state_name(j->state));
		jw_str(&w, "stage", stage_name(j->stage));
		jw_f64(&w, "age_seconds", j->age_seconds);
		jw_str(&w, "request_id", j->request_id);
		if (j->partitions) {
			jw_u64(&w, "partitions", j->partitions);
			jw_u64(&w, "partitions_done", j->partitions_done);
		}
		if (j->parent_job_id) {
			jw_u64(&w, "parent_job_id", j->parent_job_id);
			jw_u64(&w, "partition", j->partition);
		}
		json_spans(&w, j->spans, j->n_spans);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_open(&w, "snapshots", '[');
	for (size_t i = 0; i < s->n_snapshots; i++) {
		const Zkpd__V1__StageSnapshot *n = s->snapshots[i];
		jw_open(&w, NULL, '{');
		jw_u64(&w, "job_id", n->job_id);
		jw_str(&w, "stage", stage_name(n->stage));
		jw_f64(&w, "t", n->t);
		jw_u64(&w, "rss_bytes", n->rss_bytes);
		jw_u64(&w, "allocated_bytes", n->allocated_bytes);
		jw_u64(&w, "resident_bytes", n->resident_bytes);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
	jw_done(&w);
}

static void job_or_idle(char *buf, size_t size, uint64_t job)
{
	if (job)
		snprintf(buf, size, "%" PRIu64, job);
	else
		snprintf(buf, size, "-");
}

static void human_status(const Zkpd__V1__StatusResponse *s)
{
	char a[32], b[32], c[32], d[32], e[32];
	human_duration(a, sizeof(a), s->uptime_seconds);
	printf("zkpd %s, up %s, %s, %u connection%s\n", s->version, a,
	       s->accepting ? "accepting jobs" : "NOT accepting jobs", s->connections,
	       s->connections == 1 ? "" : "s");
	printf("jobs: %" PRIu64 " done, %" PRIu64 " failed, %" PRIu64 " cancelled\n",
	       s->jobs_done, s->jobs_failed, s->jobs_cancelled);

	printf("\nqueues:");
	for (size_t i = 0; i < s->n_queues; i++)
		printf(" %s %u", priority_name(s->queues[i]->priority), s->queues[i]->queued);
	printf("%s\n", s->n_queues ? "" : " none");

	printf("\n%-4s %-12s %-10s %-9s %-10s %-10s %-6s %s\n", "PIPE", "DEVICE", "CPU JOB",
	       "CPU STAGE", "DEVICE JOB", "FINALIZE", "DEPTH", "PROOFS");
	for (size_t i = 0; i < s->n_pipelines; i++) {
		const Zkpd__V1__PipelineStatus *p = s->pipelines[i];
		job_or_idle(a, sizeof(a), p->cpu_job);
		job_or_idle(b, sizeof(b), p->device_job);
		job_or_idle(c, sizeof(c), p->finalize_job);
		printf("%-4u %-12s %-10s %-9s %-10s %-10s %-6u %" PRIu64 "\n", p->id, p->device, a,
		       p->cpu_job ? stage_name(p->cpu_stage) : "-", b, c, p->depth_used, p->proofs);
	}

	printf("\n%-16s %-8s %-12s %-12s %-20s %-7s %s\n", "DEVICE", "KIND", "MEMORY", "USED",
	       "BUSY", "FAULTS", "CPU FALLBACKS");
	for (size_t i = 0; i < s->n_devices; i++) {
		const Zkpd__V1__DeviceStatus *dv = s->devices[i];
		human_size(a, sizeof(a), dv->memory_bytes);
		human_size(b, sizeof(b), dv->memory_used_bytes);
		if (dv->busy_known)
			snprintf(c, sizeof(c), "%.3f s (%.1f %%)", dv->busy_seconds,
				 100.0 * dv->busy_fraction);
		else
			snprintf(c, sizeof(c), "-");
		printf("%-16s %-8s %-12s %-12s %-20s %-7" PRIu64 " %" PRIu64 "%s\n", dv->name,
		       dv->kind, a, b, c, dv->faults, dv->cpu_fallbacks,
		       dv->failed ? "  FAILED" : "");
	}
	for (size_t i = 0; i < s->n_devices; i++) {
		const Zkpd__V1__DeviceStatus *dv = s->devices[i];
		if (!dv->memory_limit_bytes)
			continue;
		char l[32], r[32], p[32];
		human_size(l, sizeof(l), dv->memory_limit_bytes);
		human_size(r, sizeof(r), dv->memory_reserved_bytes);
		human_size(p, sizeof(p), dv->memory_peak_reserved_bytes);
		printf("%s: device memory reserved %s of %s (at most %s), %" PRIu64
		       " jobs waited for it\n", dv->name, r, l, p, dv->memory_waits);
	}

	printf("\n%-20s %-6s %-11s %-9s %-7s %-10s %-10s %-10s %-4s %-11s %s\n", "CIRCUIT",
	       "LOADED", "CONSTRAINTS", "DOMAIN", "INPUTS", "AUX", "PCE", "KEY", "REFS",
	       "WORKING SET", "FORMAT");
	for (size_t i = 0; i < s->n_circuits; i++) {
		const Zkpd__V1__CircuitStatus *ci = s->circuits[i];
		human_size(a, sizeof(a), ci->pce_bytes);
		human_size(b, sizeof(b), ci->key_bytes);
		human_size(c, sizeof(c), ci->working_set_bytes);
		printf("%-20s %-6s %-11" PRIu64 " %-9" PRIu64 " %-7" PRIu64 " %-10" PRIu64
		       " %-10s %-10s %-4u %-11s %s%s\n",
		       ci->name, ci->loaded ? "yes" : "no", ci->constraints, ci->domain, ci->inputs,
		       ci->aux, a, b, ci->refcount, c, ci->key_format,
		       ci->insecure_dev_key ? " (INSECURE development key)" : "");
		if (ci->load_error && ci->load_error[0])
			printf("%-20s last load failed: %s\n", "", ci->load_error);
	}

	if (s->memory) {
		const Zkpd__V1__MemoryStatus *m = s->memory;
		human_size(a, sizeof(a), m->rss_bytes);
		human_size(b, sizeof(b), m->peak_rss_bytes);
		human_size(c, sizeof(c), m->allocated_bytes);
		human_size(d, sizeof(d), m->resident_bytes);
		printf("\nmemory: rss %s (peak %s), allocated %s, resident %s\n", a, b, c, d);
		human_size(a, sizeof(a), m->budget_bytes);
		human_size(b, sizeof(b), m->reserved_bytes);
		human_size(e, sizeof(e), m->critical_reserve_bytes);
		printf("        budget %s, reserved %s, critical reserve %s\n", a, b, e);
		for (size_t i = 0; i < m->n_counters; i++)
			printf("        %-32s %" PRIu64 "\n", m->counters[i]->name,
			       m->counters[i]->value);
	}

	printf("\n%-8s %-20s %-8s %-9s %-9s %-9s %s\n", "JOB", "CIRCUIT", "PRIORITY", "STATE",
	       "STAGE", "AGE", "REQUEST ID");
	for (size_t i = 0; i < s->n_jobs; i++) {
		const Zkpd__V1__JobSummary *j = s->jobs[i];
		human_duration(a, sizeof(a), j->age_seconds);
		char what[96] = "";
		if (j->partitions)
			snprintf(what, sizeof(what), "  (PoRep sector: %u/%u partitions proved)",
				 j->partitions_done, j->partitions);
		else if (j->parent_job_id)
			snprintf(what, sizeof(what), "  (partition %u of job %" PRIu64 ")",
				 j->partition, j->parent_job_id);
		printf("%-8" PRIu64 " %-20s %-8s %-9s %-9s %-9s %s%s\n", j->job_id, j->circuit,
		       priority_name(j->priority), state_name(j->state), stage_name(j->stage), a,
		       j->request_id, what);
	}

	if (s->n_snapshots) {
		printf("\n%-10s %-8s %-9s %-10s %-10s %s\n", "T", "JOB", "STAGE", "RSS",
		       "ALLOCATED", "RESIDENT");
		for (size_t i = 0; i < s->n_snapshots; i++) {
			const Zkpd__V1__StageSnapshot *n = s->snapshots[i];
			human_size(a, sizeof(a), n->rss_bytes);
			human_size(b, sizeof(b), n->allocated_bytes);
			human_size(c, sizeof(c), n->resident_bytes);
			printf("%-10.3f %-8" PRIu64 " %-9s %-10s %-10s %s\n", n->t, n->job_id,
			       stage_name(n->stage), a, b, c);
		}
	}
}

static int cmd_status(struct ctl *x)
{
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__StatusRequest sr = ZKPD__V1__STATUS_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_STATUS;
	req.status = &sr;
	int ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_STATUS, wait_ms(x, false), &in);
	if (ret == ZKP_EXIT_OK) {
		if (x->json)
			json_status(in->response->status);
		else
			human_status(in->response->status);
	}
	zkp_wire_free(in);
	return ret;
}

static int cmd_metrics(struct ctl *x)
{
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__MetricsRequest mr = ZKPD__V1__METRICS_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_METRICS;
	req.metrics = &mr;
	int ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_METRICS, wait_ms(x, false), &in);
	if (ret == ZKP_EXIT_OK) {
		const char *text = in->response->metrics->text;
		if (x->json) {
			struct jw w = { stdout, false };
			jw_open(&w, NULL, '{');
			jw_str(&w, "text", text);
			jw_close(&w, '}');
			jw_done(&w);
		} else {
			fputs(text, stdout);
		}
	}
	zkp_wire_free(in);
	return ret;
}

static void human_circuit(const Zkpd__V1__CircuitStatus *c)
{
	char pce[32], key[32], ws[32];
	human_size(pce, sizeof(pce), c->pce_bytes);
	human_size(key, sizeof(key), c->key_bytes);
	human_size(ws, sizeof(ws), c->working_set_bytes);
	printf("circuit %s: %s, %" PRIu64 " constraints, domain %" PRIu64 ", %" PRIu64
	       " public inputs, %" PRIu64 " aux\n",
	       c->name, c->loaded ? "loaded" : "not loaded", c->constraints, c->domain,
	       c->inputs, c->aux);
	printf("  pce %s, key %s (%s), working set %s per job, %u job%s holding it\n", pce, key,
	       c->key_format, ws, c->refcount, c->refcount == 1 ? "" : "s");
	if (c->porep_sector_bytes) {
		char ss[32];
		human_size(ss, sizeof(ss), c->porep_sector_bytes);
		printf("  Filecoin PoRep partition circuit for %s sectors (jobs may carry a C1)\n",
		       ss);
	}
	if (c->snap_sector_bytes) {
		char ss[32];
		human_size(ss, sizeof(ss), c->snap_sector_bytes);
		printf("  Filecoin SnapDeals partition circuit for %s sectors (jobs carry an update)\n",
		       ss);
	}
	if (c->insecure_dev_key)
		printf("  INSECURE development key\n");
	if (c->load_error && c->load_error[0])
		printf("  last load failed: %s\n", c->load_error);
}

static int load_unload(struct ctl *x, bool load)
{
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__LoadCircuitRequest lr = ZKPD__V1__LOAD_CIRCUIT_REQUEST__INIT;
	Zkpd__V1__UnloadCircuitRequest ur = ZKPD__V1__UNLOAD_CIRCUIT_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	int ret;
	const Zkpd__V1__CircuitStatus *c = NULL;
	if (load) {
		lr.circuit = (char *)x->args[0];
		req.call_case = ZKPD__V1__REQUEST__CALL_LOAD_CIRCUIT;
		req.load_circuit = &lr;
		ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_LOAD_CIRCUIT, wait_ms(x, true), &in);
		if (ret == ZKP_EXIT_OK)
			c = in->response->load_circuit->circuit;
	} else {
		ur.circuit = (char *)x->args[0];
		req.call_case = ZKPD__V1__REQUEST__CALL_UNLOAD_CIRCUIT;
		req.unload_circuit = &ur;
		ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_UNLOAD_CIRCUIT, wait_ms(x, false),
			   &in);
		if (ret == ZKP_EXIT_OK)
			c = in->response->unload_circuit->circuit;
	}
	if (ret)
		goto out;
	if (!c) {
		fprintf(stderr, "zkpctl: %s: protocol error: no circuit in the answer\n",
			x->address);
		ret = ZKP_EXIT_CONNECT;
		goto out;
	}
	if (x->json) {
		struct jw w = { stdout, false };
		json_circuit(&w, NULL, c);
		jw_done(&w);
	} else {
		human_circuit(c);
	}
out:
	zkp_wire_free(in);
	return ret;
}

static int cmd_load(struct ctl *x)
{
	return load_unload(x, true);
}

static int cmd_unload(struct ctl *x)
{
	return load_unload(x, false);
}

/* The Authenticate call that opens a connection to a daemon with
 * server.token_file. */
static int authenticate(struct ctl *x)
{
	zkp_error err = { 0 };
	char *token = NULL;
	if (zkp_token_read(&token, x->token_file, &err)) {
		fprintf(stderr, "zkpctl: %s\n", err.msg);
		return ZKP_EXIT_USAGE;
	}
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__AuthenticateRequest ar = ZKPD__V1__AUTHENTICATE_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	ar.token = token;
	req.call_case = ZKPD__V1__REQUEST__CALL_AUTHENTICATE;
	req.authenticate = &ar;
	int ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_AUTHENTICATE, wait_ms(x, false), &in);
	zkp_wire_free(in);
	free(token);
	return ret;
}

static int cmd_health(struct ctl *x)
{
	Zkpd__V1__Envelope *in = NULL;
	Zkpd__V1__HealthRequest hr = ZKPD__V1__HEALTH_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_HEALTH;
	req.health = &hr;
	int ret = call(x, &req, ZKPD__V1__RESPONSE__CALL_HEALTH, wait_ms(x, false), &in);
	if (ret)
		goto out;
	const Zkpd__V1__HealthResponse *h = in->response->health;
	if (x->json) {
		struct jw w = { stdout, false };
		jw_open(&w, NULL, '{');
		jw_bool(&w, "serving", h->serving);
		jw_str(&w, "version", h->version);
		jw_f64(&w, "uptime_seconds", h->uptime_seconds);
		jw_close(&w, '}');
		jw_done(&w);
	} else {
		char up[32];
		human_duration(up, sizeof(up), h->uptime_seconds);
		printf("zkpd %s: %s, up %s\n", h->version, h->serving ? "serving" : "shutting down",
		       up);
	}
	if (!h->serving)
		ret = ZKP_EXIT_FAIL;
out:
	zkp_wire_free(in);
	return ret;
}

/* Dispatched by main before any framed connection (zkpctl_grpc.h). */
static int cmd_grpc_status(struct ctl *x)
{
	double t = x->timeout_s > 0 ? x->timeout_s : QUICK_TIMEOUT_S;
	return zkpctl_grpc_status(x->args[0], x->token_file, x->tls_ca,
				  t * 1000.0 > INT32_MAX ? INT32_MAX : (int)(t * 1000.0), x->json);
}

/* A witness is binary: a .wtns starts "wtns", a raw one with ONE (byte 1).
 * JSON, such as a C1 output, starts with '{' or '[' after white space. */
static bool looks_like_json(const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	return i < n && (b[i] == '{' || b[i] == '[');
}

/* ---- arguments ---- */

static const struct cmd cmds[] = {
	{ "prove", 1, 2, O_SUBMIT | O_RESULT, cmd_prove,
	  "prove CIRCUIT WITNESS|--witness-path PATH [--priority P] [--request-id ID]\n"
	  "          [--out PROOF] [--proof-json FILE] [--public-json FILE]" },
	{ "submit", 1, 2, O_SUBMIT, cmd_submit,
	  "submit CIRCUIT WITNESS|--witness-path PATH [--priority P] [--request-id ID]" },
	{ "porep", 1, 2, O_PRIORITY | O_REQUEST_ID | O_C1_PATH | O_OUT | O_PUBLIC_JSON, cmd_porep,
	  "porep CIRCUIT C1|--c1-path PATH [--priority P] [--request-id ID]\n"
	  "          [--out PROOF] [--public-json FILE]" },
	{ "snap", 2, 1 + SNAP_MAX_PARTITIONS, O_PRIORITY | O_REQUEST_ID | O_COMMS | O_OUT | O_PUBLIC_JSON,
	  cmd_snap,
	  "snap CIRCUIT --comm-r-old HEX --comm-d-new HEX --comm-r-new HEX PARTITION...\n"
	  "          [--priority P] [--request-id ID] [--out PROOF] [--public-json FILE]" },
	{ "post", 2, 1 + MAX_FILES, O_PRIORITY | O_REQUEST_ID | O_POST | O_OUT | O_PUBLIC_JSON,
	  cmd_post,
	  "post CIRCUIT --proof-type N --randomness HEX [--partition K] SECTOR...\n"
	  "          [--priority P] [--request-id ID] [--out PROOF] [--public-json FILE]" },
	{ "await", 0, 1, O_RESULT | O_REQUEST_ID, cmd_await,
	  "await JOB|--request-id ID [--out PROOF] [--proof-json FILE] [--public-json FILE]" },
	{ "cancel", 1, 1, 0, cmd_cancel, "cancel JOB" },
	{ "status", 0, 0, 0, cmd_status, "status" },
	{ "metrics", 0, 0, 0, cmd_metrics, "metrics" },
	{ "load", 1, 1, 0, cmd_load, "load CIRCUIT" },
	{ "unload", 1, 1, 0, cmd_unload, "unload CIRCUIT" },
	{ "health", 0, 0, 0, cmd_health, "health" },
	{ "grpc-status", 1, 1, 0, cmd_grpc_status, "grpc-status ADDRESS" },
};

static const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: zkpctl [--connect ADDRESS] [--json] [--timeout SECONDS] [--version]\n"
		   "              [--tls-ca FILE [--tls-cert FILE --tls-key FILE]] "
		   "[--token-file FILE] COMMAND ...\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %s\n", cmds[i].synopsis);
	fprintf(f,
		"\n"
		"  prove     submits a job and waits for its proof (progress on stderr)\n"
		"  porep     proves a Filecoin sector's C2 from its C1 output (the FFI's JSON or\n"
		"            the lotus-bench/Curio wrapper) on a PoRep circuit: one job per\n"
		"            partition; --out gets 192 bytes per partition, in order\n"
		"  snap      proves a Filecoin SnapDeals sector update from its vanilla proofs\n"
		"            (one bincode PartitionProof file per partition, in order) and its\n"
		"            commitments (64 hex digits of their 32 little-endian bytes) on a\n"
		"            SnapDeals circuit: one job per partition, --out as porep\n"
		"  post      proves a Filecoin WindowPoSt partition or WinningPoSt from its\n"
		"            sectors' vanilla proofs (bincode FallbackPoStSectorProof files, in\n"
		"            order), the registered PoSt proof number and the 32-byte randomness\n"
		"            on a PoSt circuit; WinningPoSt runs at critical priority by default\n"
		"  submit    submits a job and prints its id; the daemon keeps its proof and\n"
		"            proof.json for a later await\n"
		"  await     waits for a submitted job's proof, by job id or by request id\n"
		"  cancel    cancels a job (a running one stops at its next stage boundary)\n"
		"  status    the daemon's queues, pipelines, devices, circuits, memory, jobs\n"
		"  metrics   the Prometheus metrics text\n"
		"  load      loads a configured circuit; unload drops it when no job holds it\n"
		"  health    whether the daemon is serving\n"
		"  grpc-status  GetStatus of the cuzk.v1 gRPC service (what Curio calls) at\n"
		"            ADDRESS, grpc.listen's form (unix:PATH or HOST:PORT; TLS with\n"
		"            --tls-ca, the token of --token-file), not the framed socket\n"
		"\n"
		"options:\n"
		"  --connect ADDRESS    unix:PATH or tcp:HOST:PORT (default: $ZKPD_ADDRESS, else\n"
		"                       the daemon's default socket); a comma-separated list\n"
		"                       names a fleet: a call that cannot connect or loses its\n"
		"                       connection moves on to the next address (prove with a\n"
		"                       request id, made up when none is given); await and\n"
		"                       cancel take one address (job ids belong to one daemon)\n"
		"  --tls-ca FILE        speak TLS to tcp:HOST:PORT; the daemon's certificate must\n"
		"                       chain to a CA in FILE (PEM) and name HOST\n"
		"  --tls-cert FILE      client certificate (PEM), for a daemon with tls.client_ca\n"
		"  --tls-key FILE       its private key (PEM)\n"
		"  --token-file FILE    authenticate with the bearer token in FILE first (default:\n"
		"                       $ZKPD_TOKEN_FILE), for a daemon with server.token_file\n"
		"  --json               one JSON object per call result on stdout\n"
		"  --timeout SECONDS    how long to wait for the answer (default: no limit for\n"
		"                       prove, await and load, %g s for the others); a job still\n"
		"                       running then goes on (zkpctl await JOB)\n"
		"  WITNESS              a local file sent with the job: circom .wtns, or raw\n"
		"                       32-byte little-endian values\n"
		"  --witness-path PATH  a witness file on the daemon's side (server.witness_dir)\n"
		"  C1                   porep: a local C1 file sent with the job\n"
		"  --c1-path PATH       porep: a C1 file on the daemon's side (server.witness_dir)\n"
		"  --priority P         critical, high, normal (default) or low\n"
		"  --request-id ID      idempotency key (at most %d bytes): a repeated submit\n"
		"                       attaches to the job that has it; await --request-id\n"
		"                       waits for that job (also one a restarted daemon's\n"
		"                       journal brought back)\n"
		"  --out PROOF          write the 192-byte proof (A, B, C compressed); porep: one\n"
		"                       per partition, concatenated\n"
		"  --proof-json FILE    write the snarkjs proof.json\n"
		"  --public-json FILE   write the public inputs as snarkjs public.json\n"
		"  Without --out or --proof-json the proof is printed in hex.\n"
		"\n"
		"exit status:\n"
		"  0  success\n"
		"  1  the job failed or was cancelled (its error code and message are printed),\n"
		"     a proof file could not be written, or health: the daemon answered that it\n"
		"     is shutting down (a drain closes the listeners, so new connections get 3)\n"
		"  2  usage error (bad arguments, unreadable witness file)\n"
		"  3  cannot connect, connection lost, or protocol error\n"
		"  4  timeout (no answer in time, or the job is still running)\n"
		"  5  the daemon answered the call with an error (e.g. unknown circuit)\n",
		QUICK_TIMEOUT_S, REQUEST_ID_MAX);
}

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("zkpctl: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n(zkpctl --help for usage)\n", stderr);
	return ZKP_EXIT_USAGE;
}

static int parse_priority(const char *s, Zkpd__V1__Priority *p)
{
	static const struct {
		const char *name;
		Zkpd__V1__Priority p;
	} names[] = {
		{ "critical", ZKPD__V1__PRIORITY__PRIORITY_CRITICAL },
		{ "high", ZKPD__V1__PRIORITY__PRIORITY_HIGH },
		{ "normal", ZKPD__V1__PRIORITY__PRIORITY_NORMAL },
		{ "low", ZKPD__V1__PRIORITY__PRIORITY_LOW },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*p = names[i].p;
			return 0;
		}
	return -1;
}

/* Options may come before or after the command. Returns -1 to go on, or
 * the exit code to return. */
static int parse_args(struct ctl *x, int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned flag;
	} valued[] = {
		{ "--priority", O_PRIORITY },	      { "--request-id", O_REQUEST_ID },
		{ "--witness-path", O_WITNESS_PATH }, { "--out", O_OUT },
		{ "--proof-json", O_PROOF_JSON },     { "--public-json", O_PUBLIC_JSON },
		{ "--c1-path", O_C1_PATH },	      { "--comm-r-old", O_COMMS },
		{ "--comm-d-new", O_COMMS },	      { "--comm-r-new", O_COMMS },
		{ "--proof-type", O_POST },	      { "--randomness", O_POST },
		{ "--partition", O_POST },
	};
	bool help = false;
	unsigned comms_given = 0, post_given = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help = true;
			continue;
		}
		if (!strcmp(a, "--version")) {
			printf("zkpctl %s\n", ZKPD_VERSION);
			return ZKP_EXIT_OK;
		}
		if (!strcmp(a, "--json")) {
			x->json = true;
			continue;
		}
		const char **global = !strcmp(a, "--connect")	  ? &x->address :
				      !strcmp(a, "--tls-ca")	  ? &x->tls_ca :
				      !strcmp(a, "--tls-cert")	  ? &x->tls_cert :
				      !strcmp(a, "--tls-key")	  ? &x->tls_key :
				      !strcmp(a, "--token-file") ? &x->token_file :
								   NULL;
		if (global) {
			if (!more)
				return bad_usage("%s needs a value", a);
			*global = argv[++i];
			continue;
		}
		if (!strcmp(a, "--timeout")) {
			if (!more)
				return bad_usage("%s needs a value", a);
			const char *v = argv[++i];
			char *end;
			double t = strtod(v, &end);
			if (!*v || *end || !(t > 0) || t > 4294967.0)
				return bad_usage("bad --timeout '%s' (seconds, above 0)", v);
			x->timeout_s = t;
			continue;
		}
		if (a[0] == '-' && a[1]) {
			size_t k;
			for (k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
				if (!strcmp(a, valued[k].name))
					break;
			if (k == sizeof(valued) / sizeof(valued[0]))
				return bad_usage("unknown option '%s'", a);
			if (!more)
				return bad_usage("%s needs a value", a);
			const char *v = argv[++i];
			x->given |= valued[k].flag;
			switch (valued[k].flag) {
			case O_PRIORITY:
				if (parse_priority(v, &x->priority))
					return bad_usage("bad --priority '%s' (critical, high, "
							 "normal or low)",
							 v);
				break;
			case O_REQUEST_ID:
				if (strlen(v) > REQUEST_ID_MAX)
					return bad_usage("--request-id '%s' is over 128 bytes", v);
				x->request_id = v;
				break;
			case O_WITNESS_PATH:
				x->witness_path = v;
				break;
			case O_C1_PATH:
				x->c1_path = v;
				break;
			case O_OUT:
				x->out = v;
				break;
			case O_PROOF_JSON:
				x->proof_json = v;
				break;
			case O_PUBLIC_JSON:
				x->public_json = v;
				break;
			case O_POST: {
				char *end;
				if (!strcmp(a, "--randomness")) {
					if (parse_hex32(v, x->randomness))
						return bad_usage("bad randomness '%s' (32 bytes as 64 "
								 "hex digits)",
								 v);
					post_given |= 1;
					break;
				}
				unsigned long long n = strtoull(v, &end, 10);
				if (!*v || *end || (a[2] == 'p' && a[3] == 'a' ? n > UINT32_MAX : n > 14))
					return bad_usage("bad number '%s'", v);
				if (a[3] == 'r') {
					x->proof_type = n;
					post_given |= 2;
				} else {
					x->partition = (uint32_t)n;
				}
				break;
			}
			case O_COMMS: {
				int c = a[7] == 'r' && a[9] == 'o' ? 0 : a[7] == 'd' ? 1 : 2;
				if (parse_hex32(v, x->comm[c]))
					return bad_usage("bad commitment '%s' (32 bytes as 64 hex digits)",
							 v);
				comms_given |= 1u << c;
				break;
			}
			}
			continue;
		}
		if (!x->cmd) {
			if (help)
				break;
			x->cmd = cmd_find(a);
			if (!x->cmd)
				return bad_usage("unknown command '%s'", a);
			continue;
		}
		if (x->n_args == (x->cmd->fn == cmd_snap   ? 1 + SNAP_MAX_PARTITIONS :
				  x->cmd->fn == cmd_post ? 1 + MAX_FILES :
							   2))
			return bad_usage("unexpected argument '%s'", a);
		x->args[x->n_args++] = a;
	}
	if (help) {
		usage(stdout);
		return ZKP_EXIT_OK;
	}
	if (!x->cmd) {
		usage(stderr);
		return ZKP_EXIT_USAGE;
	}
	const struct cmd *c = x->cmd;
	if (x->given & ~c->opts) {
		for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
			if (x->given & ~c->opts & valued[k].flag) {
				fprintf(stderr, "zkpctl %s: %s does not apply\n", c->name,
					valued[k].name);
				break;
			}
		fprintf(stderr, "usage: zkpctl %s\n", c->synopsis);
		return ZKP_EXIT_USAGE;
	}
	int max = c->max_args;
	if (c->fn == cmd_prove || c->fn == cmd_submit || c->fn == cmd_porep) {
		/* CIRCUIT and exactly one of WITNESS, --witness-path (C1,
		 * --c1-path) */
		bool porep = c->fn == cmd_porep;
		const char *path = porep ? x->c1_path : x->witness_path;
		max = path ? 1 : 2;
		if (x->n_args == 1 && !path) {
			fprintf(stderr, "zkpctl %s: no %s\n", c->name,
				porep ? "C1 (a C1 file or --c1-path)" :
					"witness (a WITNESS file or --witness-path)");
			fprintf(stderr, "usage: zkpctl %s\n", c->synopsis);
			return ZKP_EXIT_USAGE;
		}
	}
	if (x->n_args < c->min_args || x->n_args > max) {
		fprintf(stderr, "usage: zkpctl %s\n", c->synopsis);
		return ZKP_EXIT_USAGE;
	}
	if (c->fn == cmd_post && post_given != 3) {
		fprintf(stderr, "zkpctl post: give --proof-type and --randomness\n");
		fprintf(stderr, "usage: zkpctl %s\n", c->synopsis);
		return ZKP_EXIT_USAGE;
	}
	if (c->fn == cmd_snap && comms_given != 7) {
		fprintf(stderr, "zkpctl snap: give --comm-r-old, --comm-d-new and --comm-r-new\n");
		fprintf(stderr, "usage: zkpctl %s\n", c->synopsis);
		return ZKP_EXIT_USAGE;
	}
	if (c->fn == cmd_await && (x->n_args == 1) == (x->request_id != NULL)) {
		fprintf(stderr, "zkpctl await: a JOB id or --request-id ID (one of them)\n");
		fprintf(stderr, "usage: zkpctl %s\n", c->synopsis);
		return ZKP_EXIT_USAGE;
	}
	if ((c->fn == cmd_await || c->fn == cmd_cancel) && x->n_args == 1 &&
	    parse_job(x->args[0], &x->job))
		return ZKP_EXIT_USAGE;
	return -1;
}

int main(int argc, char **argv)
{
	struct ctl x = { .timeout_s = -1, .priority = ZKPD__V1__PRIORITY__PRIORITY_NORMAL,
			 .last_stage = -1, .last_percent = -1 };
	int ret = parse_args(&x, argc, argv);
	if (ret >= 0)
		return ret;

	char def[160];
	if (!x.address) {
		const char *env = getenv("ZKPD_ADDRESS");
		if (env && *env) {
			x.address = env;
		} else {
			/* The default socket is trusted only in a private directory:
			 * in a shared /tmp another user could have made it, and would
			 * then receive our witnesses. A missing one is left to the
			 * connect to report. */
			char dir[128];
			zkp_error err = { 0 };
			zkp_address_default_dir(dir, sizeof(dir));
			if (access(dir, F_OK) == 0 || errno != ENOENT) {
				if (zkp_address_check_private_dir(dir, &err)) {
					fprintf(stderr, "zkpctl: not using the default socket: %s; "
						"give --connect or ZKPD_ADDRESS\n", err.msg);
					return ZKP_EXIT_CONNECT;
				}
			}
			zkp_address_default(def, sizeof(def));
			x.address = def;
		}
	}
	x.tty = isatty(STDERR_FILENO);
	if (!x.token_file) {
		const char *env = getenv("ZKPD_TOKEN_FILE");
		if (env && *env)
			x.token_file = env;
	}
	if (!x.tls_cert != !x.tls_key)
		return bad_usage("%s", "--tls-cert and --tls-key go together");
	if (x.cmd->fn == cmd_grpc_status)
		return cmd_grpc_status(&x);

	/* the witness is read before connecting: a bad path is a usage error */
	if ((x.cmd->fn == cmd_prove || x.cmd->fn == cmd_submit) && !x.witness_path &&
	    read_file(x.args[1], &x.witness, &x.witness_len)) {
		fprintf(stderr, "zkpctl: cannot read witness %s: %s\n", x.args[1],
			strerror(errno));
		return ZKP_EXIT_USAGE;
	}
	if (x.witness && looks_like_json(x.witness, x.witness_len)) {
		fprintf(stderr, "zkpctl: %s is JSON, not a witness (.wtns or raw values): for a "
			"PoRep C1 output use zkpctl porep %s %s\n", x.args[1], x.args[0],
			x.args[1]);
		free(x.witness);
		return ZKP_EXIT_USAGE;
	}
	for (int k = 1; (x.cmd->fn == cmd_snap || x.cmd->fn == cmd_post) && k < x.n_args; k++)
		if (read_file(x.args[k], &x.parts[k - 1], &x.part_len[k - 1])) {
			fprintf(stderr, "zkpctl: cannot read vanilla proof %s: %s\n", x.args[k],
				strerror(errno));
			return ZKP_EXIT_USAGE;
		}
	if (x.cmd->fn == cmd_porep && !x.c1_path &&
	    read_file(x.args[1], &x.witness, &x.witness_len)) {
		fprintf(stderr, "zkpctl: cannot read C1 %s: %s\n", x.args[1], strerror(errno));
		return ZKP_EXIT_USAGE;
	}
	/* A fleet without a balancer: ADDRESS may list several daemons. */
	char *list = strdup(x.address), *save = NULL;
	const char *addrs[MAX_ADDRESSES];
	size_t n_addrs = 0;
	if (!list) {
		fprintf(stderr, "zkpctl: out of memory\n");
		return ZKP_EXIT_CONNECT;
	}
	for (char *a = strtok_r(list, ",", &save); a && n_addrs < MAX_ADDRESSES;
	     a = strtok_r(NULL, ",", &save)) {
		while (*a == ' ')
			a++;
		if (*a)
			addrs[n_addrs++] = a;
	}
	if (!n_addrs) {
		free(list);
		return bad_usage("%s", "--connect names no address");
	}
	/* A prove retried on another daemon must not run twice on one that
	 * saw it: give it an idempotency key when the caller did not. */
	char rid[40];
	if (n_addrs > 1 && x.cmd->fn == cmd_prove && !x.request_id) {
		uint64_t r1 = 0, r2 = 0;
		FILE *u = fopen("/dev/urandom", "rb");
		if (u) {
			if (fread(&r1, sizeof(r1), 1, u) != 1 || fread(&r2, sizeof(r2), 1, u) != 1)
				r1 = (uint64_t)now_ms() ^ ((uint64_t)getpid() << 32);
			fclose(u);
		}
		snprintf(rid, sizeof(rid), "zkpctl-%016" PRIx64 "%016" PRIx64, r1, r2);
		x.request_id = rid;
	}
	/* Job ids belong to one daemon: await and cancel take one address. */
	bool may_fail_over = x.cmd->fn != cmd_await && x.cmd->fn != cmd_cancel;
	if (!may_fail_over && n_addrs > 1) {
		free(list);
		return bad_usage("%s", "await and cancel take one --connect address: job ids "
				       "belong to one daemon");
	}
	for (size_t i = 0; i < n_addrs; i++) {
		zkp_error err = { 0 };
		int rc;
		x.address = addrs[i];
		if (i > 0)
			fprintf(stderr, "zkpctl: trying %s\n", x.address);
		if (x.tls_ca || x.tls_cert) {
			zkp_client_tls tls = { .ca_file = x.tls_ca, .cert_file = x.tls_cert,
					       .key_file = x.tls_key };
			if (x.timeout_s > 0) /* the handshake is part of the wait */
				tls.timeout_ms = x.timeout_s * 1000.0 < 1 ? 1 :
						 x.timeout_s * 1000.0 > INT32_MAX ? INT32_MAX :
						 (int)(x.timeout_s * 1000.0);
			rc = zkp_client_connect_tls(&x.c, x.address, ANSWER_MAX_FRAME, &tls, &err);
		} else {
			rc = zkp_client_connect(&x.c, x.address, ANSWER_MAX_FRAME, &err);
		}
		if (rc) {
			fprintf(stderr, "zkpctl: %s\n", zkp_error_text(&err, rc));
			ret = rc == ZKP_ERR_CONFIG ? ZKP_EXIT_USAGE : ZKP_EXIT_CONNECT;
			if (ret == ZKP_EXIT_USAGE)
				break;
			continue;
		}
		ret = x.token_file ? authenticate(&x) : 0;
		if (!ret)
			ret = x.cmd->fn(&x);
		zkp_client_close(x.c);
		x.c = NULL;
		if (ret != ZKP_EXIT_CONNECT || !may_fail_over)
			break;
		x.last_stage = -1;
		x.last_percent = -1;
	}
	free(list);
	free(x.witness);
	for (size_t k = 0; k < MAX_FILES; k++)
		free(x.parts[k]);
	return ret;
}
