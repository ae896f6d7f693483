/*
 * engine: zkpd's proving engine without any I/O: circuits, jobs, the
 * priority scheduler, memory admission and the per-device pipelines. The
 * server (server.c, the only file with uv.h) calls it from the loop thread
 * and learns what happened through events.
 *
 * Circuits. One entry per [circuit.NAME] of the configuration. A circuit is
 * loaded once (its .pce mapped read-only, its key decoded or mapped from the
 * key cache, its vk prepared, its memory model computed) by the engine's
 * loader thread: at start for preload circuits, on LoadCircuit, or when a
 * job names a circuit that is not loaded (the job waits queued, and its LOAD
 * stage is reported). Every pipeline shares the one copy; a refcount counts
 * the jobs holding it. Unload succeeds only at refcount 0 and with no job
 * queued for it (ZKP_ERR_BUSY otherwise). A failed load fails the jobs that
 * waited for it, with the load's message.
 *
 * Jobs. Submit takes the witness (bytes, ownership passed; or a path that
 * must resolve, with symlinks followed, inside server.witness_dir), a
 * priority and an optional request_id. A request_id equal to that of a
 * queued, running or remembered DONE job, with inputs of the same digest
 * (circuit, witness kind, and the witness, C1 or bundle bytes, or a path
 * and its file's identity: engine_requests.c), returns that job
 * (attached): a proof is never made twice. The same request_id with other
 * inputs, or equal to that of a remembered job that ended FAILED or
 * CANCELLED, starts a new job, which takes the request_id over (the old
 * one stays findable by its id, without it): a retry after a failure
 * proves again, and a reused name never returns another input's proof
 * (a WARN line, counted in requests_reused). Finished jobs are remembered,
 * oldest dropped first, up to server.job_history.
 *
 * PoRep jobs. A circuit with porep_sector_size set (its .pce must be the
 * PoRep partition circuit of that size, as its label says) also takes a C1
 * output (bytes or a path, under the witness rules). Such a sector job is
 * queued like any job; the CPU stage that admits it (reserving 4 bytes of
 * memory per byte of C1) parses the C1, checks it is of the circuit's
 * sector size, derives every partition's public inputs from the public data
 * and compares the challenges, parents and challenged labels with the C1's
 * (porep_c2.h); it then queues one partition job per partition at the
 * sector job's priority, and the sector job holds nothing but the parsed
 * C1. A partition job is an ordinary job (its own id, memory admission,
 * stages, cancel) whose WITNESS stage computes the partition's witness from
 * the C1 and checks its public inputs equal the derived ones; its VERIFY
 * stage verifies the proof with them. The sector job ends DONE once every
 * partition is DONE, its proof the partitions' proofs in order; it ends
 * FAILED (or CANCELLED) when one partition does, naming it, and cancels the
 * others. Cancelling the sector job cancels its partitions. Its progress
 * events follow its partitions' stages; its percent is theirs averaged.
 *
 * SnapDeals jobs. A circuit with snap_sector_size set (its .pce the
 * SnapDeals partition circuit of that size) takes an update bundle: the
 * commitments comm_r_old, comm_d_new, comm_r_new and one PartitionProof per
 * partition. It is a split job like a PoRep sector job: its CPU stage
 * decodes the bundle and checks every partition's vanilla proof natively
 * against the commitments (snap_c2.h) before queueing one partition job
 * per partition, whose public inputs come from the commitments alone.
 *
 * PoSt jobs. A circuit with window_post_sector_size or
 * winning_post_sector_size (its .pce the Fallback PoSt circuit of that kind
 * and size) takes a PoSt bundle: one ordinary job whose WITNESS stage
 * decodes every sector's vanilla proof, puts the sectors in ascending
 * sector id, checks their paths, comm_r and challenged leaves against
 * those derived from the randomness and each sector's position in that
 * order (post_c2.h), pads a short partition with its last sector, and
 * computes the witness, whose public inputs must equal the derived ones. A WinningPoSt job submitted at NORMAL (the default) runs
 * at CRITICAL: a block's deadline is seconds.
 *
 * Scheduling. Four FIFO queues, CRITICAL > HIGH > NORMAL > LOW. A pipeline's
 * CPU stage takes the first job in that order whose circuit is loaded and
 * whose working set (the circuit's memory model ws plus its witness bytes)
 * fits the memory budget beside the jobs already admitted; non-CRITICAL jobs
 * must also leave memory.critical_reserve free, so a CRITICAL job never
 * waits behind NORMAL work for memory. The queue between a pipeline's CPU
 * and device stages (pipeline.depth jobs) is ordered by priority too.
 *
 * Devices. gpus.devices: "cpu" (the CPU backend as one device), "auto"
 * (every CUDA device found, else the CPU) or a list of GPU indices (each
 * must be present: ZKP_ERR_CONFIG otherwise, and always in a build without
 * the CUDA backend). Each device has its own backend (one stream per GPU)
 * and lock; a job runs wholly on the device of the pipeline that took it.
 * The first job of a circuit to reach a device makes the key's G1 queries
 * resident there (zkp_groth16_resident); they stay until the circuit is
 * unloaded. A stage failing with ZKP_ERR_DEVICE fails that job alone and
 * is counted on the device; with gpus.fallback_cpu the job is proved again
 * on a CPU backend of the engine's instead, once, and a WARN line says so.
 *
 * Pipelines. gpus.workers_per_device per device. Each has three threads:
 *   cpu      WITNESS (decode, range checks) and EVAL (A w, B w, C w)
 *   device   NTT and MSM (G1), holding the device's lock for kernel time
 *   finalize ASSEMBLE (G2 MSM join, randomizers, A, B, C) and VERIFY
 * with a bounded queue of pipeline.depth between cpu and device and one of
 * depth 1 between device and finalize. A job's stages are run through
 * groth16_job.h. One zkp_pool of synthesis.threads is shared by all.
 *
 * Cancellation. A queued job is removed at once (CANCELLED). A running job
 * is flagged; the thread that holds it stops at the next stage boundary,
 * frees its buffers and releases its admission (CANCELLED). A job never
 * ends twice.
 *
 * Memory. At every stage boundary of every job the engine takes a
 * zkp_mem_snapshot; the job keeps its stages' RSS, and a ring of the last
 * ZKP_ENGINE_SNAPSHOTS snapshots (any job) is shown in Status. With
 * memory.purge_between_stages the arenas are purged (zkp_mem_purge) after
 * NTT, MSM and the end of a job, by the engine's purger thread: a purge
 * takes milliseconds of madvise (2.8 ms for 24 MiB freed on the
 * development VM), which would otherwise add to every job's latency.
 * Requests that arrive while a purge runs coalesce into one more.
 *
 * Time. From submit to its end a job is in exactly one span at a time
 * (enum zkp_span): a stage's work, or a wait named for what it waits for.
 * Every move from one span to the next reads one clock (CLOCK_MONOTONIC)
 * once, and the span left is charged up to that reading, so a job's spans
 * tile its life: they add up to its total seconds (while it runs, to its
 * elapsed seconds) by construction. The prover's own spans
 * (groth16_prove.h) come from the groth16 job through its span observer,
 * on the same clock. A stage's seconds (zkp_stage_timing) are the sum of
 * its spans; the waits between stages belong to no stage.
 *
 * Busy time. A device whose backend measures the time its work runs
 * (backend.h, busy_seconds: a GPU's kernel time; not the CPU) has its busy
 * seconds in Status, and each job proved on it the busy seconds its NTT and
 * MSM stages added (read under the device's lock, which keeps other jobs'
 * kernels off the device meanwhile).
 *
 * Logs. Every job that ends (DONE, FAILED, CANCELLED) logs one INFO line
 * from job_end: circuit, priority, state, device, error code, queue and
 * total seconds, each span's seconds with their sum and its share of the
 * total, the device's busy seconds for the job when measured, and each
 * stage's RSS; in JSON log format the same figures are members of the line
 * (zkp_log_with), each stage's seconds too.
 *
 * Events. Whenever something a client may wait for happens (a job's state
 * or stage changes, the queue moves, a load ends) the engine appends an
 * event to its event queue and calls notify(notify_arg) from whatever thread
 * it is on, without holding any engine lock; notify must be quick and
 * thread-safe (uv_async_send). The loop thread drains events with
 * zkp_engine_poll.
 *
 * Threads: every zkp_engine_* function may be called from any thread; the
 * server calls them from the loop thread only. None blocks on proving work:
 * each takes the engine's lock for bookkeeping only (microseconds), except
 * zkp_engine_new (which starts threads; loading happens on the loader
 * thread once zkp_engine_start_loads lets it) and zkp_engine_free (which joins them).
 */
