/*
 * engine: the object, the job table, the priority queues, memory admission,
 * events, status copies and shutdown. Circuits and the loader are in
 * engine_circuits.c, the pipeline threads in engine_pipeline.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"
#include "witness_path.h"
#ifdef ZKPD_HAVE_CUDA
#include "zkpd/backend_cuda.h"
#endif
#include "zkpd/log.h"
#include "zkpd/mem.h"

/* Share of a job's time per stage before any job of the circuit finished
 * (a PoRep-shaped proof on the CPU backend spends most of it in the MSMs). */
static const double default_weight[ZKP_NSTAGES] = {
	[ZKP_STAGE_WITNESS] = 2, [ZKP_STAGE_EVAL] = 10, [ZKP_STAGE_NTT] = 15,
	[ZKP_STAGE_MSM] = 63,    [ZKP_STAGE_ASSEMBLE] = 5, [ZKP_STAGE_VERIFY] = 5,
};
/* Weight of the newest job in the stage-time moving averages. */
#define AVG_ALPHA 0.25

const double zkp_stage_bucket_le[ZKP_STAGE_BUCKETS] = {
	0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
};

double eng_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *zkp_priority_name(enum zkp_priority p)
{
	switch (p) {
	case ZKP_PRIO_NORMAL: return "normal";
	case ZKP_PRIO_LOW: return "low";
	case ZKP_PRIO_HIGH: return "high";
	case ZKP_PRIO_CRITICAL: return "critical";
	}
	return "?";
}

const char *zkp_stage_name(enum zkp_stage s)
{
	static const char *const names[ZKP_NSTAGES] = {
		"queued", "load", "witness", "eval", "ntt", "msm", "assemble", "verify", "done",
	};
	return (unsigned)s < ZKP_NSTAGES ? names[s] : "?";
}

static const char *const span_names[ZKP_NSPANS] = {
	[ZKP_SPAN_LOAD] = "load",
	[ZKP_SPAN_QUEUED] = "queued",
	[ZKP_SPAN_WITNESS] = "witness",
	[ZKP_SPAN_EVAL] = "eval",
	[ZKP_SPAN_SAT_CHECK] = "sat_check",
	[ZKP_SPAN_UPLOAD] = "upload",
	[ZKP_SPAN_SLOT_WAIT] = "slot_wait",
	[ZKP_SPAN_DEVICE_QUEUE] = "device_queue",
	[ZKP_SPAN_DEVICE_LOCK] = "device_lock",
	[ZKP_SPAN_KEY_UPLOAD] = "key_upload",
	[ZKP_SPAN_NTT] = "ntt",
	[ZKP_SPAN_MSM_SETUP] = "msm_setup",
	[ZKP_SPAN_MSM_H] = "msm_h",
	[ZKP_SPAN_MSM_L] = "msm_l",
	[ZKP_SPAN_MSM_A] = "msm_a",
	[ZKP_SPAN_MSM_B_G1] = "msm_b_g1",
	[ZKP_SPAN_FINALIZE_WAIT] = "finalize_wait",
	[ZKP_SPAN_G2_WAIT] = "g2_wait",
	[ZKP_SPAN_ASSEMBLE] = "assemble",
	[ZKP_SPAN_VERIFY] = "verify",
	[ZKP_SPAN_RESULT] = "result",
	[ZKP_SPAN_PARTITIONS] = "partitions",
	[ZKP_SPAN_DEVICE_MEMORY] = "device_memory",
};

const char *zkp_span_name(enum zkp_span s)
{
	return (unsigned)s < ZKP_NSPANS ? span_names[s] : "?";
}

enum zkp_stage zkp_span_stage(enum zkp_span s)
{
	switch (s) {
	case ZKP_SPAN_LOAD: return ZKP_STAGE_LOAD;
	case ZKP_SPAN_WITNESS: return ZKP_STAGE_WITNESS;
	case ZKP_SPAN_EVAL:
	case ZKP_SPAN_SAT_CHECK:
	case ZKP_SPAN_UPLOAD: return ZKP_STAGE_EVAL;
	case ZKP_SPAN_KEY_UPLOAD:
	case ZKP_SPAN_NTT: return ZKP_STAGE_NTT;
	case ZKP_SPAN_MSM_SETUP:
	case ZKP_SPAN_MSM_H:
	case ZKP_SPAN_MSM_L:
	case ZKP_SPAN_MSM_A:
	case ZKP_SPAN_MSM_B_G1: return ZKP_STAGE_MSM;
	case ZKP_SPAN_G2_WAIT:
	case ZKP_SPAN_ASSEMBLE: return ZKP_STAGE_ASSEMBLE;
	case ZKP_SPAN_VERIFY: return ZKP_STAGE_VERIFY;
	default: return ZKP_NSTAGES;
	}
}

double zkp_span_times_sum(const zkp_span_times *t)
{
	double sum = 0;
	for (int s = 0; s < ZKP_NSPANS; s++)
		if (t->entered & (1u << s))
			sum += t->seconds[s];
	return sum;
}

_Static_assert(ZKP_NSPANS <= 32, "zkp_span_times.entered holds a bit per span");

void job_span(struct job *j, enum zkp_span s, double t)
{
	if (j->span < ZKP_NSPANS) {
		if (t < j->t_span)
			t = j->t_span;
		j->spans.seconds[j->span] += t - j->t_span;
	}
	if (s < ZKP_NSPANS)
		j->spans.entered |= 1u << s;
	j->span = s;
	j->t_span = t;
}

void job_span_now(struct zkp_engine *e, struct job *j, enum zkp_span s)
{
	pthread_mutex_lock(&e->lock);
	job_span(j, s, eng_now());
	pthread_mutex_unlock(&e->lock);
}

/* j's spans as of now (lock held): the running span counts up to now. */
static void spans_now(zkp_span_times *ret, const struct job *j, double now)
{
	*ret = j->spans;
	if (j->span < ZKP_NSPANS && now > j->t_span)
		ret->seconds[j->span] += now - j->t_span;
}

