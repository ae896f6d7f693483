/*
 * engine_int: what engine.c, engine_circuits.c and engine_pipeline.c share.
 * Private to the engine; the server sees engine.h only.
 *
 * Invariants:
 *  - Everything in struct zkp_engine, struct circuit and struct job that
 *    more than one thread reads is guarded by e->lock, except:
 *      - a loaded circuit's pce, pk, pvk and model, which are written before
 *        `loaded` is set and stay put while refcount or queued is non-zero
 *        (unload is refused then);
 *      - a running job's proving buffers (w, n_w, gj, data), which belong to
 *        the one pipeline thread holding the job.
 *  - A job is in exactly one list at a time: a priority queue (QUEUED), the
 *    running list (RUNNING: admitted, held by a pipeline thread or waiting
 *    in one of its queues) or the history (ended). job_end moves it to the
 *    history exactly once.
 *  - notify is called only by unlock_notify, after the lock is released.
 */
#ifndef ZKPD_DAEMON_ENGINE_INT_H
#define ZKPD_DAEMON_ENGINE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "witness_path.h"
#include "engine.h"
#include "zkpd/backend.h"
#include "zkpd/groth16_job.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"

#define PRIO_LEVELS 4

/* Serving order: 0 for CRITICAL, the first served, to 3 for LOW. */
static inline int serve_rank(enum zkp_priority p)
{
	switch (p) {
	case ZKP_PRIO_CRITICAL: return 0;
	case ZKP_PRIO_HIGH: return 1;
	case ZKP_PRIO_NORMAL: return 2;
	default: return 3;
	}
}

struct job;
struct split_job;

/* A job that is proved as several partition jobs (engine_split.c). */
enum split_kind { SPLIT_NONE, SPLIT_POREP, SPLIT_SNAP };

struct jlist {
	struct job *head, *tail;
	size_t n;
};

struct circuit {
	zkp_config_circuit cfg; /* strings owned by the engine's config copy */
	bool insecure;
	/* Load state. */
	bool loaded, loading, want_load;
	zkp_pce *pce;
	zkp_groth16_pk pk;
	zkp_groth16_pvk *pvk;
	zkp_groth16_mem_model model;
	uint64_t ws; /* model.ws, rounded up */
	int load_rc;
	zkp_error load_err;
	double load_started;
	uint64_t *tokens; /* LoadCircuit calls waiting for the current load */
	size_t n_tokens, cap_tokens;
	/* Jobs holding it (admitted, not ended) and jobs queued for it. */
	uint32_t refcount, queued;
	/* The key's G1 queries resident on each device (e->n_devs entries,
	 * NULL until a job of this circuit first reaches that device; each
	 * made and read under its device's lock, freed at unload). */
	zkp_groth16_resident **rk;
	/* Its planned share of each device (e->n_devs entries, NULL until its
	 * first job reaches a device with a memory limit; engine_devmem.c),
	 * under the engine lock. */
	struct dev_plan *dplan;
	/* Measured stage seconds, moving averages over finished jobs. */
	double avg[ZKP_NSTAGES];
	bool have_avg;
};