#ifndef ZKPD_DAEMON_ENGINE_H
#define ZKPD_DAEMON_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/config.h"
#include "zkpd/error.h"
#include "zkpd/groth16.h"

#define ZKP_ENGINE_SNAPSHOTS 64
/* Stage-time histogram: upper bounds in seconds of zkp_stage_bucket_le,
 * ascending (+Inf is stage_count). From 1 ms (a small witness) to 5 min (a
 * PoRep MSM on the CPU backend). */
#define ZKP_STAGE_BUCKETS 16
extern const double zkp_stage_bucket_le[ZKP_STAGE_BUCKETS];
#define ZKP_REQUEST_ID_MAX 128
/* Bytes of a job's input digest (SHA-256, engine_requests.c). */
#define ZKP_INPUT_DIGEST_BYTES 32

/* Numbers equal the wire protocol's (proto/zkpd/v1/zkpd.proto). */
enum zkp_priority {
	ZKP_PRIO_NORMAL = 0,
	ZKP_PRIO_LOW = 1,
	ZKP_PRIO_HIGH = 2,
	ZKP_PRIO_CRITICAL = 3,
};
enum zkp_job_state {
	ZKP_JOB_UNKNOWN = 0,
	ZKP_JOB_QUEUED = 1,
	ZKP_JOB_RUNNING = 2,
	ZKP_JOB_DONE = 3,
	ZKP_JOB_FAILED = 4,
	ZKP_JOB_CANCELLED = 5,
};
enum zkp_stage {
	ZKP_STAGE_QUEUED = 0,
	ZKP_STAGE_LOAD,
	ZKP_STAGE_WITNESS,
	ZKP_STAGE_EVAL,
	ZKP_STAGE_NTT,
	ZKP_STAGE_MSM,
	ZKP_STAGE_ASSEMBLE,
	ZKP_STAGE_VERIFY,
	ZKP_STAGE_DONE,
	ZKP_NSTAGES
};
/*
 * Spans of a job's time (see Time above), in the order a job meets them.
 * A job may enter a span more than once (a cancelled fallback, a second
 * device lock); its seconds add. Which stage each belongs to:
 * zkp_span_stage.
 */