const char *zkp_job_state_name(enum zkp_job_state s)
{
	static const char *const names[] = {
		"unknown", "queued", "running", "done", "failed", "cancelled",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* ---- lists ---- */

static void jlist_push(struct jlist *l, struct job *j)
{
	j->next = NULL;
	j->prev = l->tail;
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
	l->n++;
}

static void jlist_remove(struct jlist *l, struct job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		l->head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		l->tail = j->prev;
	j->prev = j->next = NULL;
	l->n--;
}

/* Queues from the first to be served to the last. */
static const enum zkp_priority serve_order[PRIO_LEVELS] = {
	ZKP_PRIO_CRITICAL, ZKP_PRIO_HIGH, ZKP_PRIO_NORMAL, ZKP_PRIO_LOW,
};

/* ---- job table: chained hashes by id and by request_id ---- */

static size_t hash_id(uint64_t id, size_t size)
{
	id *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(id >> 32) & (size - 1);
}

static void tab_link(struct job **id_tab, struct job **rid_tab, size_t size, struct job *j)
{
	size_t h = hash_id(j->id, size);
	j->id_next = id_tab[h];
	id_tab[h] = j;
	request_link(rid_tab, size, j);
}

/* Doubles the tables when they get as full as they are wide. */
static int tab_grow(struct zkp_engine *e)
{
	if (e->n_jobs < e->tab_size)
		return 0;
	size_t size = e->tab_size * 2;
	struct job **id_tab = calloc(size, sizeof(*id_tab));
	struct job **rid_tab = calloc(size, sizeof(*rid_tab));
	if (!id_tab || !rid_tab) {
		free(id_tab);
		free(rid_tab);
		return ZKP_ERR_NOMEM;
	}
	for (size_t i = 0; i < e->tab_size; i++) {
		struct job *j = e->id_tab[i];
		while (j) {
			struct job *next = j->id_next;
			tab_link(id_tab, rid_tab, size, j);
			j = next;
		}
	}
	free(e->id_tab);
	free(e->rid_tab);
	e->id_tab = id_tab;
	e->rid_tab = rid_tab;
	e->tab_size = size;
	return 0;
}

static void tab_unlink(struct zkp_engine *e, struct job *j)
{
	struct job **p = &e->id_tab[hash_id(j->id, e->tab_size)];
	while (*p != j)
		p = &(*p)->id_next;
	*p = j->id_next;
	request_unlink(e, j);
	e->n_jobs--;
}

static struct job *find_job(struct zkp_engine *e, uint64_t id)
{
	for (struct job *j = e->id_tab[hash_id(id, e->tab_size)]; j; j = j->id_next)
		if (j->id == id)
			return j;
	return NULL;
}

struct job *job_find(struct zkp_engine *e, uint64_t id)
{
	return find_job(e, id);
}

static void job_free(struct job *j)
{
	if (j->sp)
		split_unref(j->sp);
	free(j->parts);
	free(j->proof);
	zkp_groth16_job_free(j->gj);
	free(j->w);
	free(j->wpack);
	free(j->data);
	if (j->path)
		close(j->fd);
	free(j->path);
	free(j->proof_json);
	free(j->inputs);
	free(j);
}

/* ---- events ---- */

static void emit(struct zkp_engine *e, const zkp_engine_event *ev)
{
	if (e->ev_n == e->ev_cap) {
		size_t cap = e->ev_cap ? 2 * e->ev_cap : 64;
		zkp_engine_event *n = malloc(cap * sizeof(*n));
		if (!n) {
			/* The client learns the outcome from job_info anyway; an
			 * event lost to an allocation failure only delays it. */
			zkp_log(ZKP_LOG_WARN, "engine: out of memory, event dropped");
			return;
		}
		for (size_t i = 0; i < e->ev_n; i++)
			n[i] = e->events[(e->ev_head + i) % e->ev_cap];
		free(e->events);
		e->events = n;
		e->ev_cap = cap;
		e->ev_head = 0;
	}
	e->events[(e->ev_head + e->ev_n) % e->ev_cap] = *ev;
	e->ev_n++;
	e->notify_pending = true;
}

void emit_job(struct zkp_engine *e, const struct job *j, bool stage_finished, double seconds)
{
	zkp_engine_event ev = {
		.kind = ZKP_EVENT_JOB,
		.job_id = j->id,
		.state = j->state,
		.stage = j->stage,
		.stage_finished = stage_finished,
		.stage_seconds = seconds,
	};
	emit(e, &ev);
	/* A partition's progress is its sector job's too. */
	if (j->split_id) {
		struct job *sj = find_job(e, j->split_id);
		if (sj && sj->state == ZKP_JOB_RUNNING) {
			ev.job_id = sj->id;
			ev.state = sj->state;
			emit(e, &ev);
		}
	}
}

void emit_queue(struct zkp_engine *e)
{
	/* Coalesced: one pending QUEUE event says it all. */
	if (e->ev_n && e->events[(e->ev_head + e->ev_n - 1) % e->ev_cap].kind == ZKP_EVENT_QUEUE)
		return;
	zkp_engine_event ev = { .kind = ZKP_EVENT_QUEUE };
	emit(e, &ev);
}

void emit_load(struct zkp_engine *e, uint64_t token, int rc)
{
	zkp_engine_event ev = { .kind = ZKP_EVENT_LOAD, .token = token, .rc = rc };
	emit(e, &ev);
}

void unlock_notify(struct zkp_engine *e)
{
	bool call = e->notify_pending && !e->freeing && e->notify;
	e->notify_pending = false;
	pthread_mutex_unlock(&e->lock);
	if (call)
		e->notify(e->notify_arg);
}

size_t zkp_engine_poll(zkp_engine *e, zkp_engine_event *ev, size_t max)
{
	pthread_mutex_lock(&e->lock);
	size_t n = e->ev_n < max ? e->ev_n : max;
	for (size_t i = 0; i < n; i++)
		ev[i] = e->events[(e->ev_head + i) % e->ev_cap];
	if (n) {
		e->ev_head = (e->ev_head + n) % e->ev_cap;
		e->ev_n -= n;
	}
	pthread_mutex_unlock(&e->lock);
	return n;
}

/* ---- snapshots and stage ends ---- */

/* Appends a snapshot to the ring (lock held). */
static void ring_push(struct zkp_engine *e, uint64_t job_id, enum zkp_stage s,
		      const zkp_mem_snap *snap)
{
	zkp_engine_snap *r = &e->snaps[e->snap_next];
	r->job_id = job_id;
	r->stage = s;
	r->t = snap->t - e->t0;
	r->rss = snap->rss.rss;
	r->allocated = snap->je.allocated;
	r->resident = snap->je.resident;
	e->snap_next = (e->snap_next + 1) % ZKP_ENGINE_SNAPSHOTS;
	if (e->n_snaps < ZKP_ENGINE_SNAPSHOTS)
		e->n_snaps++;
}

void take_snapshot(struct zkp_engine *e, uint64_t job_id, enum zkp_stage s)
{
	zkp_mem_snap snap;
	zkp_mem_snapshot(zkp_stage_name(s), &snap);
	pthread_mutex_lock(&e->lock);
	ring_push(e, job_id, s, &snap);
	pthread_mutex_unlock(&e->lock);
}

void stage_count_add(struct zkp_engine *e, enum zkp_stage s, double seconds)
{
	e->stage_count[s]++;
	e->stage_seconds[s] += seconds;
	/* Cumulative buckets: a scrape copies them as they are. */
	for (int b = ZKP_STAGE_BUCKETS - 1; b >= 0 && seconds <= zkp_stage_bucket_le[b]; b--)
		e->stage_buckets[s][b]++;
}

void stage_done(struct zkp_engine *e, struct job *j, enum zkp_stage s)
{
	/* The snapshot reads /proc: taken before locking. */
	zkp_mem_snap snap;
	zkp_mem_snapshot(zkp_stage_name(s), &snap);
	pthread_mutex_lock(&e->lock);
	zkp_span_times now;
	spans_now(&now, j, eng_now());
	double seconds = 0;
	for (int sp = 0; sp < ZKP_NSPANS; sp++)
		if (zkp_span_stage((enum zkp_span)sp) == s)
			seconds += now.seconds[sp];
	ring_push(e, j->id, s, &snap);
	j->stages[s].ran = true;
	j->stages[s].seconds = seconds;
	j->stages[s].rss = snap.rss.rss;
	stage_count_add(e, s, seconds);
	j->stage = s;
	emit_job(e, j, true, seconds);
	unlock_notify(e);
}

/* ---- ending jobs ---- */

static void update_averages(struct circuit *c, const struct job *j)
{
	for (int s = ZKP_STAGE_WITNESS; s <= ZKP_STAGE_VERIFY; s++) {
		double v = j->stages[s].seconds;
		c->avg[s] = c->have_avg ? (1 - AVG_ALPHA) * c->avg[s] + AVG_ALPHA * v : v;
	}
	c->have_avg = true;
}

static void history_trim(struct zkp_engine *e)
{
	while (e->history.n > e->cfg.job_history) {
		struct job *old = e->history.head;
		jlist_remove(&e->history, old);
		tab_unlink(e, old);
		job_free(old);
	}
}

/* Appends to buf[*len] as snprintf would, keeping *len within size. */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	if (*len >= size - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

/* One INFO line per ended job: its circuit, priority, state, device, error
 * code, queue and total seconds; every span it entered with its seconds,
 * their sum and its share of the total (100 % but for rounding: the spans
 * tile the job's life); the device's busy seconds for the job when that
 * device measures them; and the RSS at the end of each stage that ran. The
 * same figures are members of a JSON line, each stage's seconds too.
 * Circuit names are [A-Za-z0-9_.-] (config.h), so they need no JSON
 * escaping. */
static void log_summary(const struct job *j)
{
	if (zkp_log_get_level() < ZKP_LOG_INFO)
		return;
	char text[2048], json[3072];
	size_t tl = 0, jl = 0;
	double queue = (j->t_start > 0 ? j->t_start : j->t_end) - j->t_submit;
	double total = j->t_end - j->t_submit;
	const char *state = zkp_job_state_name(j->state);
	const char *prio = zkp_priority_name(j->prio);

	append(text, sizeof(text), &tl, "job %" PRIu64 " %s: circuit %s priority %s", j->id, state,
	       j->circ->cfg.name, prio);
	append(json, sizeof(json), &jl,
	       "\"job\":%" PRIu64 ",\"circuit\":\"%s\",\"priority\":\"%s\",\"state\":\"%s\"",
	       j->id, j->circ->cfg.name, prio, state);
	if (j->dev) {
		append(text, sizeof(text), &tl, " device %s%s%s", j->dev->name,
		       j->fell_back ? " (proved on the CPU after a device fault)" : "",
		       j->dev_eval && !j->fell_back ? " (eval on the device)" : "");
		append(json, sizeof(json), &jl,
		       ",\"device\":\"%s\",\"cpu_fallback\":%s,\"device_eval\":%s", j->dev->name,
		       j->fell_back ? "true" : "false", j->dev_eval ? "true" : "false");
	}
	/* The witness's bytes on the bus, packed when fewer than its own. */
	if (j->witness_up) {
		bool packed = j->witness_packed;
		append(text, sizeof(text), &tl, " witness up %.2f MiB %s",
		       (double)j->witness_up / (1 << 20), packed ? "packed" : "whole");
		append(json, sizeof(json), &jl, ",\"witness_up_bytes\":%" PRIu64
		       ",\"witness_packed\":%s", j->witness_up, packed ? "true" : "false");
	}
	/* ... and what the host kept it in while the device had it. */
	if (j->witness_rest) {
		append(text, sizeof(text), &tl, " held %.2f MiB packed",
		       (double)j->witness_rest / (1 << 20));
		append(json, sizeof(json), &jl, ",\"witness_rest_bytes\":%" PRIu64,
		       j->witness_rest);
	}
	if (j->state != ZKP_JOB_DONE && j->error_code) {
		append(text, sizeof(text), &tl, " error %s", zkp_err_name(j->error_code));
		append(json, sizeof(json), &jl, ",\"error\":\"%s\"", zkp_err_name(j->error_code));
	}
	append(text, sizeof(text), &tl, " queue %.3f s total %.3f s", queue, total);
	append(json, sizeof(json), &jl,
	       ",\"queue_seconds\":%.6f,\"total_seconds\":%.6f,\"stages\":{", queue, total);
	bool first = true;
	for (int s = ZKP_STAGE_LOAD; s <= ZKP_STAGE_VERIFY; s++) {
		const zkp_stage_timing *t = &j->stages[s];
		if (!t->ran)
			continue;
		const char *name = zkp_stage_name((enum zkp_stage)s);
		append(json, sizeof(json), &jl, "%s\"%s\":{\"seconds\":%.6f", first ? "" : ",",
		       name, t->seconds);
		/* The load stage takes no snapshot: it has no RSS of its own. */
		if (t->rss)
			append(json, sizeof(json), &jl, ",\"rss_mib\":%.1f}",
			       (double)t->rss / (1024.0 * 1024.0));
		else
			append(json, sizeof(json), &jl, "}");
		first = false;
	}
	append(json, sizeof(json), &jl, "},\"spans\":{");
	first = true;
	for (int s = 0; s < ZKP_NSPANS; s++) {
		if (!(j->spans.entered & (1u << s)))
			continue;
		const char *name = zkp_span_name((enum zkp_span)s);
		append(text, sizeof(text), &tl, " | %s %.3f", name, j->spans.seconds[s]);
		append(json, sizeof(json), &jl, "%s\"%s\":%.6f", first ? "" : ",", name,
		       j->spans.seconds[s]);
		first = false;
	}
	double sum = zkp_span_times_sum(&j->spans);
	append(text, sizeof(text), &tl, " | spans %.3f s = %.1f %% of total", sum,
	       total > 0 ? 100.0 * sum / total : 100.0);
	append(json, sizeof(json), &jl, "},\"spans_seconds\":%.6f", sum);
	if (j->busy_known) {
		append(text, sizeof(text), &tl, " | device busy %.3f s = %.1f %%", j->busy,
		       total > 0 ? 100.0 * j->busy / total : 0.0);
		append(json, sizeof(json), &jl, ",\"device_busy_seconds\":%.6f", j->busy);
	}
	first = true;
	for (int s = ZKP_STAGE_WITNESS; s <= ZKP_STAGE_VERIFY; s++) {
		const zkp_stage_timing *t = &j->stages[s];
		if (!t->ran || !t->rss)
			continue;
		append(text, sizeof(text), &tl, "%s%s %.1f MiB", first ? " | rss " : ", ",
		       zkp_stage_name((enum zkp_stage)s), (double)t->rss / (1024.0 * 1024.0));
		first = false;
	}
	/* A members text cut short would not parse: the line goes without. */
	zkp_log_with(ZKP_LOG_INFO, jl < sizeof(json) - 1 ? json : NULL, "%s", text);
}

void job_end(struct zkp_engine *e, struct job *j, enum zkp_job_state state, int code,
	     const char *msg)
{
	struct circuit *c = j->circ;
	if (j->state == ZKP_JOB_QUEUED) {
		jlist_remove(&e->queue[j->prio], j);
		c->queued--;
		emit_queue(e);
	} else {
		jlist_remove(&e->running, j);
	}
	if (j->admitted) {
		e->reserved -= j->ws;
		c->refcount--;
		j->admitted = false;
		/* Memory came free: a waiting job may fit now. */
		pthread_cond_broadcast(&e->work_cond);
	}
	j->state = state;
	j->t_end = eng_now();
	job_span(j, ZKP_NSPANS, j->t_end);
	/* A stage's seconds were read at its end; what the thread did after
	 * it (a snapshot, the hand-over) went on in its last span. The
	 * result's stages are their spans' final sums. A split job's stages
	 * are its partitions' (split_job_ended). */
	for (int s = 0; !j->split && s < ZKP_NSTAGES; s++)
		if (j->stages[s].ran)
			j->stages[s].seconds = 0;
	for (int sp = 0; !j->split && sp < ZKP_NSPANS; sp++) {
		enum zkp_stage s = zkp_span_stage((enum zkp_span)sp);
		if (s < ZKP_NSTAGES && j->stages[s].ran)
			j->stages[s].seconds += j->spans.seconds[sp];
	}
	j->error_code = code;
	engine_test_job_ended(e);
	if (msg)
		snprintf(j->error_message, sizeof(j->error_message), "%s", msg);
	free(j->data);
	j->data = NULL;
	if (j->path)
		close(j->fd);
	free(j->path);
	j->path = NULL;
	switch (state) {
	case ZKP_JOB_DONE:
		j->stage = ZKP_STAGE_DONE;
		if (j->split == SPLIT_POREP) {
			e->porep_done++;
		} else if (j->split == SPLIT_SNAP) {
			e->snap_done++;
		} else {
			e->jobs_done++;
			update_averages(c, j);
		}
		break;
	case ZKP_JOB_FAILED:
		if (j->split == SPLIT_POREP)
			e->porep_failed++;
		else if (j->split == SPLIT_SNAP)
			e->snap_failed++;
		else
			e->jobs_failed++;
		break;
	default:
		if (j->split == SPLIT_POREP)
			e->porep_cancelled++;
		else if (j->split == SPLIT_SNAP)
			e->snap_cancelled++;
		else
			e->jobs_cancelled++;
		break;
	}
	log_summary(j);
	/* Before j joins the history: ending the split job or cancelling
	 * siblings ends other jobs from here. */
	if (j->sp)
		split_job_ended(e, j);
	jlist_push(&e->history, j);
	emit_job(e, j, false, 0);
	history_trim(e);
}

/* ---- admission ---- */

struct job *admit_next(struct zkp_engine *e)
{
	if (e->stopping)
		return NULL;
	uint64_t crit = critical_reserve(e);
	for (int k = 0; k < PRIO_LEVELS; k++) {
		enum zkp_priority p = serve_order[k];
		for (struct job *j = e->queue[p].head; j; j = j->next) {
			struct circuit *c = j->circ;
			if (!c->loaded)
				continue;
			/* A split job's CPU stage reads its input (a C1: at
			 * most 4 bytes per byte of it, porep_c1.h; an update:
			 * about 3 per byte, snap_vanilla.h) and proves nothing
			 * itself. */
			uint64_t ws = j->split ? 4 * (uint64_t)j->len : c->ws + j->len;
			uint64_t need = p == ZKP_PRIO_CRITICAL ? ws : ws + crit;
			if (need < ws || e->reserved > e->budget || need > e->budget - e->reserved)
				continue;
			jlist_remove(&e->queue[p], j);
			c->queued--;
			c->refcount++;
			jlist_push(&e->running, j);
			j->ws = ws;
			j->admitted = true;
			e->reserved += ws;
			j->state = ZKP_JOB_RUNNING;
			j->t_start = eng_now();
			job_span(j, ZKP_SPAN_WITNESS, j->t_start);
			emit_queue(e);
			return j;
		}
	}
	return NULL;
}

/* ---- submit ---- */

/* Gives j (zeroed but for its witness) an id and queues it (lock held,
 * table room made). */
static void job_queue(struct zkp_engine *e, struct job *j, struct circuit *c,
		      enum zkp_priority p)
{
	j->id = e->next_id++;
	j->circ = c;
	j->state = ZKP_JOB_QUEUED;
	j->stage = c->loaded ? ZKP_STAGE_QUEUED : ZKP_STAGE_LOAD;
	j->prio = p;
	j->t_submit = eng_now();
	j->e = e;
	j->span = ZKP_NSPANS;
	job_span(j, c->loaded ? ZKP_SPAN_QUEUED : ZKP_SPAN_LOAD, j->t_submit);
	if (j->request_id[0]) {
		/* The request_id moves to the new job: the one holding it
		 * failed, was cancelled, or had other inputs. */
		struct job *old = request_find(e, j->request_id);
		if (old)
			request_release(e, old);
	}
	tab_link(e->id_tab, e->rid_tab, e->tab_size, j);
	e->n_jobs++;
	jlist_push(&e->queue[j->prio], j);
	c->queued++;
	if (!c->loaded && !c->loading)
		circuit_request_load(e, c);
	emit_job(e, j, false, 0);
	emit_queue(e);
	pthread_cond_broadcast(&e->work_cond);
}

void job_reverified(struct zkp_engine *e, struct job *j, int rc, const char *why)
{
	jlist_remove(&e->reverify, j);
	j->reverify = false;
	j->stage = ZKP_STAGE_DONE;
	if (rc) {
		j->state = ZKP_JOB_FAILED;
		j->error_code = ZKP_ERR_CHECKSUM;
		snprintf(j->error_message, sizeof(j->error_message),
			 "the result restored from the journal does not verify against circuit "
			 "%s's key (%s): set aside; submit the job again under a new request_id",
			 j->circ->cfg.name, why);
		free(j->proof);
		free(j->proof_json);
		free(j->inputs);
		j->proof = NULL;
		j->proof_json = NULL;
		j->inputs = NULL;
		j->proof_len = j->n_inputs = 0;
		zkp_log(ZKP_LOG_WARN, "job %" PRIu64 " (request_id \"%s\"): %s", j->id, j->request_id,
			j->error_message);
	} else {
		j->state = ZKP_JOB_DONE;
	}
	jlist_push(&e->history, j);
	emit_job(e, j, false, 0);
	history_trim(e);
}

struct job *job_enqueue(struct zkp_engine *e, struct circuit *c, enum zkp_priority p)
{
	struct job *j = calloc(1, sizeof(*j));
	if (!j || tab_grow(e)) {
		free(j);
		return NULL;
	}
	job_queue(e, j, c, p);
	return j;
}

/* Opens a witness or C1 path beneath server.witness_dir (witness_path.h).
 * A client learns only that there is no such file there: whether it
 * exists elsewhere, or is a link leading out, goes to the log. */
int engine_open_witness(struct zkp_engine *e, const char *path, int *fd, uint64_t *size,
			zkp_error *err)
{
	char why[256];
	if (e->wdir.fd < 0)
		return zkp_error_set(err, ZKP_ERR_DENIED,
				     "witness paths are refused: server.witness_dir is not set");
	if (zkp_witness_path_open(&e->wdir, path, fd, size, why, sizeof(why)) == 0)
		return 0;
	zkp_log(ZKP_LOG_INFO, "witness path %s refused: %s", path, why);
	return zkp_error_set(err, ZKP_ERR_NOT_FOUND,
			     "%s: no such readable file under server.witness_dir", path);
}

int zkp_engine_submit(zkp_engine *e, zkp_job_spec *spec, uint64_t *job_id, bool *attached,
		      zkp_error *err)
{
	uint8_t *data = spec->data;
	char *path = NULL;
	int path_fd = -1;
	uint64_t path_bytes = 0;
	struct job *j = NULL;
	int rc = 0;
	bool locked = false;

	spec->data = NULL; /* ours from here on, success or not */
	*attached = false;
	*job_id = 0;
	const char *rid = spec->request_id ? spec->request_id : "";
	if (strlen(rid) > ZKP_REQUEST_ID_MAX) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL, "request_id longer than %d bytes",
				   ZKP_REQUEST_ID_MAX);
		goto out;
	}
	if ((unsigned)spec->priority >= PRIO_LEVELS) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL, "unknown priority %d", (int)spec->priority);
		goto out;
	}
	if (!spec->circuit) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL, "no circuit named");
		goto out;
	}
	switch (spec->witness_kind) {
	case ZKP_WITNESS_WTNS:
	case ZKP_WITNESS_RAW:
		if (!data || !spec->len) {
			rc = zkp_error_set(err, ZKP_ERR_INVAL, "empty witness");
			goto out;
		}
		break;
	case ZKP_WITNESS_C1:
		if (!data || !spec->len) {
			rc = zkp_error_set(err, ZKP_ERR_INVAL, "empty C1");
			goto out;
		}
		break;
	case ZKP_WITNESS_SNAP:
		if (!data || !spec->len) {
			rc = zkp_error_set(err, ZKP_ERR_INVAL, "empty SnapDeals update");
			goto out;
		}
		break;
	case ZKP_WITNESS_POST:
		if (!data || !spec->len) {
			rc = zkp_error_set(err, ZKP_ERR_INVAL, "empty PoSt job");
			goto out;
		}
		break;
	case ZKP_WITNESS_PATH:
	case ZKP_WITNESS_C1_PATH:
		if (!spec->path || !*spec->path) {
			rc = zkp_error_set(err, ZKP_ERR_INVAL, "empty %s path",
					   spec->witness_kind == ZKP_WITNESS_PATH ? "witness" : "C1");
			goto out;
		}
		break;
	default:
		rc = zkp_error_set(err, ZKP_ERR_INVAL, "unknown witness kind %d",
				   (int)spec->witness_kind);
		goto out;
	}

	bool c1 = spec->witness_kind == ZKP_WITNESS_C1 ||
		  spec->witness_kind == ZKP_WITNESS_C1_PATH;
	if (spec->witness_kind == ZKP_WITNESS_PATH || spec->witness_kind == ZKP_WITNESS_C1_PATH) {
		/* Opening needs no engine state: done before locking. */
		rc = engine_open_witness(e, spec->path, &path_fd, &path_bytes, err);
		if (rc)
			goto out;
		path = strdup(spec->path);
		if (!path) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory queueing a job");
			goto out;
		}
	}

	/* The inputs' digest (engine_requests.c), before locking: an
	 * earlier job answers only a request with the same inputs. */
	uint8_t digest[ZKP_INPUT_DIGEST_BYTES];
	if (rid[0] && spec->input_digest) {
		memcpy(digest, spec->input_digest, sizeof(digest));
	} else if (rid[0]) {
		int drc = path ? request_digest_file(digest, spec->circuit, spec->witness_kind,
						     path, path_fd) :
				 request_digest_bytes(digest, spec->circuit, spec->witness_kind,
						      data, spec->len);
		if (drc) {
			rc = zkp_error_set(err, drc, "cannot take the digest of the job's inputs");
			goto out;
		}
	}

	pthread_mutex_lock(&e->lock);
	locked = true;
	/* An earlier job with this request_id and the same inputs answers:
	 * the client is retrying the same request. One that failed or was
	 * cancelled, or had other inputs, gives its request_id up to a new
	 * job (job_queue). */
	if (rid[0]) {
		struct job *old = request_attach(e, rid, digest);
		if (old) {
			*job_id = old->id;
			*attached = true;
			goto out;
		}
	}
	if (!e->accepting) {
		rc = zkp_error_set(err, ZKP_ERR_SHUTDOWN, "the daemon is shutting down");
		goto out;
	}
	struct circuit *c = circuit_find(e, spec->circuit);
	if (!c) {
		rc = circuit_not_found(e, spec->circuit, err);
		goto out;
	}
	bool snap = spec->witness_kind == ZKP_WITNESS_SNAP;
	if (snap && !c->cfg.snap_sector_size) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL,
				   "circuit \"%s\" is not a SnapDeals circuit (no snap_sector_size): "
				   "it takes no sector update",
				   spec->circuit);
		goto out;
	}
	bool post = spec->witness_kind == ZKP_WITNESS_POST;
	bool post_circuit = c->cfg.window_post_sector_size || c->cfg.winning_post_sector_size;
	if (post != post_circuit) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL,
				   post ? "circuit \"%s\" is not a PoSt circuit (no window_post_sector_size "
					  "or winning_post_sector_size): it takes no PoSt vanilla proofs" :
					  "circuit \"%s\" is a PoSt circuit: it takes PoSt vanilla proofs, "
					  "not a witness",
				   spec->circuit);
		goto out;
	}
	if (!snap && !c1 && c->cfg.snap_sector_size) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL,
				   "circuit \"%s\" is a SnapDeals circuit (snap_sector_size): it takes "
				   "a sector update, not a witness",
				   spec->circuit);
		goto out;
	}
	if (c1 && !c->cfg.porep_sector_size) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL,
				   "circuit \"%s\" is not a PoRep circuit (no porep_sector_size): it "
				   "takes a witness, not a C1",
				   spec->circuit);
		goto out;
	}
	size_t waiting = 0;
	for (int p = 0; p < PRIO_LEVELS; p++)
		waiting += e->queue[p].n;
	if (waiting >= e->cfg.max_queued) {
		rc = zkp_error_set(err, ZKP_ERR_LIMIT, "%zu jobs are queued (server.max_queued)",
				   waiting);
		goto out;
	}
	j = calloc(1, sizeof(*j));
	if (!j || tab_grow(e)) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory queueing a job");
		goto out;
	}
	snprintf(j->request_id, sizeof(j->request_id), "%s", rid);
	if (rid[0]) {
		memcpy(j->digest, digest, sizeof(j->digest));
		j->has_digest = true;
	}
	j->want_json = spec->want_json && !c1 && !snap;
	j->split = c1 ? SPLIT_POREP : snap ? SPLIT_SNAP : SPLIT_NONE;
	j->post = post;
	j->data = data;
	j->len = data ? spec->len : (size_t)path_bytes;
	j->path = path;
	j->fd = path_fd;
	data = NULL;
	path = NULL;
	path_fd = -1;
	/* WinningPoSt has a block's deadline: the default priority means
	 * CRITICAL for it. */
	job_queue(e, j, c,
		  c->cfg.winning_post_sector_size && spec->priority == ZKP_PRIO_NORMAL ?
			  ZKP_PRIO_CRITICAL :
			  spec->priority);
	*job_id = j->id;
	j = NULL;
