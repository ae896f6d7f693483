/*
 * Prometheus text exposition (format 0.0.4). Built into an open_memstream
 * buffer: a few kilobytes, once per scrape.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "zkpd/mem.h"

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP zkpd_%s %s\n# TYPE zkpd_%s %s\n", name, help, name, type);
}

static void value(FILE *f, const char *name, double v)
{
	fprintf(f, "zkpd_%s %.17g\n", name, v);
}

static void one(FILE *f, const char *name, const char *type, const char *help, double v)
{
	family(f, name, type, help);
	value(f, name, v);
}

char *zkp_metrics_text(zkp_engine *e, const zkp_server_stats *ss)
{
	zkp_engine_status st;
	zkp_mem_snap snap;
	char *buf = NULL;
	size_t size = 0;
	if (zkp_engine_get_status(e, &st))
		return NULL;
	zkp_mem_snapshot("metrics", &snap);
	FILE *f = open_memstream(&buf, &size);
	if (!f) {
		zkp_engine_status_release(&st);
		return NULL;
	}

	one(f, "uptime_seconds", "gauge", "Seconds since the daemon started.", st.uptime);
	one(f, "accepting", "gauge", "1 while new jobs are accepted, 0 while draining.",
	    st.accepting && ss->accepting);

	family(f, "jobs_total", "counter", "Jobs that ended, by final state.");
	fprintf(f, "zkpd_jobs_total{state=\"done\"} %llu\n", (unsigned long long)st.jobs_done);
	fprintf(f, "zkpd_jobs_total{state=\"failed\"} %llu\n",
		(unsigned long long)st.jobs_failed);
	fprintf(f, "zkpd_jobs_total{state=\"cancelled\"} %llu\n",
		(unsigned long long)st.jobs_cancelled);
	family(f, "porep_sectors_total", "counter",
	       "PoRep sector jobs (a C1 in, one proof per partition out) that ended, by final "
	       "state; their partition jobs count in zkpd_jobs_total.");
	fprintf(f, "zkpd_porep_sectors_total{state=\"done\"} %llu\n",
		(unsigned long long)st.porep_done);
	fprintf(f, "zkpd_porep_sectors_total{state=\"failed\"} %llu\n",
		(unsigned long long)st.porep_failed);
	fprintf(f, "zkpd_porep_sectors_total{state=\"cancelled\"} %llu\n",
		(unsigned long long)st.porep_cancelled);
	family(f, "snap_updates_total", "counter",
	       "SnapDeals update jobs (vanilla proofs in, one proof per partition out) that "
	       "ended, by final state; their partition jobs count in zkpd_jobs_total.");
	fprintf(f, "zkpd_snap_updates_total{state=\"done\"} %llu\n",
		(unsigned long long)st.snap_done);
	fprintf(f, "zkpd_snap_updates_total{state=\"failed\"} %llu\n",
		(unsigned long long)st.snap_failed);
	fprintf(f, "zkpd_snap_updates_total{state=\"cancelled\"} %llu\n",
		(unsigned long long)st.snap_cancelled);

	one(f, "request_id_reused_total", "counter",
	    "Submits whose request_id was held by a job with other inputs: a new job was made "
	    "and took the request_id over.",
	    (double)st.requests_reused);

	family(f, "jobs_queued", "gauge", "Jobs waiting to start, by priority.");
	for (int p = 0; p < 4; p++)
		fprintf(f, "zkpd_jobs_queued{priority=\"%s\"} %u\n",
			zkp_priority_name((enum zkp_priority)p), st.queued[p]);
	size_t running = 0;
	for (size_t i = 0; i < st.n_jobs; i++)
		running += st.jobs[i].state == ZKP_JOB_RUNNING;
	one(f, "jobs_running", "gauge", "Jobs admitted and not yet ended.", (double)running);

	family(f, "stage_seconds_total", "counter", "Seconds spent in each stage, all jobs.");
	for (int s = 0; s < ZKP_NSTAGES; s++)
		if (st.stage_count[s])
			fprintf(f, "zkpd_stage_seconds_total{stage=\"%s\"} %.9g\n",
				zkp_stage_name((enum zkp_stage)s), st.stage_seconds[s]);
	family(f, "stage_runs_total", "counter", "Stages finished, all jobs.");
	for (int s = 0; s < ZKP_NSTAGES; s++)
		if (st.stage_count[s])
			fprintf(f, "zkpd_stage_runs_total{stage=\"%s\"} %llu\n",
				zkp_stage_name((enum zkp_stage)s),
				(unsigned long long)st.stage_count[s]);

	family(f, "stage_duration_seconds", "histogram", "Seconds each stage took, all jobs.");
	for (int s = 0; s < ZKP_NSTAGES; s++) {
		if (!st.stage_count[s])
			continue;
		const char *name = zkp_stage_name((enum zkp_stage)s);
		for (int b = 0; b < ZKP_STAGE_BUCKETS; b++)
			fprintf(f,
				"zkpd_stage_duration_seconds_bucket{stage=\"%s\",le=\"%g\"} %llu\n",
				name, zkp_stage_bucket_le[b],
				(unsigned long long)st.stage_buckets[s][b]);
		fprintf(f, "zkpd_stage_duration_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %llu\n",
			name, (unsigned long long)st.stage_count[s]);
		fprintf(f, "zkpd_stage_duration_seconds_sum{stage=\"%s\"} %.9g\n", name,
			st.stage_seconds[s]);
		fprintf(f, "zkpd_stage_duration_seconds_count{stage=\"%s\"} %llu\n", name,
			(unsigned long long)st.stage_count[s]);
	}

	/* The newest snapshot of each stage boundary (the ring is oldest first). */
	const zkp_engine_snap *last[ZKP_NSTAGES] = { NULL };
	for (size_t i = 0; i < st.n_snaps; i++)
		if (st.snaps[i].stage < ZKP_NSTAGES)
			last[st.snaps[i].stage] = &st.snaps[i];
	family(f, "stage_end_resident_bytes", "gauge",
	       "Process RSS at the latest end of each stage (any job).");
	for (int s = 0; s < ZKP_NSTAGES; s++)
		if (last[s])
			fprintf(f, "zkpd_stage_end_resident_bytes{stage=\"%s\"} %llu\n",
				zkp_stage_name((enum zkp_stage)s), (unsigned long long)last[s]->rss);
	family(f, "stage_end_allocated_bytes", "gauge",
	       "jemalloc allocated bytes at the latest end of each stage (any job).");
	for (int s = 0; s < ZKP_NSTAGES; s++)
		if (last[s])
			fprintf(f, "zkpd_stage_end_allocated_bytes{stage=\"%s\"} %llu\n",
				zkp_stage_name((enum zkp_stage)s),
				(unsigned long long)last[s]->allocated);

	family(f, "pipeline_proofs_total", "counter", "Proofs finished by each pipeline.");
	for (size_t i = 0; i < st.n_pipelines; i++)
		fprintf(f, "zkpd_pipeline_proofs_total{pipeline=\"%u\",device=\"%s\"} %llu\n",
			st.pipelines[i].id, st.pipelines[i].device,
			(unsigned long long)st.pipelines[i].proofs);
	family(f, "pipeline_depth_used", "gauge",
	       "Jobs waiting between a pipeline's CPU and device stages.");
	for (size_t i = 0; i < st.n_pipelines; i++)
		fprintf(f, "zkpd_pipeline_depth_used{pipeline=\"%u\"} %u\n", st.pipelines[i].id,
			st.pipelines[i].depth_used);

	family(f, "device_faults_total", "counter",
	       "Proving stages that failed with a device fault, by device.");
	for (size_t i = 0; i < st.n_devices; i++)
		fprintf(f, "zkpd_device_faults_total{device=\"%s\",kind=\"%s\"} %llu\n",
			st.devices[i].name, st.devices[i].kind,
			(unsigned long long)st.devices[i].faults);
	family(f, "device_memory_bytes", "gauge",
	       "Memory of each device: a GPU's own, the CPU device's admission budget.");
	for (size_t i = 0; i < st.n_devices; i++)
		fprintf(f, "zkpd_device_memory_bytes{device=\"%s\",kind=\"%s\"} %llu\n",
			st.devices[i].name, st.devices[i].kind,
			(unsigned long long)st.devices[i].memory_bytes);
	family(f, "device_memory_used_bytes", "gauge",
	       "In use on each device: on a GPU as its driver reports, on the CPU device "
	       "the admitted working sets.");
	for (size_t i = 0; i < st.n_devices; i++)
		fprintf(f, "zkpd_device_memory_used_bytes{device=\"%s\",kind=\"%s\"} %llu\n",
			st.devices[i].name, st.devices[i].kind,
			(unsigned long long)st.devices[i].memory_used_bytes);
	/* Device memory admission, on devices with a limit (engine.h). */
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} devmem[] = {
		{ "device_memory_limit_bytes", "gauge",
		  "Device memory zkpd may use on each device with a limit (gpus.device_memory).",
		  offsetof(zkp_device_info, memory_limit) },
		{ "device_memory_reserved_bytes", "gauge",
		  "Device memory planned for resident keys, matrices and workspaces plus what "
		  "jobs' buffers hold, on each device with a limit.",
		  offsetof(zkp_device_info, memory_reserved) },
		{ "device_memory_waits_total", "counter",
		  "Jobs that waited for device memory before their eval.",
		  offsetof(zkp_device_info, memory_waits) },
	};
	for (size_t k = 0; k < sizeof(devmem) / sizeof(devmem[0]); k++) {
		family(f, devmem[k].name, devmem[k].type, devmem[k].help);
		for (size_t i = 0; i < st.n_devices; i++) {
			uint64_t v;
			memcpy(&v, (const char *)&st.devices[i] + devmem[k].off, sizeof(v));
			if (st.devices[i].memory_limit)
				fprintf(f, "zkpd_%s{device=\"%s\"} %llu\n", devmem[k].name,
					st.devices[i].name, (unsigned long long)v);
		}
	}
	family(f, "device_cpu_fallbacks_total", "counter",
	       "Jobs proved on the CPU instead of their device: after a device fault, or "
	       "refused device memory (gpus.fallback_cpu).");
	for (size_t i = 0; i < st.n_devices; i++)
		fprintf(f, "zkpd_device_cpu_fallbacks_total{device=\"%s\"} %llu\n",
			st.devices[i].name, (unsigned long long)st.devices[i].cpu_fallbacks);

	family(f, "device_busy_seconds_total", "counter",
	       "Seconds each device spent running its work (a GPU's kernel time), for devices "
	       "that measure it; its rate is the device's busy fraction.");
	for (size_t i = 0; i < st.n_devices; i++)
		if (st.devices[i].busy_known)
			fprintf(f, "zkpd_device_busy_seconds_total{device=\"%s\",kind=\"%s\"} %.9g\n",
				st.devices[i].name, st.devices[i].kind, st.devices[i].busy_seconds);

	family(f, "device_failed", "gauge",
	       "1 when a sticky GPU fault left the device unusable until zkpd restarts.");
	for (size_t i = 0; i < st.n_devices; i++)
		fprintf(f, "zkpd_device_failed{device=\"%s\"} %d\n", st.devices[i].name,
			st.devices[i].failed ? 1 : 0);

	family(f, "circuit_loaded", "gauge", "1 when the circuit is resident.");
	for (size_t i = 0; i < st.n_circuits; i++)
		fprintf(f, "zkpd_circuit_loaded{circuit=\"%s\"} %d\n", st.circuits[i].name,
			st.circuits[i].loaded);
	family(f, "circuit_bytes", "gauge", "Resident size of a loaded circuit, by part.");
	for (size_t i = 0; i < st.n_circuits; i++) {
		if (!st.circuits[i].loaded)
			continue;
		fprintf(f, "zkpd_circuit_bytes{circuit=\"%s\",part=\"pce\"} %llu\n",
			st.circuits[i].name, (unsigned long long)st.circuits[i].pce_bytes);
		fprintf(f, "zkpd_circuit_bytes{circuit=\"%s\",part=\"key\"} %llu\n",
			st.circuits[i].name, (unsigned long long)st.circuits[i].key_bytes);
	}
	family(f, "circuit_refcount", "gauge", "Jobs holding the circuit.");
	for (size_t i = 0; i < st.n_circuits; i++)
		fprintf(f, "zkpd_circuit_refcount{circuit=\"%s\"} %u\n", st.circuits[i].name,
			st.circuits[i].refcount);

	one(f, "process_resident_bytes", "gauge", "VmRSS of the daemon.", (double)snap.rss.rss);
	one(f, "process_peak_resident_bytes", "gauge", "VmHWM of the daemon.",
	    (double)snap.rss.hwm);
	if (snap.je.available) {
		family(f, "jemalloc_bytes", "gauge", "jemalloc stats.* figures.");
		fprintf(f, "zkpd_jemalloc_bytes{kind=\"allocated\"} %llu\n",
			(unsigned long long)snap.je.allocated);
		fprintf(f, "zkpd_jemalloc_bytes{kind=\"active\"} %llu\n",
			(unsigned long long)snap.je.active);
		fprintf(f, "zkpd_jemalloc_bytes{kind=\"resident\"} %llu\n",
			(unsigned long long)snap.je.resident);
		fprintf(f, "zkpd_jemalloc_bytes{kind=\"mapped\"} %llu\n",
			(unsigned long long)snap.je.mapped);
		fprintf(f, "zkpd_jemalloc_bytes{kind=\"retained\"} %llu\n",
			(unsigned long long)snap.je.retained);
		fprintf(f, "zkpd_jemalloc_bytes{kind=\"metadata\"} %llu\n",
			(unsigned long long)snap.je.metadata);
	}
	family(f, "memory_category_bytes", "gauge",
	       "zkpd's own counters of large buffers, by category.");
	for (int c = 0; c < ZKP_MEM_NCATEGORIES; c++)
		fprintf(f, "zkpd_memory_category_bytes{category=\"%s\"} %llu\n",
			zkp_mem_category_name((enum zkp_mem_category)c),
			(unsigned long long)snap.counters[c]);
	one(f, "memory_budget_bytes", "gauge", "Memory budget for admitted jobs.",
	    (double)st.budget);
	one(f, "memory_reserved_bytes", "gauge", "Working sets of admitted jobs.",
	    (double)st.reserved);
	one(f, "memory_critical_reserve_bytes", "gauge",
	    "Part of the budget only CRITICAL jobs may use.", (double)st.critical_reserve);

	one(f, "connections", "gauge", "Open client connections.", ss->connections);
	one(f, "connections_total", "counter", "Connections accepted.",
	    (double)ss->connections_total);
	one(f, "connections_refused_total", "counter",
	    "Connections closed at once because server.max_connections were open.",
	    (double)ss->connections_refused);
	one(f, "frames_received_total", "counter", "Frames received.", (double)ss->frames_in);
	one(f, "frames_sent_total", "counter", "Frames sent.", (double)ss->frames_out);
	one(f, "received_bytes_total", "counter", "Bytes received.", (double)ss->bytes_in);
	one(f, "sent_bytes_total", "counter", "Bytes sent.", (double)ss->bytes_out);
	one(f, "protocol_errors_total", "counter",
	    "Frames refused: oversized, empty or not an Envelope.",
	    (double)ss->protocol_errors);
	if (ss->grpc) {
		static const char *const codes[ZKP_GRPC_CODES] = {
			"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
			"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
			"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
			"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
		};
		fprintf(f, "# HELP zkpd_grpc_calls_total gRPC (cuzk.v1) calls answered, by status "
			   "code.\n# TYPE zkpd_grpc_calls_total counter\n");
		for (int i = 0; i < ZKP_GRPC_CODES; i++)
			if (i == 0 || ss->grpc_answered[i])
				fprintf(f, "zkpd_grpc_calls_total{code=\"%s\"} %llu\n", codes[i],
					(unsigned long long)ss->grpc_answered[i]);
		one(f, "grpc_calls_abandoned_total", "counter",
		    "gRPC calls whose client cancelled or whose deadline passed before the answer.",
		    (double)ss->grpc_abandoned);
		one(f, "grpc_calls_open", "gauge", "gRPC calls open now.", ss->grpc_open);
	}

	zkp_engine_status_release(&st);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