enum zkp_span {
	ZKP_SPAN_LOAD,          /* queued, its circuit loading */
	ZKP_SPAN_QUEUED,        /* queued: behind other jobs, or waiting for memory */
	ZKP_SPAN_WITNESS,       /* the witness decoded or computed; a split job: its input
				 * read and checked, its partition jobs queued */
	ZKP_SPAN_EVAL,          /* the prover's spans (groth16_prove.h) ... */
	ZKP_SPAN_SAT_CHECK,
	ZKP_SPAN_UPLOAD,
	ZKP_SPAN_SLOT_WAIT,     /* evaluated, waiting for room in the pipeline's queue to
				 * its device stage */
	ZKP_SPAN_DEVICE_QUEUE,  /* in that queue, behind the job its device stage holds */
	ZKP_SPAN_DEVICE_LOCK,   /* waiting for the device's lock (another pipeline's job
				 * on the same device holds it) */
	ZKP_SPAN_KEY_UPLOAD,    /* the key's G1 queries made resident on the device (the
				 * first job of its circuit there) */
	ZKP_SPAN_NTT,
	ZKP_SPAN_MSM_SETUP,
	ZKP_SPAN_MSM_H,
	ZKP_SPAN_MSM_L,
	ZKP_SPAN_MSM_A,
	ZKP_SPAN_MSM_B_G1,
	ZKP_SPAN_FINALIZE_WAIT, /* MSMs done, waiting for the pipeline's finalize stage */
	ZKP_SPAN_G2_WAIT,
	ZKP_SPAN_ASSEMBLE,
	ZKP_SPAN_VERIFY,        /* ... to here */
	ZKP_SPAN_RESULT,        /* the proof and inputs copied out, buffers freed */
	ZKP_SPAN_PARTITIONS,    /* a split job: its partition jobs at work */
	ZKP_SPAN_DEVICE_MEMORY, /* before eval, waiting for device memory for its buffers
				 * (gpus.device_memory) */
	ZKP_NSPANS
};

/* "load", "queued", "witness", "eval", ... (the enum's names, lower
 * case); "?" for any other value. */
