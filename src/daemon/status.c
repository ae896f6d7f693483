/*
 * The Status answer. Every node and string of the tree is allocated here
 * and freed by zkp_status_free walking the same tree, so nothing points
 * into the engine's copy once it is released.
 */
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "zkpd/mem.h"

static char *dup(const char *s)
{
	return strdup(s ? s : "");
}

static void circuit_fill(Zkpd__V1__CircuitStatus *cs, const zkp_circuit_info *ci, bool *ok)
{
	zkpd__v1__circuit_status__init(cs);
	cs->name = dup(ci->name);
	cs->key_format = dup(ci->key_format == ZKP_KEY_FORMAT_ZKEY ? "zkey" : "bellman");
	cs->load_error = dup(ci->load_error);
	if (!cs->name || !cs->key_format || !cs->load_error)
		*ok = false;
	cs->loaded = ci->loaded;
	cs->constraints = ci->constraints;
	cs->domain = ci->domain;
	cs->inputs = ci->inputs;
	cs->aux = ci->aux;
	cs->pce_bytes = ci->pce_bytes;
	cs->key_bytes = ci->key_bytes;
	cs->refcount = ci->refcount;
	cs->working_set_bytes = ci->working_set;
	cs->insecure_dev_key = ci->insecure_dev_key;
	cs->porep_sector_bytes = ci->porep_sector_bytes;
	cs->snap_sector_bytes = ci->snap_sector_bytes;
	cs->window_post_sector_bytes = ci->window_post_sector_bytes;
	cs->winning_post_sector_bytes = ci->winning_post_sector_bytes;
}

static void circuit_clear(Zkpd__V1__CircuitStatus *cs)
{
	if (cs->name != protobuf_c_empty_string)
		free(cs->name);
	if (cs->key_format != protobuf_c_empty_string)
		free(cs->key_format);
	if (cs->load_error && cs->load_error != protobuf_c_empty_string)
		free(cs->load_error);
}

void zkp_status_circuit_free(Zkpd__V1__CircuitStatus *c)
{
	if (!c)
		return;
	circuit_clear(c);
	free(c);
}

int zkp_status_circuit(Zkpd__V1__CircuitStatus **ret, zkp_engine *e, const char *name)
{
	zkp_engine_status st;
	*ret = NULL;
	int rc = zkp_engine_get_status(e, &st);
	if (rc)
		return rc;
	rc = ZKP_ERR_NOT_FOUND;
	for (size_t i = 0; i < st.n_circuits; i++) {
		if (strcmp(st.circuits[i].name, name))
			continue;
		bool ok = true;
		Zkpd__V1__CircuitStatus *cs = calloc(1, sizeof(*cs));
		if (!cs) {
			rc = ZKP_ERR_NOMEM;
			break;
		}
		circuit_fill(cs, &st.circuits[i], &ok);
		if (!ok) {
			zkp_status_circuit_free(cs);
			rc = ZKP_ERR_NOMEM;
			break;
		}
		*ret = cs;
		rc = 0;
		break;
	}
	zkp_engine_status_release(&st);
	return rc;
}

void zkp_status_free(Zkpd__V1__StatusResponse *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_queues; i++)
		free(s->queues[i]);
	free(s->queues);
	for (size_t i = 0; i < s->n_pipelines; i++) {
		if (s->pipelines[i] && s->pipelines[i]->device != protobuf_c_empty_string)
			free(s->pipelines[i]->device);
		free(s->pipelines[i]);
	}
	free(s->pipelines);
	for (size_t i = 0; i < s->n_devices; i++) {
		if (s->devices[i]) {
			if (s->devices[i]->name != protobuf_c_empty_string)
				free(s->devices[i]->name);
			if (s->devices[i]->kind != protobuf_c_empty_string)
				free(s->devices[i]->kind);
		}
		free(s->devices[i]);
	}
	free(s->devices);
	for (size_t i = 0; i < s->n_circuits; i++)
		zkp_status_circuit_free(s->circuits[i]);
	free(s->circuits);
	if (s->memory) {
		for (size_t i = 0; i < s->memory->n_counters; i++)
			free(s->memory->counters[i]);
		free(s->memory->counters);
		free(s->memory);
	}
	for (size_t i = 0; i < s->n_jobs; i++) {
		if (s->jobs[i]) {
			if (s->jobs[i]->circuit != protobuf_c_empty_string)
				free(s->jobs[i]->circuit);
			if (s->jobs[i]->request_id != protobuf_c_empty_string)
				free(s->jobs[i]->request_id);
			/* One block: the spans and their pointers (spans_fill). */
			free(s->jobs[i]->spans);
		}
		free(s->jobs[i]);
	}
	free(s->jobs);
	for (size_t i = 0; i < s->n_snapshots; i++)
		free(s->snapshots[i]);
	free(s->snapshots);
	free(s);
}