struct job {
	uint64_t id;
	struct circuit *circ;
	enum zkp_job_state state;
	enum zkp_stage stage;
	enum zkp_priority prio;
	char request_id[ZKP_REQUEST_ID_MAX + 1];
	/* The digest of its inputs (engine_requests.c), set with a request_id;
	 * has_digest false for a result restored without one. */
	uint8_t digest[ZKP_INPUT_DIGEST_BYTES];
	bool has_digest;
	bool cancel;
	bool want_json;
	/* Witness (or C1) as submitted: bytes (owned) or a resolved path
	 * (owned). */
	uint8_t *data;
	size_t len;
	char *path;
	int fd; /* the file at path, opened at submit; meaningful while path is set */
	/* Restored from the journal (zkp_engine_restore_result); reverify:
	 * its proof waits in e->reverify to be verified again. */
	bool restored, reverify;
	/* Split jobs (engine_split.c): a PoRep sector or SnapDeals update job
	 * (split is its kind, sp set once split) or one of its partition jobs
	 * (split 0, sp set, partition k). The job holds a reference on sp
	 * until it ends. */
	enum split_kind split;
	bool post; /* a PoSt job: its data is a PoSt bundle (engine_post.c) */
	struct split_job *sp; /* NULL once the job ended */
	unsigned partition;
	uint64_t split_id;     /* a partition job's split job */
	uint32_t partitions, partitions_done; /* a split job's, once split */
	uint64_t ws; /* bytes reserved while admitted */
	bool admitted;
	double t_submit, t_start, t_end, t_stage;
	zkp_stage_timing stages[ZKP_NSTAGES];
	/* The job's timeline (engine.h, Time), under the lock: the span it is
	 * in since t_span (ZKP_NSPANS once it ended) and what every span got
	 * so far. Moved by job_span only. */
	enum zkp_span span;
	double t_span;
	zkp_span_times spans;
	/* A split job's partition jobs as they end (partitions entries, owned). */
	zkp_partition_times *parts;
	/* What its NTT and MSM stages added to its device's busy seconds
	 * (busy_known: the device measures them), under the lock. */
	bool busy_known;
	double busy;
	struct zkp_engine *e; /* for the prover's span observer */
	/* Proving state, owned by the pipeline thread holding the job. */
	zkp_fr *w;        /* the witness, whole; NULL once at rest packed ... */
	void *wpack;      /* ... here (engine_witness.c) */
	size_t wpack_bytes;
	size_t n_w;
	zkp_groth16_job *gj;
	struct device *dev; /* the device of the pipeline that took it (set under the lock) */
	bool fell_back;     /* proved on the CPU after a device fault */
	uint64_t dev_mem;   /* device memory reserved for its buffers (engine_devmem.c) */
	bool dev_eval;      /* a, b, c evaluated on the device (resident circuit) */
	uint64_t witness_up; /* bytes its eval sent a device for the witness (0: none) */
	bool witness_packed; /* ... and they were its packed form (zkpd/bitpack.h) */
	uint64_t witness_rest; /* bytes the host kept it in after eval, packed (0: whole) */
	/* Result. */
	uint8_t *proof; /* 192 bytes; a sector job's: 192 per partition */
	size_t proof_len;
	char *proof_json;
	uint8_t *inputs;
	size_t n_inputs;
	int error_code;
	char error_message[512];
	/* Links: the list the job is in, the id and request_id hash chains. */
	struct job *prev, *next;
	struct job *id_next, *rid_next;
};

/* One device the pipelines prove on: the CPU backend, or one GPU. */
struct device {
	uint32_t index;     /* in e->devs, and in each circuit's rk */
	int gpu;            /* CUDA device index; -1 for the CPU */
	char name[32];      /* "cpu", "cuda:N" or "offhost:N" */
	const char *kind;   /* "cpu", "cuda" or "offhost" (tests) */
	zkp_backend *be;
	zkp_backend *inner; /* under be when faults are injected, else NULL */
	zkp_backend *inner2; /* between them when both kinds are injected */
	zkp_backend *host;  /* under an offhost test device: its CPU backend */
	pthread_mutex_t lock; /* held for NTT and MSM kernel time, and for rk */
	bool lock_init;
	/* Under the engine lock: device faults seen (ZKP_ERR_DEVICE from a
	 * stage), and how many jobs were proved on the CPU instead (after a
	 * fault, or refused device memory). */
	uint64_t faults, fallbacks;
	/* Device memory admission (engine_devmem.c), under the engine lock:
	 * the bytes zkpd may use there (0: no limit, as on the CPU), what is
	 * planned for circuits (keys, matrices, tables) and the MSM workspace,
	 * what jobs hold, the most ever reserved, and jobs that waited. */
	uint64_t mem_cap, mem_keys, mem_msm, mem_jobs, mem_peak, mem_waits;
	double t_made; /* when it was made: the start of its busy fraction */
};

/* A circuit's share of one device (engine_devmem.c). */
struct dev_plan {
	bool planned;
	bool g2, matrices; /* held resident beside the G1 queries */
	uint64_t keys;     /* bytes counted for its resident copy and tables */
	uint64_t job;      /* one job's buffers */
};