out:
	if (locked)
		unlock_notify(e);
	free(j);
	free(data);
	free(path);
	if (path_fd >= 0)
		close(path_fd);
	return rc;
}

/* ---- cancel ---- */

/* Cancels j (lock held). Returns the state afterwards (j itself may be
 * gone: a history of 0 forgets ended jobs at once). */
static enum zkp_job_state cancel_locked(struct zkp_engine *e, struct job *j)
{
	if (j->reverify) /* ended long ago: nothing to stop */
		return j->state;
	if (j->split && j->sp && j->state == ZKP_JOB_RUNNING) {
		/* Split: no thread holds it; its partitions are the work. */
		split_cancel(e, j);
		return ZKP_JOB_CANCELLED;
	}
	if (j->state == ZKP_JOB_QUEUED) {
		job_end(e, j, ZKP_JOB_CANCELLED, ZKP_ERR_CANCELLED, "cancelled while queued");
		return ZKP_JOB_CANCELLED;
	} else if (j->state == ZKP_JOB_RUNNING && !j->cancel) {
		j->cancel = true;
		/* A thread waiting to hand the job on checks the flag. */
		pipelines_wake(e);
	}
	return j->state;
}

int zkp_engine_cancel(zkp_engine *e, uint64_t job_id, enum zkp_job_state *state)
{
	uint8_t *data = NULL;
	int rc = 0;
	pthread_mutex_lock(&e->lock);
	struct job *j = find_job(e, job_id);
	if (!j) {
		rc = ZKP_ERR_NOT_FOUND;
		goto out;
	}
	if (j->state == ZKP_JOB_QUEUED) {
		/* Freed after unlocking: a large witness takes a while. */
		data = j->data;
		j->data = NULL;
	}
	enum zkp_job_state s = cancel_locked(e, j);
	if (state)
		*state = s;
out:
	unlock_notify(e);
	free(data);
	return rc;
}