/* The spans a job entered so far, in enum order, in one block (their
 * pointers first, then the nodes; names are static strings). */
static void spans_fill(Zkpd__V1__JobSummary *j, const zkp_span_times *t, bool *ok)
{
	size_t n = 0;
	for (int k = 0; k < ZKP_NSPANS; k++)
		n += (t->entered >> k) & 1;
	if (!n)
		return;
	Zkpd__V1__Span **p = malloc(n * (sizeof(*p) + sizeof(Zkpd__V1__Span)));
	if (!p) {
		*ok = false;
		return;
	}
	Zkpd__V1__Span *sp = (Zkpd__V1__Span *)(p + n);
	size_t i = 0;
	for (int k = 0; k < ZKP_NSPANS; k++) {
		if (!(t->entered & (1u << k)))
			continue;
		zkpd__v1__span__init(&sp[i]);
		sp[i].name = (char *)zkp_span_name((enum zkp_span)k);
		sp[i].seconds = t->seconds[k];
		p[i] = &sp[i];
		i++;
	}
	j->spans = p;
	j->n_spans = n;
}

/* calloc of n pointers to n zero-initialised nodes of size sz each. */
static void **nodes(size_t n, size_t sz, bool *ok)
{
	if (!n)
		return NULL;
	void **p = calloc(n, sizeof(void *));
	if (!p) {
		*ok = false;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		p[i] = calloc(1, sz);
		if (!p[i])
			*ok = false;
	}
	return p;
}

