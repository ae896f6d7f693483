/*
 * metrics: the Metrics call's answer, Prometheus text exposition format
 * 0.0.4: every family with # HELP and # TYPE, names prefixed zkpd_, base
 * units (seconds, bytes).
 *
 * Families: jobs by final state (counter), queued jobs by priority (gauge),
 * running jobs, stage seconds and counts by stage (counters), a histogram
 * of stage seconds (zkpd_stage_duration_seconds, buckets of
 * zkp_stage_bucket_le), RSS and
 * jemalloc allocated bytes at the latest end of each stage, pipelines'
 * finished proofs, circuits loaded and their bytes and refcounts, process
 * RSS and peak RSS, jemalloc allocated/active/resident/mapped/retained,
 * per-category counters of mem.h, memory budget and reserved bytes,
 * connections (current, total, refused), frames and bytes in and out,
 * protocol errors, uptime.
 *
 * Threads: any thread, given a copy of the server's figures
 * (zkp_server_stats_get) or the loop's own. Returns a malloc'd string, NULL
 * on allocation failure.
 */
#ifndef ZKPD_DAEMON_METRICS_H
#define ZKPD_DAEMON_METRICS_H

#include "engine.h"
#include "session.h"

char *zkp_metrics_text(zkp_engine *e, const zkp_server_stats *stats);

#endif