const char *zkp_span_name(enum zkp_span s);
/* The stage a span is part of: WITNESS, EVAL (eval, sat_check, upload),
 * NTT (key_upload, ntt), MSM (msm_*), ASSEMBLE (g2_wait, assemble),
 * VERIFY; ZKP_NSTAGES for a wait between stages (load, queued, slot_wait,
 * device_queue, device_lock, finalize_wait, result, partitions,
 * device_memory). */
enum zkp_stage zkp_span_stage(enum zkp_span s);

/* WTNS, RAW, PATH: a full witness. C1, C1_PATH: a sector's Filecoin C1
 * output (porep_c1.h: the FFI's JSON or its wrapper) for a PoRep circuit.
 * SNAP: a SnapDeals update bundle (snap_c2.h: the commitments and every
 * partition's PartitionProof) for a SnapDeals circuit. */
enum zkp_witness_kind {
	ZKP_WITNESS_WTNS,
	ZKP_WITNESS_RAW,
	ZKP_WITNESS_PATH,
	ZKP_WITNESS_C1,
	ZKP_WITNESS_C1_PATH,
	ZKP_WITNESS_SNAP,
	ZKP_WITNESS_POST,
};

/* "normal", "low", ...; "queued", "load", ...; "queued", "running", ... */
const char *zkp_priority_name(enum zkp_priority p);
const char *zkp_stage_name(enum zkp_stage s);
const char *zkp_job_state_name(enum zkp_job_state s);

typedef struct zkp_engine zkp_engine;

typedef struct {
	const char *circuit;
	enum zkp_witness_kind witness_kind;
	uint8_t *data; /* WTNS, RAW, C1, SNAP, POST: malloc'd bytes; the engine owns them from
			* the call on, success or not */
	size_t len;
	const char *path; /* PATH, C1_PATH */
	enum zkp_priority priority;
	const char *request_id; /* NULL or "": none */
	/* NULL, or the inputs' digest already taken (zkp_engine_input_digest)
	 * for this spec: Submit takes it itself otherwise. */
	const uint8_t *input_digest;
	bool want_json;         /* also produce the snarkjs proof.json text */
} zkp_job_spec;

enum zkp_event_kind {
	ZKP_EVENT_JOB,        /* job_id's state or stage changed */
	ZKP_EVENT_QUEUE,      /* queue positions changed (job_id 0) */
	ZKP_EVENT_LOAD,       /* a LoadCircuit request ended: token, rc */
};

typedef struct {
	enum zkp_event_kind kind;
	uint64_t job_id;
	enum zkp_job_state state;
	enum zkp_stage stage;
	bool stage_finished;
	double stage_seconds; /* when stage_finished */
	uint64_t token;       /* LOAD: the caller's token */
	int rc;               /* LOAD: 0 or the load's error */
} zkp_engine_event;

typedef void (*zkp_engine_notify_fn)(void *arg);

/* Builds the circuit table from cfg (copied), the pool, the backend(s) and
 * the pipelines and starts every thread. No circuit loads, neither the
 * preloads nor one a job or LoadCircuit asks for, before
 * zkp_engine_start_loads: the server binds its listeners in between, so a
 * start that fails never waits for a load to end.
 * cfg->memory_budget 0 means MemTotal (from /proc/meminfo) minus
 * memory_reserve. Errors: ZKP_ERR_CONFIG (a device list this build cannot
 * serve, a budget below the reserve), ZKP_ERR_NOMEM, ZKP_ERR_IO (thread
 * creation). */
int zkp_engine_new(zkp_engine **ret, const zkp_config *cfg, zkp_engine_notify_fn notify,
		   void *notify_arg, zkp_error *err);
/* Lets the loader thread load: the preloads first asked for, then every
 * load asked since. Call once, after zkp_engine_new. */
void zkp_engine_start_loads(zkp_engine *e);
/* Checks cfg's gpus.devices against the GPUs this build and machine offer,
 * creating nothing (zkpd --check-config): ZKP_ERR_CONFIG naming a listed
 * GPU that is not present, as zkp_engine_new would; ZKP_ERR_DEVICE when
 * the GPUs cannot be counted. "auto" and "cpu" always pass. */
int zkp_engine_check_devices(const zkp_config *cfg, zkp_error *err);

/* Cancels every job, joins every thread, unloads every circuit. NULL is a
 * no-op. notify is not called once it has started. */
void zkp_engine_free(zkp_engine *e);