int zkp_status_build(Zkpd__V1__StatusResponse **ret, zkp_engine *e,
		     const zkp_server_stats *stats, double start)
{
	zkp_engine_status st;
	zkp_mem_snap snap;
	bool ok = true;
	*ret = NULL;
	int rc = zkp_engine_get_status(e, &st);
	if (rc)
		return rc;
	zkp_mem_snapshot("status", &snap);

	Zkpd__V1__StatusResponse *s = calloc(1, sizeof(*s));
	if (!s) {
		zkp_engine_status_release(&st);
		return ZKP_ERR_NOMEM;
	}
	zkpd__v1__status_response__init(s);
	s->version = (char *)ZKPD_VERSION;
	s->uptime_seconds = zkp_session_now() - start;
	s->accepting = st.accepting && stats->accepting;
	s->connections = stats->connections;
	s->jobs_done = st.jobs_done;
	s->jobs_failed = st.jobs_failed;
	s->jobs_cancelled = st.jobs_cancelled;
	s->porep_done = st.porep_done;
	s->porep_failed = st.porep_failed;
	s->porep_cancelled = st.porep_cancelled;
	s->snap_done = st.snap_done;
	s->snap_failed = st.snap_failed;
	s->snap_cancelled = st.snap_cancelled;

	/* Queues, highest priority first. */
	static const enum zkp_priority order[4] = { ZKP_PRIO_CRITICAL, ZKP_PRIO_HIGH,
						    ZKP_PRIO_NORMAL, ZKP_PRIO_LOW };
	s->queues = (Zkpd__V1__QueueStatus **)nodes(4, sizeof(Zkpd__V1__QueueStatus), &ok);
	s->n_queues = s->queues ? 4 : 0;
	for (size_t i = 0; ok && i < 4; i++) {
		zkpd__v1__queue_status__init(s->queues[i]);
		s->queues[i]->priority = (Zkpd__V1__Priority)order[i];
		s->queues[i]->queued = st.queued[order[i]];
	}

	s->pipelines = (Zkpd__V1__PipelineStatus **)nodes(st.n_pipelines,
							 sizeof(Zkpd__V1__PipelineStatus), &ok);
	s->n_pipelines = s->pipelines ? st.n_pipelines : 0;
	for (size_t i = 0; ok && i < st.n_pipelines; i++) {
		Zkpd__V1__PipelineStatus *p = s->pipelines[i];
		const zkp_pipeline_info *pi = &st.pipelines[i];
		zkpd__v1__pipeline_status__init(p);
		p->id = pi->id;
		p->device = dup(pi->device);
		ok = ok && p->device;
		p->cpu_job = pi->cpu_job;
		p->device_job = pi->device_job;
		p->finalize_job = pi->finalize_job;
		p->depth_used = pi->depth_used;
		p->cpu_stage = (Zkpd__V1__Stage)pi->cpu_stage;
		p->proofs = pi->proofs;
	}

	s->devices = (Zkpd__V1__DeviceStatus **)nodes(st.n_devices,
						     sizeof(Zkpd__V1__DeviceStatus), &ok);
	s->n_devices = s->devices ? st.n_devices : 0;
	for (size_t i = 0; ok && i < st.n_devices; i++) {
		const zkp_device_info *di = &st.devices[i];
		Zkpd__V1__DeviceStatus *d = s->devices[i];
		zkpd__v1__device_status__init(d);
		d->name = dup(di->name);
		d->kind = dup(di->kind);
		ok = d->name && d->kind;
		d->memory_bytes = di->memory_bytes;
		d->memory_used_bytes = di->memory_used_bytes;
		d->faults = di->faults;
		d->cpu_fallbacks = di->cpu_fallbacks;
		d->memory_limit_bytes = di->memory_limit;
		d->memory_reserved_bytes = di->memory_reserved;
		d->memory_peak_reserved_bytes = di->memory_peak;
		d->memory_waits = di->memory_waits;
		d->failed = di->failed;
		d->busy_known = di->busy_known;
		d->busy_seconds = di->busy_seconds;
		d->busy_fraction = di->busy_fraction;
	}

	s->circuits = (Zkpd__V1__CircuitStatus **)nodes(st.n_circuits,
						       sizeof(Zkpd__V1__CircuitStatus), &ok);
	s->n_circuits = s->circuits ? st.n_circuits : 0;
	for (size_t i = 0; ok && i < st.n_circuits; i++)
		circuit_fill(s->circuits[i], &st.circuits[i], &ok);

	if (ok) {
		s->memory = calloc(1, sizeof(*s->memory));
		ok = s->memory != NULL;
	}
	if (ok) {
		Zkpd__V1__MemoryStatus *m = s->memory;
		zkpd__v1__memory_status__init(m);
		m->rss_bytes = snap.rss.rss;
		m->peak_rss_bytes = snap.rss.hwm;
		m->allocated_bytes = snap.je.allocated;
		m->resident_bytes = snap.je.resident;
		m->budget_bytes = st.budget;
		m->reserved_bytes = st.reserved;
		m->critical_reserve_bytes = st.critical_reserve;
		m->counters = (Zkpd__V1__Counter **)nodes(ZKP_MEM_NCATEGORIES,
							 sizeof(Zkpd__V1__Counter), &ok);
		m->n_counters = m->counters ? ZKP_MEM_NCATEGORIES : 0;
		for (size_t i = 0; ok && i < ZKP_MEM_NCATEGORIES; i++) {
			zkpd__v1__counter__init(m->counters[i]);
			/* Category names are static strings. */
			m->counters[i]->name =
				(char *)zkp_mem_category_name((enum zkp_mem_category)i);
			m->counters[i]->value = snap.counters[i];
		}
	}

	s->jobs = (Zkpd__V1__JobSummary **)nodes(st.n_jobs, sizeof(Zkpd__V1__JobSummary), &ok);
	s->n_jobs = s->jobs ? st.n_jobs : 0;
	for (size_t i = 0; ok && i < st.n_jobs; i++) {
		Zkpd__V1__JobSummary *j = s->jobs[i];
		const zkp_job_info *ji = &st.jobs[i];
		zkpd__v1__job_summary__init(j);
		j->job_id = ji->job_id;
		j->circuit = dup(ji->circuit);
		j->request_id = dup(ji->request_id);
		ok = ok && j->circuit && j->request_id;
		j->priority = (Zkpd__V1__Priority)ji->priority;
		j->state = (Zkpd__V1__JobState)ji->state;
		j->stage = (Zkpd__V1__Stage)ji->stage;
		j->age_seconds = ji->elapsed;
		j->parent_job_id = ji->parent_job_id;
		j->partition = ji->partition;
		j->partitions = ji->partitions;
		j->partitions_done = ji->partitions_done;
		spans_fill(j, &ji->spans, &ok);
	}

	s->snapshots = (Zkpd__V1__StageSnapshot **)nodes(st.n_snaps,
							sizeof(Zkpd__V1__StageSnapshot), &ok);
	s->n_snapshots = s->snapshots ? st.n_snaps : 0;
	for (size_t i = 0; ok && i < st.n_snaps; i++) {
		Zkpd__V1__StageSnapshot *ss = s->snapshots[i];
		zkpd__v1__stage_snapshot__init(ss);
		ss->job_id = st.snaps[i].job_id;
		ss->stage = (Zkpd__V1__Stage)st.snaps[i].stage;
		ss->t = st.snaps[i].t;
		ss->rss_bytes = st.snaps[i].rss;
		ss->allocated_bytes = st.snaps[i].allocated;
		ss->resident_bytes = st.snaps[i].resident;
	}

	zkp_engine_status_release(&st);
	if (!ok) {
		zkp_status_free(s);
		return ZKP_ERR_NOMEM;
	}
	*ret = s;
	return 0;
}