struct pipeline {
	struct zkp_engine *e;
	uint32_t id;
	struct device *dev;
	pthread_t cpu_thr, dev_thr, fin_thr;
	bool cpu_started, dev_started, fin_started;
	pthread_cond_t cond; /* devq or finq changed, or a held job was cancelled */
	struct job **devq;   /* pipeline_depth slots, highest priority first */
	size_t devq_n;
	struct job *finq;
	uint64_t cpu_job, device_job, finalize_job;
	enum zkp_stage cpu_stage;
	uint64_t proofs;
};

struct zkp_engine {
	pthread_mutex_t lock;
	pthread_cond_t work_cond; /* queue, loads or memory changed: cpu threads */
	pthread_cond_t load_cond; /* a load was asked for: loader thread */
	zkp_engine_notify_fn notify;
	void *notify_arg;
	bool notify_pending;
	bool stopping, freeing;
	bool accepting;
	double t0;

	zkp_config cfg; /* private copy */
	zkp_witness_dir wdir; /* server.witness_dir, opened once; fd -1: unset */
	zkp_pool *pool;
	unsigned threads;

	struct circuit *circuits;
	size_t n_circuits;
	pthread_t loader_thr;
	bool loader_started;
	bool loads_started; /* zkp_engine_start_loads was called: the loader may load */

	/* The purger: memory.purge_between_stages runs off the jobs' threads,
	 * so a purge (milliseconds of madvise) never delays a stage. Requests
	 * made while one runs coalesce into one more. Own lock, never nested
	 * in the engine's. */
	pthread_t purge_thr;
	bool purge_started, purge_wanted, purge_stop;
	pthread_mutex_t purge_lock;
	pthread_cond_t purge_cond;
	uint64_t purges;

	struct device *devs;
	size_t n_devs;
	zkp_backend *cpu_be; /* gpus.fallback_cpu's backend (the CPU's) */
	struct pipeline *pipelines;
	size_t n_pipelines;

	/* Jobs. */
	uint64_t next_id;
	struct jlist queue[PRIO_LEVELS]; /* by enum zkp_priority */
	struct jlist running, history;
	struct jlist reverify; /* restored results waiting to be verified again */
	struct job **id_tab, **rid_tab;
	size_t tab_size, n_jobs;

	/* Memory admission. */
	uint64_t budget, reserved, critical_reserve_cfg;

	/* Events. */
	zkp_engine_event *events;
	size_t ev_head, ev_n, ev_cap;

	/* Statistics. */
	zkp_engine_snap snaps[ZKP_ENGINE_SNAPSHOTS];
	size_t snap_next, n_snaps;
	uint64_t jobs_done, jobs_failed, jobs_cancelled;
	uint64_t porep_done, porep_failed, porep_cancelled;
	uint64_t snap_done, snap_failed, snap_cancelled;
	uint64_t requests_reused; /* request_ids that came again with other inputs */
	uint64_t stage_count[ZKP_NSTAGES];
	double stage_seconds[ZKP_NSTAGES];
	uint64_t stage_buckets[ZKP_NSTAGES][ZKP_STAGE_BUCKETS];

	/* zkp_engine_set_free_hook. */
	void (*free_hook)(void *arg);
	void *free_hook_arg;
};

/* engine.c */
double eng_now(void);
void unlock_notify(struct zkp_engine *e);
void emit_job(struct zkp_engine *e, const struct job *j, bool stage_finished, double seconds);
void emit_queue(struct zkp_engine *e);
void emit_load(struct zkp_engine *e, uint64_t token, int rc);
/* Ends j (lock held): state, code and message, admission released, moved
 * to the history (the oldest entries beyond server.job_history freed),
 * counters, the job's summary log line and event. Frees witness bytes j still owns; callers that can
 * detach them first free them after unlocking instead. */
void job_end(struct zkp_engine *e, struct job *j, enum zkp_job_state state, int code,
	     const char *msg);
/* The first queued job a cpu stage may admit now, taken out of its queue
 * and marked RUNNING (lock held), or NULL. */