void zkp_engine_drain(zkp_engine *e)
{
	pthread_mutex_lock(&e->lock);
	e->accepting = false;
	for (int p = 0; p < PRIO_LEVELS; p++)
		while (e->queue[p].head)
			cancel_locked(e, e->queue[p].head);
	unlock_notify(e);
}

size_t zkp_engine_running(zkp_engine *e)
{
	pthread_mutex_lock(&e->lock);
	size_t n = e->running.n;
	pthread_mutex_unlock(&e->lock);
	return n;
}

enum zkp_job_state job_cancel(struct zkp_engine *e, struct job *j)
{
	return cancel_locked(e, j);
}

static void cancel_all_locked(struct zkp_engine *e)
{
	for (int p = 0; p < PRIO_LEVELS; p++)
		while (e->queue[p].head)
			cancel_locked(e, e->queue[p].head);
	/* Cancelling a split sector job ends it (leaving this list) and ends
	 * its queued partitions; running ones are only flagged. */
	struct job *next;
	for (struct job *j = e->running.head; j; j = next) {
		next = j->next;
		cancel_locked(e, j);
	}
}

void zkp_engine_cancel_all(zkp_engine *e)
{
	pthread_mutex_lock(&e->lock);
	cancel_all_locked(e);
	unlock_notify(e);
}