/* Queues a job. On success *job_id is its id (ids start at 1 and never
 * repeat) and *attached says whether an earlier job with the same
 * request_id was returned instead (spec->data is then freed).
 * Errors (message in err): ZKP_ERR_NOT_FOUND (no such circuit; no such
 * witness file), ZKP_ERR_DENIED (a witness path outside server.witness_dir,
 * or witness_dir unset), ZKP_ERR_INVAL (empty witness, request_id longer
 * than ZKP_REQUEST_ID_MAX, unknown priority), ZKP_ERR_LIMIT (server.max_queued
 * jobs waiting), ZKP_ERR_SHUTDOWN (draining), ZKP_ERR_NOMEM. */
int zkp_engine_submit(zkp_engine *e, zkp_job_spec *spec, uint64_t *job_id, bool *attached,
		      zkp_error *err);

/* Cancels a job; *state gets its state afterwards (CANCELLED for a queued
 * job, RUNNING for one that will stop at its next stage boundary, DONE,
 * FAILED or CANCELLED for one that had ended). Errors: ZKP_ERR_NOT_FOUND. */
int zkp_engine_cancel(zkp_engine *e, uint64_t job_id, enum zkp_job_state *state);

typedef struct {
	double seconds;
	uint64_t rss; /* VmRSS at the end of the stage */
	bool ran;
} zkp_stage_timing;

/* Where a job's time went: seconds per span (enum zkp_span) and a bit per
 * span it entered (1u << span). While the job runs, the span it is in
 * counts up to the moment of the copy, so the spans add up to elapsed. */
typedef struct {
	double seconds[ZKP_NSPANS];
	uint32_t entered;
} zkp_span_times;

/* The sum of the spans entered. */
double zkp_span_times_sum(const zkp_span_times *t);

/* One partition job of a split job, as its split job keeps it. */
typedef struct {
	uint64_t job_id;
	enum zkp_job_state state; /* QUEUED or RUNNING: not ended yet (no times) */
	double total_seconds;
	zkp_span_times spans;
} zkp_partition_times;

/* A copy of a job's state and, once it ended, its result. */
typedef struct {
	uint64_t job_id;
	enum zkp_job_state state;
	enum zkp_stage stage; /* the current or last stage */
	enum zkp_priority priority;
	uint32_t queue_position; /* 1 = next; 0 when not queued */
	uint32_t percent;        /* estimated share of the job done */
	double elapsed, queue_seconds, total_seconds;
	char circuit[ZKP_CONFIG_NAME_MAX];
	char request_id[ZKP_REQUEST_ID_MAX + 1];
	/* The digest of its inputs, when it was submitted with a request_id
	 * (or restored with a digest). */
	bool has_digest;
	uint8_t input_digest[ZKP_INPUT_DIGEST_BYTES];
	zkp_stage_timing stages[ZKP_NSTAGES];
	zkp_span_times spans; /* none entered for a result restored from the journal */
	/* The device it ran on ("" before that); device_busy_known when that
	 * device measures busy time, device_busy_seconds then what the job's
	 * stages on it added. */
	char device[32];
	bool device_busy_known;
	double device_busy_seconds;
	/* PoRep: a sector job has partitions (and partitions_done of them
	 * proved); each of its partition jobs has parent_job_id and its
	 * partition number. 0 for other jobs. */
	uint32_t partitions, partitions_done, partition;
	uint64_t parent_job_id;
	/* DONE: */
	uint8_t *proof;    /* malloc'd: 192 bytes, or 192 per partition for a
			    * PoRep sector job, in partition order */
	size_t proof_len;
	char *proof_json;  /* malloc'd when asked for, else NULL (never for PoRep) */
	uint8_t *inputs;   /* malloc'd, n_inputs * 32 bytes little-endian, without ONE
			    * (a PoRep sector job: every partition's, in order) */
	size_t n_inputs;
	/* FAILED or CANCELLED: */
	int error_code;
	char error_message[512];
	/* A split job's partition jobs, partitions entries in partition
	 * order: malloc'd by zkp_engine_job_info once the job is split (NULL
	 * before, and in Status copies). */
	zkp_partition_times *parts;
} zkp_job_info;

/* Fills *ret (release it with zkp_job_info_release). Errors:
 * ZKP_ERR_NOT_FOUND (never existed or forgotten from the history). */