struct job *admit_next(struct zkp_engine *e);
/* Adds one run of stage s to the stage counters and histogram (lock held). */
void stage_count_add(struct zkp_engine *e, enum zkp_stage s, double seconds);
/* Records a stage's end (lock not held): snapshot, the stage's seconds
 * (the sum of its spans so far, zkp_span_stage), event. */
void stage_done(struct zkp_engine *e, struct job *j, enum zkp_stage s);
/* Moves j into span s at time t (lock held): the span it leaves is
 * charged t - t_span; a t before t_span counts as t_span (a job's time
 * never runs backwards). ZKP_NSPANS ends the timeline (job_end). */
void job_span(struct job *j, enum zkp_span s, double t);
/* job_span at eng_now(), taking the lock. */
void job_span_now(struct zkp_engine *e, struct job *j, enum zkp_span s);
/* Takes a snapshot into the ring for job_id at stage s (lock not held). */
void take_snapshot(struct zkp_engine *e, uint64_t job_id, enum zkp_stage s);
/* The job with this id, queued, running or in the history, or NULL (lock
 * held). */
struct job *job_find(struct zkp_engine *e, uint64_t id);
/* A new job of circuit c at priority p, given an id and queued at the end
 * of its priority's queue with its QUEUED event (lock held); NULL when out
 * of memory. */
struct job *job_enqueue(struct zkp_engine *e, struct circuit *c, enum zkp_priority p);
/* Cancels j (lock held); the state afterwards (j may be gone). */
enum zkp_job_state job_cancel(struct zkp_engine *e, struct job *j);

/* ---- split jobs (engine_split.c; kinds in engine_porep.c, engine_snap.c) ---- */

/* What one kind of split job does; the engine calls these without the
 * lock. */
struct split_ops {
	const char *what; /* "PoRep sector", "SnapDeals update": for messages */
	/* Reads j's input (j->data / j->len, or j->fd at j->path) for j's
	 * circuit with n_inputs inputs (ONE included), checks it, and sets
	 * sp->input, sp->name, sp->n (partitions), sp->n_pub and sp->pub (n *
	 * n_pub derived public inputs, without ONE). */
	int (*prepare)(struct split_job *sp, const struct job *j, uint64_t n_inputs,
		       zkp_error *err);
	/* Partition k's witness into w (inputs + aux values), its public
	 * inputs compared with sp->pub's. */
	int (*witness)(const struct split_job *sp, unsigned k, zkp_fr *w, uint64_t inputs,
		       uint64_t aux, zkp_pool *pool, zkp_error *err);
	void (*free_input)(void *input);
};

struct split_job {
	unsigned refs;
	const struct split_ops *ops;
	uint64_t split_id;
	void *input;    /* the kind's parsed input */
	char name[96];  /* what the input is, for the log ("StackedDrg2KiBV1_1 C1") */
	zkp_fr *pub;    /* n * n_pub derived public inputs, without ONE */
	size_t n_pub;
	unsigned n;     /* partitions */
	uint64_t *ids;  /* the partition jobs' ids */
	uint8_t *proofs; /* n * 192 */
	unsigned done;
	bool ended;
};

extern const struct split_ops porep_split_ops, snap_split_ops;
const struct split_ops *split_ops_of(enum split_kind k);

/* Runs a split job's WITNESS stage on the cpu thread holding it (lock not
 * held): read, check and derive, then queue the partition jobs. On
 * success its WITNESS stage (its WITNESS span, from admission) is recorded and the job is left
 * RUNNING, held by no thread, ended by its partitions (it may be gone by
 * the time this returns). An error is returned for the caller to end the job with. */
int split_run(struct zkp_engine *e, struct job *j, zkp_error *err);
/* A partition job's witness into j->w (lock not held). */
int split_witness(struct zkp_engine *e, struct job *j, zkp_error *err);
/* Called by job_end for a job with sp (lock held), after j's state is set:
 * a partition's result goes to its split job, which may end; the
 * reference is dropped. */
void split_job_ended(struct zkp_engine *e, struct job *j);
/* Cancels a split job once split (lock held): it ends CANCELLED, and its
 * partitions are cancelled. */
void split_cancel(struct zkp_engine *e, struct job *j);
/* The percent of a split job over all its partitions (running ones by
 * their own percent; lock held). */