/* ---- job info ---- */

static uint32_t queue_position(const struct zkp_engine *e, const struct job *j)
{
	uint32_t pos = 1;
	for (int k = 0; k < PRIO_LEVELS; k++) {
		enum zkp_priority p = serve_order[k];
		if (p == j->prio) {
			for (const struct job *q = e->queue[p].head; q && q != j; q = q->next)
				pos++;
			return pos;
		}
		pos += (uint32_t)e->queue[p].n;
	}
	return 0;
}

uint32_t job_percent(const struct job *j, double now)
{
	if (j->state == ZKP_JOB_DONE)
		return 100;
	if (j->state == ZKP_JOB_QUEUED)
		return 0;
	const struct circuit *c = j->circ;
	double w[ZKP_NSTAGES], total = 0, done = 0;
	for (int s = ZKP_STAGE_WITNESS; s <= ZKP_STAGE_VERIFY; s++) {
		w[s] = c->have_avg ? c->avg[s] : default_weight[s];
		total += w[s];
	}
	if (total <= 0)
		return 0;
	for (int s = ZKP_STAGE_WITNESS; s <= ZKP_STAGE_VERIFY; s++)
		if (j->stages[s].ran)
			done += w[s];
	/* Within the running stage, elapsed time over the expected time
	 * (known once a job of the circuit finished), short of its end. */
	int cur = -1;
	for (int s = ZKP_STAGE_WITNESS; s <= ZKP_STAGE_VERIFY; s++)
		if (!j->stages[s].ran) {
			cur = s;
			break;
		}
	if (j->state == ZKP_JOB_RUNNING && cur >= 0 && c->have_avg && w[cur] > 0 &&
	    j->t_stage > 0) {
		double f = (now - j->t_stage) / w[cur];
		done += w[cur] * (f < 0.9 ? f : 0.9);
	}
	double pct = 100.0 * done / total;
	return pct >= 99.0 ? 99 : (uint32_t)pct;
}