int zkp_engine_job_info(zkp_engine *e, uint64_t job_id, zkp_job_info *ret);
void zkp_job_info_release(zkp_job_info *info);

/* The id of the queued, running or remembered finished job that has
 * request_id (non-empty): the newest one submitted with it. Errors:
 * ZKP_ERR_NOT_FOUND. */
int zkp_engine_find_request(zkp_engine *e, const char *request_id, uint64_t *job_id);

/* The digest of spec's inputs, as Submit takes it (a path is opened under
 * server.witness_dir for its file's identity). Errors: those of opening a
 * witness path (ZKP_ERR_DENIED, ZKP_ERR_NOT_FOUND), ZKP_ERR_INVAL (no
 * circuit, empty path), ZKP_ERR_NOMEM. Any thread. */
int zkp_engine_input_digest(zkp_engine *e, const zkp_job_spec *spec,
			    uint8_t out[ZKP_INPUT_DIGEST_BYTES], zkp_error *err);
/* Whether a Submit of request_id with inputs of this digest would attach
 * to a known job now (it would not when none holds request_id, when the
 * one holding it failed or was cancelled, or when its inputs differ). */
bool zkp_engine_request_attaches(zkp_engine *e, const char *request_id,
				 const uint8_t digest[ZKP_INPUT_DIGEST_BYTES]);

/* What the program's test hooks are, for --version and the log: NULL in a
 * production program, which reads no test variable. */
const char *zkp_engine_test_hooks(void);

/* Puts a job that ended before this engine started (a result read from the
 * journal) into the finished-job history: a new job id, and info's state
 * (DONE, FAILED or CANCELLED), circuit, request_id, input digest (none:
 * no Submit attaches to it), priority, result, error and queue and total
 * seconds (job_id, stage and timings are not read).
 * From then on it is found like any finished job (Await by id, Submit or
 * Await by request_id) and leaves the history like one; it counts in no
 * job counter.
 *
 * A DONE result with public inputs (any but a PoRep sector job's) is not
 * trusted as read: it stays RUNNING at stage VERIFY (*verifying set) until
 * its circuit is loaded (a load is asked for) and its proof verified again
 * against the circuit's key. Then it ends DONE, as read; or FAILED with
 * ZKP_ERR_CHECKSUM when the proof does not verify, and the proof is never
 * returned. Either end is an ordinary job event. Cancel leaves it alone.
 * Errors: ZKP_ERR_INVAL (not an end state, no request_id),
 * ZKP_ERR_NOT_FOUND (no such circuit configured), ZKP_ERR_BUSY (a job
 * already has that request_id), ZKP_ERR_NOMEM. */
int zkp_engine_restore_result(zkp_engine *e, const zkp_job_info *info, uint64_t *job_id,
			      bool *verifying, zkp_error *err);

/* Moves up to max pending events into ev, oldest first; returns how many. */
size_t zkp_engine_poll(zkp_engine *e, zkp_engine_event *ev, size_t max);

/* Asks the loader thread to load a circuit; ZKP_EVENT_LOAD with token
 * follows (rc 0 at once when it is already loaded). Errors: ZKP_ERR_NOT_FOUND,
 * ZKP_ERR_SHUTDOWN. */
int zkp_engine_load(zkp_engine *e, const char *circuit, uint64_t token, zkp_error *err);
/* Unloads an idle circuit. Errors: ZKP_ERR_NOT_FOUND, ZKP_ERR_BUSY (jobs
 * hold it or wait for it, or it is loading). */
int zkp_engine_unload(zkp_engine *e, const char *circuit, zkp_error *err);
/* The last load error of a circuit, for a LOAD event with rc != 0: returns
 * the last load's code (0 when it succeeded or none ran) and copies its
 * message into err. Errors: ZKP_ERR_NOT_FOUND. */
int zkp_engine_load_error(zkp_engine *e, const char *circuit, zkp_error *err);

typedef struct {
	char name[ZKP_CONFIG_NAME_MAX];
	bool loaded, loading, insecure_dev_key;
	uint64_t constraints, domain, inputs, aux; /* inputs without ONE */
	uint64_t pce_bytes, key_bytes, working_set;
	uint32_t refcount, queued;
	enum zkp_key_format key_format;
	uint64_t porep_sector_bytes; /* 0: not a PoRep circuit */
	uint64_t snap_sector_bytes;  /* 0: not a SnapDeals circuit */
	uint64_t window_post_sector_bytes, winning_post_sector_bytes; /* 0: not that PoSt circuit */
	char load_error[600];        /* the last load's error ("code: message"), "" when
				      * it succeeded or none ran */
} zkp_circuit_info;