void split_progress(struct zkp_engine *e, const struct job *j, double now, uint32_t *percent);
/* Drops a reference (freeing sp with the last). */
void split_unref(struct split_job *sp);
/* engine_post.c: a PoSt job's witness into j->w (lock not held), from
 * the PoSt bundle in j->data, checked and derived (post_c2.h). */
int post_witness(struct zkp_engine *e, struct job *j, zkp_error *err);

/* engine_witness.c: j's witness, whole (j->w) or at rest packed
 * (j->wpack), owned by the thread holding j; the tracker's witness
 * category follows it. */
/* After j's EVAL stage: packs the witness and frees the whole form when
 * j's prover reads it no more and packing makes it smaller; otherwise (or
 * out of memory) it stays whole. */
void witness_rest(struct zkp_engine *e, struct job *j);
/* Makes the witness whole again (a CPU fallback proves from it). Errors:
 * ZKP_ERR_NOMEM; the packed form is kept then. */
int witness_whole(struct job *j, zkp_error *err);
/* Values [begin, end) of the witness, in either form, into out. */
void witness_values(const struct job *j, zkp_fr *out, size_t begin, size_t end);
/* Frees either form. */
void witness_drop(struct job *j);

/* Percent of an ordinary job (engine.c). */
uint32_t job_percent(const struct job *j, double now);

/* Opens a witness or C1 path beneath server.witness_dir (witness_path.h)
 * into *fd (the caller closes it) and *size. Errors: ZKP_ERR_DENIED (no
 * witness_dir), ZKP_ERR_NOT_FOUND (no such readable file there; why goes
 * to the log). Any thread, no lock. */
int engine_open_witness(struct zkp_engine *e, const char *path, int *fd, uint64_t *size,
			zkp_error *err);

/* engine_requests.c: the table by request_id and the inputs' digests.
 * Lock held for all but the digests, which take no lock. */
void request_link(struct job **rid_tab, size_t size, struct job *j);
void request_unlink(struct zkp_engine *e, struct job *j);
struct job *request_find(struct zkp_engine *e, const char *rid);
/* Unlinks j from the table and clears its request_id: a newer job holds
 * it now; j stays findable by its id. */
void request_release(struct zkp_engine *e, struct job *j);
/* The job a Submit of rid with inputs of this digest attaches to: the one
 * holding rid, unless it failed or was cancelled, or its inputs differ
 * (then logged and counted in requests_reused). NULL: make a new job. */
struct job *request_attach(struct zkp_engine *e, const char *rid,
			   const uint8_t digest[ZKP_INPUT_DIGEST_BYTES]);
/* The digest of bytes, or of a path and the identity of its open file fd.
 * Errors: ZKP_ERR_NOMEM (OpenSSL), ZKP_ERR_IO (fstat). */
int request_digest_bytes(uint8_t out[ZKP_INPUT_DIGEST_BYTES], const char *circuit,
			 enum zkp_witness_kind kind, const uint8_t *data, size_t len);
int request_digest_file(uint8_t out[ZKP_INPUT_DIGEST_BYTES], const char *circuit,
			enum zkp_witness_kind kind, const char *path, int fd);

/* engine_circuits.c */
int circuits_init(struct zkp_engine *e);
void circuits_release(struct zkp_engine *e);
struct circuit *circuit_find(struct zkp_engine *e, const char *name);
/* ZKP_ERR_NOT_FOUND: no circuit named name, and the configured names (lock
 * held or not: the table never changes after zkp_engine_new). */
int circuit_not_found(const struct zkp_engine *e, const char *name, zkp_error *err);

/* Test hooks. engine_hooks.c (in the engine library) has them do nothing;
 * the test program zkpd-test-hooks links engine_testhooks.c instead, which
 * reads the environment. engine_test_devices: 1 when it made the test
 * devices e->devs (ZKPD_TEST_OFFHOST_DEVICES), 0 when none was asked for,
 * or an error. engine_test_faults: wraps d's backend in a fault-injecting
 * one when ZKPD_INJECT_DEVICE_FAULT_EVERY or _CORRUPT_EVERY asks for it. */