/* pos: the job's queue position when the caller knows it, else 0. */
static void info_fill(struct zkp_engine *e, const struct job *j, zkp_job_info *r,
		      double now, uint32_t pos)
{
	memset(r, 0, sizeof(*r));
	r->job_id = j->id;
	r->state = j->state;
	r->stage = j->stage;
	r->priority = j->prio;
	if (j->state == ZKP_JOB_QUEUED)
		r->queue_position = pos ? pos : queue_position(e, j);
	if (j->split && j->sp && j->state == ZKP_JOB_RUNNING)
		split_progress(e, j, now, &r->percent);
	else
		r->percent = job_percent(j, now);
	r->partitions = j->partitions;
	r->partitions_done = j->partitions_done;
	r->partition = j->partition;
	r->parent_job_id = j->split_id;
	double end = j->t_end > 0 ? j->t_end : now;
	r->elapsed = end - j->t_submit;
	r->queue_seconds = (j->t_start > 0 ? j->t_start : end) - j->t_submit;
	r->total_seconds = j->t_end > 0 ? j->t_end - j->t_submit : 0;
	snprintf(r->circuit, sizeof(r->circuit), "%s", j->circ->cfg.name);
	memcpy(r->request_id, j->request_id, sizeof(r->request_id));
	r->has_digest = j->has_digest;
	memcpy(r->input_digest, j->digest, sizeof(r->input_digest));
	memcpy(r->stages, j->stages, sizeof(r->stages));
	spans_now(&r->spans, j, end);
	if (j->dev)
		snprintf(r->device, sizeof(r->device), "%s", j->dev->name);
	r->device_busy_known = j->busy_known;
	r->device_busy_seconds = j->busy;
	r->error_code = j->error_code;
	memcpy(r->error_message, j->error_message, sizeof(r->error_message));
}

int zkp_engine_job_info(zkp_engine *e, uint64_t job_id, zkp_job_info *ret)
{
	int rc = 0;
	memset(ret, 0, sizeof(*ret));
	pthread_mutex_lock(&e->lock);
	struct job *j = find_job(e, job_id);
	if (!j) {
		rc = ZKP_ERR_NOT_FOUND;
		goto out;
	}
	info_fill(e, j, ret, eng_now(), 0);
	if (j->parts) {
		ret->parts = malloc(j->partitions * sizeof(*ret->parts));
		if (!ret->parts) {
			rc = ZKP_ERR_NOMEM;
			goto out;
		}
		memcpy(ret->parts, j->parts, j->partitions * sizeof(*ret->parts));
	}
	if (j->state == ZKP_JOB_DONE) {
		if (j->proof_len) {
			ret->proof = malloc(j->proof_len);
			if (!ret->proof) {
				rc = ZKP_ERR_NOMEM;
				goto out;
			}
			memcpy(ret->proof, j->proof, j->proof_len);
			ret->proof_len = j->proof_len;
		}
		if (j->proof_json) {
			ret->proof_json = strdup(j->proof_json);
			if (!ret->proof_json) {
				rc = ZKP_ERR_NOMEM;
				goto out;
			}
		}
		if (j->n_inputs) {
			ret->inputs = malloc(j->n_inputs * 32);
			if (!ret->inputs) {
				rc = ZKP_ERR_NOMEM;
				goto out;
			}
			memcpy(ret->inputs, j->inputs, j->n_inputs * 32);
			ret->n_inputs = j->n_inputs;
		}
	}
out:
	pthread_mutex_unlock(&e->lock);
	if (rc)
		zkp_job_info_release(ret);
	return rc;
}

void zkp_job_info_release(zkp_job_info *info)
{
	free(info->proof);
	info->proof = NULL;
	info->proof_len = 0;
	free(info->proof_json);
	free(info->inputs);
	info->proof_json = NULL;
	info->inputs = NULL;
	info->n_inputs = 0;
	free(info->parts);
	info->parts = NULL;
}

int zkp_engine_restore_result(zkp_engine *e, const zkp_job_info *info, uint64_t *job_id,
			      bool *verifying, zkp_error *err)
{
	struct job *j = NULL;
	int rc = 0;
	*verifying = false;
	bool ended = info->state == ZKP_JOB_DONE || info->state == ZKP_JOB_FAILED ||
		     info->state == ZKP_JOB_CANCELLED;
	if (!ended || !info->request_id[0] || (unsigned)info->priority >= PRIO_LEVELS)
		return zkp_error_set(err, ZKP_ERR_INVAL, "not a finished job with a request_id");
	j = calloc(1, sizeof(*j));
	if (!j)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory restoring a job");
	if (info->proof_len && !(j->proof = malloc(info->proof_len))) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory restoring a job");
		goto out;
	}
	if (info->proof_len) {
		memcpy(j->proof, info->proof, info->proof_len);
		j->proof_len = info->proof_len;
		j->partitions = j->partitions_done = info->partitions;
	}
	if (info->proof_json && !(j->proof_json = strdup(info->proof_json))) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory restoring a job");
		goto out;
	}
	if (info->n_inputs) {
		j->inputs = malloc(info->n_inputs * 32);
		if (!j->inputs) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory restoring a job");
			goto out;
		}
		memcpy(j->inputs, info->inputs, info->n_inputs * 32);
		j->n_inputs = info->n_inputs;
	}
	pthread_mutex_lock(&e->lock);
	struct circuit *c = circuit_find(e, info->circuit);
	if (!c)
		rc = zkp_error_set(err, ZKP_ERR_NOT_FOUND, "circuit \"%s\" is not configured",
				   info->circuit);
	else if (request_find(e, info->request_id))
		rc = zkp_error_set(err, ZKP_ERR_BUSY, "a job already has request_id \"%s\"",
				   info->request_id);
	else if (tab_grow(e))
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory restoring a job");
	if (!rc) {
		/* Times as seen from now: the job ended at the restart. */
		double now = eng_now();
		j->id = e->next_id++;
		j->circ = c;
		/* A split job's kind is its circuit's. */
		if (j->proof_len && info->partitions > 0)
			j->split = c->cfg.snap_sector_size ? SPLIT_SNAP : SPLIT_POREP;
		j->state = info->state;
		j->stage = info->state == ZKP_JOB_DONE ? ZKP_STAGE_DONE : ZKP_STAGE_QUEUED;
		j->prio = info->priority;
		memcpy(j->request_id, info->request_id, sizeof(j->request_id));
		j->has_digest = info->has_digest;
		memcpy(j->digest, info->input_digest, sizeof(j->digest));
		j->want_json = info->proof_json != NULL;
		j->t_end = now;
		j->t_submit = now - info->total_seconds;
		j->t_start = j->t_submit + info->queue_seconds;
		j->error_code = info->error_code;
		memcpy(j->error_message, info->error_message, sizeof(j->error_message));
		j->restored = true;
		j->span = ZKP_NSPANS; /* its spans were not kept */
		tab_link(e->id_tab, e->rid_tab, e->tab_size, j);
		e->n_jobs++;
		*job_id = j->id;
		if (j->state == ZKP_JOB_DONE && j->n_inputs && !j->split &&
		    j->proof_len == ZKP_GROTH16_PROOF_BYTES) {
			/* Not returned until its proof verifies again: the
			 * loader does that once the circuit is loaded. */
			j->state = ZKP_JOB_RUNNING;
			j->stage = ZKP_STAGE_VERIFY;
			j->reverify = true;
			jlist_push(&e->reverify, j);
			c->want_load = true;
			pthread_cond_broadcast(&e->load_cond);
			*verifying = true;
		} else {
			jlist_push(&e->history, j);
			history_trim(e);
		}
		j = NULL;
	}
	pthread_mutex_unlock(&e->lock);