typedef struct {
	uint32_t id;
	char device[32];
	uint64_t cpu_job, device_job, finalize_job;
	enum zkp_stage cpu_stage;
	uint32_t depth_used;
	uint64_t proofs;
} zkp_pipeline_info;

/* A device the pipelines prove on (gpus.devices). */
typedef struct {
	char name[32];  /* "cpu" or "cuda:N" */
	char kind[8];   /* "cpu" or "cuda" */
	uint32_t pipelines;
	/* A GPU's memory and what is in use on it (as its driver reports);
	 * for another device the memory budget and the admitted working sets. */
	uint64_t memory_bytes, memory_used_bytes;
	uint64_t faults;        /* stages that failed with ZKP_ERR_DEVICE */
	uint64_t cpu_fallbacks; /* of those jobs, proved again on the CPU */
	bool failed; /* a sticky GPU fault: every job fails on it until a restart */
	/* busy_known when its backend measures busy time (a GPU, not the CPU):
	 * busy_seconds since the engine made it, busy_fraction those over the
	 * wall seconds since then. */
	bool busy_known;
	double busy_seconds, busy_fraction;
	/* Device memory admission (gpus.device_memory; all 0 without a
	 * limit): the limit, what is reserved now and at most, and jobs that
	 * waited for room. */
	uint64_t memory_limit, memory_reserved, memory_peak, memory_waits;
} zkp_device_info;

typedef struct {
	uint64_t job_id;
	enum zkp_stage stage;
	double t; /* seconds since zkp_engine_new */
	uint64_t rss, allocated, resident;
} zkp_engine_snap;

typedef struct {
	double uptime;
	bool accepting;
	uint32_t queued[4]; /* by enum zkp_priority */
	zkp_pipeline_info *pipelines;
	size_t n_pipelines;
	zkp_device_info *devices;
	size_t n_devices;
	zkp_circuit_info *circuits;
	size_t n_circuits;
	zkp_job_info *jobs; /* queued and running, without results */
	size_t n_jobs;
	zkp_engine_snap snaps[ZKP_ENGINE_SNAPSHOTS];
	size_t n_snaps; /* oldest first */
	uint64_t budget, reserved, critical_reserve;
	uint64_t jobs_done, jobs_failed, jobs_cancelled; /* partition jobs included */
	/* PoRep sector jobs ended, by state (done, failed, cancelled). */
	uint64_t porep_done, porep_failed, porep_cancelled;
	/* SnapDeals update jobs ended, by state. */
	uint64_t snap_done, snap_failed, snap_cancelled;
	/* Submits whose request_id was held by a job with other inputs (a
	 * new job was made). */
	uint64_t requests_reused;
	/* Per stage: how many ran and their total seconds (for Metrics), and
	 * how many took at most zkp_stage_bucket_le[b] seconds (cumulative, as
	 * Prometheus histograms count). */
	uint64_t stage_count[ZKP_NSTAGES];
	double stage_seconds[ZKP_NSTAGES];
	uint64_t stage_buckets[ZKP_NSTAGES][ZKP_STAGE_BUCKETS];
} zkp_engine_status;

/* A consistent copy of the engine's state; release frees its arrays. */
int zkp_engine_get_status(zkp_engine *e, zkp_engine_status *ret);
void zkp_engine_status_release(zkp_engine_status *s);

/* Registers fn(arg), called once at the start of zkp_engine_free on the
 * freeing thread, before anything is torn down and without any engine lock
 * held: a front end that calls the engine from threads of its own (the
 * HTTP endpoint) stops doing so there, returning once none of its calls is
 * in progress. One hook per engine; NULL removes it. Any thread. */
void zkp_engine_set_free_hook(zkp_engine *e, void (*fn)(void *arg), void *arg);

/* Shutdown, step 1: refuse new jobs (ZKP_ERR_SHUTDOWN) and cancel the
 * queued ones; running jobs go on. */
void zkp_engine_drain(zkp_engine *e);
/* Jobs still running (admitted and not ended). */
size_t zkp_engine_running(zkp_engine *e);
/* Shutdown, step 2 (after the grace period): cancel every running job. */
void zkp_engine_cancel_all(zkp_engine *e);

#endif