int engine_test_devices(struct zkp_engine *e, zkp_error *err);
int engine_test_faults(struct device *d, zkp_error *err);
/* Called as each job ends (engine lock held): with ZKPD_TEST_LEAK_BYTES_
 * PER_JOB=N, N bytes allocated, written and never freed, so the memory
 * checks can be shown to catch a leak in the engine. */
void engine_test_job_ended(struct zkp_engine *e);
/* Called by the loader thread as a load of circuit begins, no lock held:
 * with ZKPD_TEST_LOAD_WAIT_FILE=PATH it logs that the load waits and
 * returns once PATH exists, so a test can hold a load as long as it needs. */
void engine_test_load_begins(const char *circuit);
/* Ends a restored result's second verification (lock held): DONE when rc is
 * 0, else FAILED with ZKP_ERR_CHECKSUM and why, its proof dropped. Moves it
 * from e->reverify to the history and emits its end. */
void job_reverified(struct zkp_engine *e, struct job *j, int rc, const char *why);
/* ZKP_ERR_TRUNCATED, naming the file, when the loaded circuit's .pce or
 * mapped key cache was cut short under its mapping (mapguard.h): results
 * computed from it are void until it is unloaded and loaded again; else 0.
 * Any thread (reads a flag). */
int circuit_check_files(const struct circuit *c, zkp_error *err);
/* c's resident key slot on d, its slot array made on first use (engine
 * lock held; NULL: out of memory). The slot itself is read and written
 * under d's lock. */
/* engine_devmem.c: device memory admission. devmem_init sets d's limit:
 * gpus.device_memory, else free_bytes (what the device has free now; 0:
 * unknown, no limit) less 2 % and 256 MiB. devmem_admit (lock held), before
 * j's eval on pl's device: plans the circuit's share of the device on its
 * first job there, then waits in the DEVICE_MEMORY span (on pl->cond) until
 * j's buffers fit beside what is reserved. 0: reserved, or nothing to
 * reserve (no limit, or j runs on the CPU); ZKP_ERR_CANCELLED; ZKP_ERR_DEVICE
 * when it can never fit there (err gives the figures). devmem_release (lock
 * not held; any number of times): gives j's bytes back and wakes the
 * pipelines. devmem_plan_of: whether c's resident copy on d should hold B_G2
 * and the matrices (both when d has no limit). devmem_drop_circuit (lock
 * held, at unload): c's shares go back. */
int devmem_init(struct zkp_engine *e, struct device *d, uint64_t free_bytes);
uint64_t devmem_reserved(const struct device *d);
int devmem_admit(struct zkp_engine *e, struct pipeline *pl, struct job *j, zkp_error *err);
void devmem_release(struct zkp_engine *e, struct job *j);
void devmem_plan_of(struct zkp_engine *e, struct circuit *c, const struct device *d, bool *g2,
		    bool *matrices);
void devmem_drop_circuit(struct zkp_engine *e, struct circuit *c);

zkp_groth16_resident **circuit_resident_slot(struct zkp_engine *e, struct circuit *c,
					     const struct device *d);
/* Frees c's resident keys, each under its device's lock (engine lock not
 * held; no job may hold c). */
void circuit_drop_resident(struct zkp_engine *e, struct circuit *c);
/* The purger thread (engine_pipeline.c): start, ask for a purge (any
 * thread, engine lock not needed), stop and join. */
int purger_start(struct zkp_engine *e);
void purger_request(struct zkp_engine *e);
void purger_join(struct zkp_engine *e);

/* Asks the loader for c (lock held). */
void circuit_request_load(struct zkp_engine *e, struct circuit *c);
int loader_start(struct zkp_engine *e);
void loader_join(struct zkp_engine *e);
/* The effective critical reserve (lock held). */
uint64_t critical_reserve(const struct zkp_engine *e);

/* engine_pipeline.c */
int pipelines_init(struct zkp_engine *e, zkp_error *err);
int pipelines_start(struct zkp_engine *e);
/* Wakes every pipeline thread (lock held), e.g. after a cancel. */
void pipelines_wake(struct zkp_engine *e);
void pipelines_join(struct zkp_engine *e);
void pipelines_release(struct zkp_engine *e);

#endif