out:
	if (j)
		job_free(j);
	return rc;
}

/* ---- status ---- */

int zkp_engine_get_status(zkp_engine *e, zkp_engine_status *ret)
{
	int rc = 0;
	memset(ret, 0, sizeof(*ret));
	pthread_mutex_lock(&e->lock);
	double now = eng_now();
	ret->uptime = now - e->t0;
	ret->accepting = e->accepting;
	size_t n_jobs = e->running.n;
	for (int p = 0; p < PRIO_LEVELS; p++) {
		ret->queued[p] = (uint32_t)e->queue[p].n;
		n_jobs += e->queue[p].n;
	}
	ret->pipelines = calloc(e->n_pipelines ? e->n_pipelines : 1, sizeof(*ret->pipelines));
	ret->circuits = calloc(e->n_circuits ? e->n_circuits : 1, sizeof(*ret->circuits));
	ret->jobs = calloc(n_jobs ? n_jobs : 1, sizeof(*ret->jobs));
	ret->devices = calloc(e->n_devs ? e->n_devs : 1, sizeof(*ret->devices));
	if (!ret->pipelines || !ret->circuits || !ret->jobs || !ret->devices) {
		rc = ZKP_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < e->n_pipelines; i++) {
		const struct pipeline *pl = &e->pipelines[i];
		zkp_pipeline_info *pi = &ret->pipelines[i];
		pi->id = pl->id;
		snprintf(pi->device, sizeof(pi->device), "%s", pl->dev->name);
		pi->cpu_job = pl->cpu_job;
		pi->device_job = pl->device_job;
		pi->finalize_job = pl->finalize_job;
		pi->cpu_stage = pl->cpu_stage;
		pi->depth_used = (uint32_t)pl->devq_n;
		pi->proofs = pl->proofs;
	}
	ret->n_pipelines = e->n_pipelines;
	for (size_t i = 0; i < e->n_devs; i++) {
		const struct device *d = &e->devs[i];
		zkp_device_info *di = &ret->devices[i];
		snprintf(di->name, sizeof(di->name), "%s", d->name);
		snprintf(di->kind, sizeof(di->kind), "%s", d->kind);
		di->pipelines = (uint32_t)(e->n_pipelines / e->n_devs);
		di->faults = d->faults;
		di->cpu_fallbacks = d->fallbacks;
		di->memory_limit = d->mem_cap;
		di->memory_reserved = d->mem_cap ? devmem_reserved(d) : 0;
		di->memory_peak = d->mem_peak;
		di->memory_waits = d->mem_waits;
		double busy = 0;
		if (zkp_backend_busy_seconds(d->be, &busy) == 0) {
			di->busy_known = true;
			di->busy_seconds = busy;
			di->busy_fraction = now > d->t_made ? busy / (now - d->t_made) : 0;
		}
		/* Any device that is not a GPU proves in host memory: the
		 * admission budget and what the admitted jobs reserve. */
		di->memory_bytes = e->budget;
		di->memory_used_bytes = e->reserved;
#ifdef ZKPD_HAVE_CUDA
		if (d->gpu >= 0) {
			zkp_backend *cb = d->inner ? d->inner : d->be;
			zkp_backend_cuda_mem_info(cb, &di->memory_bytes, &di->memory_used_bytes);
			di->failed = zkp_backend_cuda_failed(cb);
		}
#endif
	}
	ret->n_devices = e->n_devs;
	for (size_t i = 0; i < e->n_circuits; i++) {
		const struct circuit *c = &e->circuits[i];
		zkp_circuit_info *ci = &ret->circuits[i];
		snprintf(ci->name, sizeof(ci->name), "%s", c->cfg.name);
		ci->loaded = c->loaded;
		ci->loading = c->loading;
		ci->insecure_dev_key = c->insecure;
		if (c->load_rc)
			snprintf(ci->load_error, sizeof(ci->load_error), "%s: %s",
				 zkp_err_name(c->load_rc), c->load_err.msg);
		ci->key_format = c->cfg.key_format;
		ci->porep_sector_bytes = c->cfg.porep_sector_size;
		ci->snap_sector_bytes = c->cfg.snap_sector_size;
		ci->window_post_sector_bytes = c->cfg.window_post_sector_size;
		ci->winning_post_sector_bytes = c->cfg.winning_post_sector_size;
		ci->refcount = c->refcount;
		ci->queued = c->queued;
		if (c->loaded) {
			const zkp_pce_dims *d = zkp_pce_get_dims(c->pce);
			ci->constraints = d->n_constraints;
			ci->domain = (uint64_t)1 << d->domain_log2;
			ci->inputs = d->n_inputs - 1;
			ci->aux = d->n_aux;
			ci->pce_bytes = zkp_pce_mapped_bytes(c->pce);
			ci->key_bytes = c->pk.mem_bytes;
			ci->working_set = c->ws;
		}
	}
	ret->n_circuits = e->n_circuits;
	size_t k = 0;
	/* Queued jobs in serving order, so positions count up (walking the
	 * queues once per job would be quadratic under the lock). */
	for (int q = 0; q < PRIO_LEVELS; q++)
		for (const struct job *j = e->queue[serve_order[q]].head; j; j = j->next) {
			info_fill(e, j, &ret->jobs[k], now, (uint32_t)(k + 1));
			k++;
		}
	for (const struct job *j = e->running.head; j; j = j->next)
		info_fill(e, j, &ret->jobs[k++], now, 0);
	ret->n_jobs = k;
	size_t first = (e->snap_next + ZKP_ENGINE_SNAPSHOTS - e->n_snaps) % ZKP_ENGINE_SNAPSHOTS;
	for (size_t i = 0; i < e->n_snaps; i++)
		ret->snaps[i] = e->snaps[(first + i) % ZKP_ENGINE_SNAPSHOTS];
	ret->n_snaps = e->n_snaps;
	ret->budget = e->budget;
	ret->reserved = e->reserved;
	ret->critical_reserve = critical_reserve(e);
	ret->jobs_done = e->jobs_done;
	ret->jobs_failed = e->jobs_failed;
	ret->jobs_cancelled = e->jobs_cancelled;
	ret->porep_done = e->porep_done;
	ret->porep_failed = e->porep_failed;
	ret->porep_cancelled = e->porep_cancelled;
	ret->snap_done = e->snap_done;
	ret->snap_failed = e->snap_failed;
	ret->snap_cancelled = e->snap_cancelled;
	ret->requests_reused = e->requests_reused;
	memcpy(ret->stage_count, e->stage_count, sizeof(ret->stage_count));
	memcpy(ret->stage_seconds, e->stage_seconds, sizeof(ret->stage_seconds));
	memcpy(ret->stage_buckets, e->stage_buckets, sizeof(ret->stage_buckets));
out:
	pthread_mutex_unlock(&e->lock);
	if (rc)
		zkp_engine_status_release(ret);
	return rc;
}

void zkp_engine_status_release(zkp_engine_status *s)
{
	free(s->pipelines);
	free(s->devices);
	free(s->circuits);
	free(s->jobs);
	s->pipelines = NULL;
	s->devices = NULL;
	s->n_devices = 0;
	s->circuits = NULL;
	s->jobs = NULL;
	s->n_pipelines = s->n_circuits = s->n_jobs = 0;
}

/* ---- lifecycle ---- */

static char *dup_or_null(const char *s, bool *fail)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

static void config_copy_release(zkp_config *c)
{
	free(c->witness_dir);
	free(c->devices);
	free(c->source);
	for (size_t i = 0; i < c->n_circuits; i++) {
		free(c->circuits[i].pce);
		free(c->circuits[i].key);
	}
	free(c->circuits);
	memset(c, 0, sizeof(*c));
}

/* The engine keeps its own copy: the caller's config may go away. */
static int config_copy(zkp_config *dst, const zkp_config *src)
{
	bool fail = false;
	*dst = *src;
	dst->witness_dir = dup_or_null(src->witness_dir, &fail);
	dst->devices = dup_or_null(src->devices, &fail);
	dst->source = dup_or_null(src->source, &fail);
	dst->circuits = NULL;
	dst->n_circuits = 0;
	if (src->n_circuits) {
		dst->circuits = calloc(src->n_circuits, sizeof(*dst->circuits));
		if (!dst->circuits) {
			fail = true;
		} else {
			dst->n_circuits = src->n_circuits;
			for (size_t i = 0; i < src->n_circuits; i++) {
				dst->circuits[i] = src->circuits[i];
				dst->circuits[i].pce = dup_or_null(src->circuits[i].pce, &fail);
				dst->circuits[i].key = dup_or_null(src->circuits[i].key, &fail);
			}
		}
	}
	if (fail) {
		config_copy_release(dst);
		return ZKP_ERR_NOMEM;
	}
	return 0;
}

/* MemTotal from /proc/meminfo, in bytes (0 when unreadable). */
static uint64_t mem_total(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	uint64_t kib = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %" SCNu64 " kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

int zkp_engine_new(zkp_engine **ret, const zkp_config *cfg, zkp_engine_notify_fn notify,
		   void *notify_arg, zkp_error *err)
{
	struct zkp_engine *e = NULL;
	int rc;
	*ret = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory creating the engine");
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->work_cond, NULL);
	pthread_cond_init(&e->load_cond, NULL);
	e->notify = notify;
	e->notify_arg = notify_arg;
	e->t0 = eng_now();
	e->next_id = 1;
	e->accepting = true;
	e->wdir.fd = -1;
	rc = config_copy(&e->cfg, cfg);
	if (rc) {
		zkp_error_set(err, rc, "out of memory copying the configuration");
		goto out;
	}
	if (e->cfg.witness_dir && *e->cfg.witness_dir &&
	    (rc = zkp_witness_dir_open(&e->wdir, e->cfg.witness_dir, err)))
		goto out;
	e->tab_size = 64;
	e->id_tab = calloc(e->tab_size, sizeof(*e->id_tab));
	e->rid_tab = calloc(e->tab_size, sizeof(*e->rid_tab));
	if (!e->id_tab || !e->rid_tab) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory creating the job table");
		goto out;
	}

	if (e->cfg.memory_budget) {
		e->budget = e->cfg.memory_budget;
	} else {
		uint64_t total = mem_total();
		if (total <= e->cfg.memory_reserve) {
			rc = zkp_error_set(err, ZKP_ERR_CONFIG,
					   "memory.reserve (%" PRIu64 " bytes) leaves no budget: "
					   "MemTotal is %" PRIu64 " bytes",
					   e->cfg.memory_reserve, total);
			goto out;
		}
		e->budget = total - e->cfg.memory_reserve;
	}
	e->critical_reserve_cfg = e->cfg.critical_reserve;

	unsigned threads = e->cfg.synthesis_threads;
	if (!threads)
		threads = zkp_pool_default_threads();
	/* The pool's callers work too, so threads - 1 workers make threads. */
	rc = zkp_pool_new(&e->pool, threads - 1);
	if (rc) {
		zkp_error_set(err, rc, "cannot start %u synthesis threads", threads);
		goto out;
	}
	e->threads = zkp_pool_threads(e->pool);

	rc = circuits_init(e);
	if (rc) {
		zkp_error_set(err, rc, "out of memory creating the circuit table");
		goto out;
	}
	rc = pipelines_init(e, err);
	if (rc)
		goto out;
	rc = loader_start(e);
	if (!rc && e->cfg.purge_between_stages)
		rc = purger_start(e);
	if (!rc)
		rc = pipelines_start(e);
	if (rc) {
		zkp_error_set(err, rc, "cannot start the engine's threads");
		goto out;
	}
	char names[256] = "";
	size_t nl = 0;
	for (size_t i = 0; i < e->n_devs && nl < sizeof(names); i++)
		nl += (size_t)snprintf(names + nl, sizeof(names) - nl, "%s%s", i ? ", " : "",
				       e->devs[i].name);
	zkp_log(ZKP_LOG_INFO,
		"engine: %zu pipelines on %s, %u threads, memory budget %" PRIu64 " bytes%s",
		e->n_pipelines, names, e->threads, e->budget,
		e->cfg.fallback_cpu ? ", CPU fallback after device faults" : "");
	*ret = e;
	e = NULL;
out:
	zkp_engine_free(e);
	return rc;
}

void zkp_engine_set_free_hook(zkp_engine *e, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&e->lock);
	e->free_hook = fn;
	e->free_hook_arg = arg;
	pthread_mutex_unlock(&e->lock);
}

void zkp_engine_free(zkp_engine *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	void (*hook)(void *) = e->free_hook;
	void *hook_arg = e->free_hook_arg;
	e->free_hook = NULL;
	pthread_mutex_unlock(&e->lock);
	if (hook)
		hook(hook_arg);
	/* Stopping and flagging every job in one critical section: a thread
	 * that hands a job on checks its flag under the lock, so from here on
	 * nothing enters a pipeline queue whose consumer may have stopped. */
	pthread_mutex_lock(&e->lock);
	e->freeing = true;
	e->stopping = true;
	e->accepting = false;
	cancel_all_locked(e);
	pthread_cond_broadcast(&e->work_cond);
	pthread_cond_broadcast(&e->load_cond);
	if (e->pipelines)
		pipelines_wake(e);
	pthread_mutex_unlock(&e->lock);
	pipelines_join(e);
	loader_join(e);
	purger_join(e);

	/* Every thread is gone: no lock needed below. Each job ended before
	 * its thread stopped, so only the history holds jobs; the other lists
	 * are emptied too so that no path can leak one. */
	struct jlist *lists[] = { &e->history, &e->running, &e->reverify, &e->queue[0], &e->queue[1],
				  &e->queue[2], &e->queue[3] };
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		while (lists[i]->head) {
			struct job *j = lists[i]->head;
			jlist_remove(lists[i], j);
			job_free(j);
		}
	pipelines_release(e);
	circuits_release(e);
	zkp_pool_free(e->pool);
	free(e->id_tab);
	free(e->rid_tab);
	free(e->events);
	zkp_witness_dir_close(&e->wdir);
	config_copy_release(&e->cfg);
	pthread_cond_destroy(&e->work_cond);
	pthread_cond_destroy(&e->load_cond);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
