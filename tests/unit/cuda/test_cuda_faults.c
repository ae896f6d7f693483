/*
 * The CUDA shim (cuda/shim.cu, with the launchers of cuda/ntt.cu and
 * cuda/msm.cu) linked against fake_cudart instead of the CUDA runtime, so
 * it runs here without a GPU. A scenario of backend calls that reaches
 * every CUDA call of the shim (creation, pinned memory in two sizes,
 * imports, uploads, an NTT that uploads its domain and one that finds it
 * cached, the pointwise H step and H's last step, sync, G1 MSMs with and
 * without a density bitmap, the G2 MSM, a G1 MSM with its phases timed,
 * the evaluation of a matrix and the row check, the unpack of a packed
 * witness, the fixed-base multiplication, memory info, teardown) is run once
 * clean, counting the runtime calls, then again with a failure injected at
 * each call in turn, once recoverable (cudaErrorMemoryAllocation) and once
 * sticky (cudaErrorIllegalAddress). Every run must:
 *  - finish (a SIGALRM after 20 s fails the test: a deadlock is a hang);
 *  - fail the call that met the error with ZKP_ERR_DEVICE (a failed
 *    allocation, copy, memset, launch or query always; a failed free or a
 *    stale error dropped before a launch may pass unnoticed), with the
 *    CUDA error's name in zkp_backend_cuda_last_error;
 *  - recoverable: succeed in every later call (the error does not linger
 *    in cudaGetLastError), the backend not marked failed;
 *  - sticky: fail every later call with ZKP_ERR_DEVICE, mark the backend
 *    failed, and give the device no further work (no allocation, copy or
 *    launch after the fault);
 *  - leave nothing behind: no device or pinned allocation, no stream, no
 *    bad free in the fake, and the tracker's device and pinned counters
 *    back at zero (the AddressSanitizer build checks host memory).
 * Then the MSM workspace: a second G1 MSM of the same size allocates
 * nothing, a larger one grows it, the tracker counts what is held, an
 * allocation that meets an out-of-memory lets the idle workspace go and
 * succeeds on its second try, one with nothing to let go fails, and
 * teardown frees everything. Then the upload stream: uploads go on the
 * second stream and wait for the kernels' stream only when they would
 * overwrite memory a queued NTT or H step still uses (or when more
 * operations are queued than the shim tracks), and not after a sync.
 * Then busy time: the device time the shim's event pairs measure equals
 * the fake's device time of every kernel launched (each launch takes
 * FAKE_CUDA_LAUNCH_MS), uploads and downloads add none, and work still in
 * flight counts only once it is reached, without the query waiting.
 * Then the MSM's phase times: each phase's equals the fake's device time
 * of its kernels, and together they hold every kernel of the MSM's run.
 * Last, scratch_bytes: the MSM workspace the shim keeps stays within the
 * bound device memory admission plans with, and the NTT tables are
 * exactly as planned.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_cudart.h"
#include "testutil.h"
#include "zkpd/backend.h"
#include "zkpd/backend_cuda.h"
#include "zkpd/ec.h"
#include "zkpd/log.h"
#include "zkpd/mem.h"
#include "zkpd/ntt.h"

/* cudaError_t values (driver_types.h), fixed by the CUDA ABI. */
#define CUDA_ERROR_MEMORY_ALLOCATION 2
#define CUDA_ERROR_ILLEGAL_ADDRESS 700

#define LOG_N 8
#define N (1u << LOG_N)
#define MAX_STEPS 32

static unsigned long checks, failures;

static void check(bool ok, const char *what, const char *step, unsigned long k)
{
	checks++;
	if (!ok && failures++ < 20)
		fprintf(stderr, "FAIL %s (step %s, injection at call %lu: %s)\n", what, step, k,
			fake_cuda_failed_call());
}

struct scene {
	zkp_backend *be;
	zkp_dbuf g1, g2, sc, a, b;
	void *pin;
	size_t pin_bytes;
	const zkp_ntt_domain *dom;
	const zkp_fr *host_sc;
	const zkp_g1_affine *host_g1;
	const zkp_g2_affine *host_g2;
	const uint64_t *density;
	const zkp_csr *host_m;
	zkp_backend_csr m;
};

static int st_new(struct scene *s)
{
	return zkp_backend_cuda_new(&s->be, 0, NULL);
}

static int st_pin(struct scene *s)
{
	s->pin_bytes = N * sizeof(zkp_fr);
	return zkp_backend_host_alloc(s->be, &s->pin, s->pin_bytes);
}

static int st_import(struct scene *s)
{
	int rc = zkp_backend_import_host(s->be, &s->g1, s->host_g1, N * sizeof(zkp_g1_affine));
	if (!rc)
		rc = zkp_backend_import_host(s->be, &s->g2, s->host_g2, N * sizeof(zkp_g2_affine));
	if (!rc)
		rc = zkp_backend_csr_import(s->be, &s->m, s->host_m);
	return rc;
}

static int st_alloc(struct scene *s)
{
	int rc = zkp_backend_alloc(s->be, &s->sc, N * sizeof(zkp_fr));
	if (!rc)
		rc = zkp_backend_alloc(s->be, &s->a, N * sizeof(zkp_fr));
	if (!rc)
		rc = zkp_backend_alloc(s->be, &s->b, N * sizeof(zkp_fr));
	return rc;
}

static int st_upload(struct scene *s)
{
	int rc = zkp_backend_upload(s->be, &s->sc, 0, s->host_sc, N * sizeof(zkp_fr));
	if (!rc)
		rc = zkp_backend_upload(s->be, &s->a, 0, s->host_sc, N * sizeof(zkp_fr));
	if (!rc)
		rc = zkp_backend_upload(s->be, &s->b, 0, s->host_sc, N * sizeof(zkp_fr));
	return rc;
}

static int st_ntt(struct scene *s)
{
	zkp_ntt_opts o = { false, true, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL };
	return zkp_backend_ntt(s->be, &s->a, s->dom, &o);
}

static int st_ntt_cached(struct scene *s)
{
	zkp_ntt_opts o = { true, false, ZKP_NTT_BITREV, ZKP_NTT_NATURAL };
	return zkp_backend_ntt(s->be, &s->b, s->dom, &o);
}

static int st_pointwise(struct scene *s)
{
	zkp_fr one;
	zkp_fr_set_one(&one);
	return zkp_backend_h_pointwise(s->be, &s->a, &s->b, &s->sc, &one, N);
}

static int st_h_coeffs(struct scene *s)
{
	zkp_fr one;
	zkp_fr_set_one(&one);
	return zkp_backend_h_coeffs(s->be, &s->a, &s->b, &one, LOG_N);
}

static int st_sync(struct scene *s)
{
	return zkp_backend_sync(s->be);
}

static int st_msm(struct scene *s)
{
	zkp_g1 r;
	return zkp_backend_msm_g1(s->be, &r, &s->g1, &s->sc, NULL, N, NULL);
}

static int st_msm_density(struct scene *s)
{
	zkp_g1 r;
	return zkp_backend_msm_g1(s->be, &r, &s->g1, &s->sc, s->density, N, NULL);
}

static int st_msm_g2(struct scene *s)
{
	zkp_g2 r;
	return zkp_backend_msm_g2(s->be, &r, &s->g2, &s->sc, NULL, N, NULL);
}

/* A G1 MSM with its phases timed (zkp_msm_opts.phases: events). */
static int st_msm_phases(struct scene *s)
{
	zkp_g1 r;
	zkp_msm_phases ph;
	const zkp_msm_opts o = { ZKP_MSM_AUTO, 0, false, 0, &ph };
	return zkp_backend_msm_g1(s->be, &r, &s->g1, &s->sc, NULL, N, &o);
}

static int st_download(struct scene *s)
{
	return zkp_backend_download(s->be, s->pin, &s->a, 0, N * sizeof(zkp_fr));
}

/* Another size: the kept block is let go (cudaFreeHost) before a new one. */
static int st_repin(struct scene *s)
{
	zkp_backend_host_free(s->be, s->pin, s->pin_bytes);
	s->pin = NULL;
	s->pin_bytes = (size_t)3 << 21;
	return zkp_backend_host_alloc(s->be, &s->pin, s->pin_bytes);
}

static int st_mem_info(struct scene *s)
{
	uint64_t total, used;
	return zkp_backend_cuda_mem_info(s->be, &total, &used);
}

static int st_spmv(struct scene *s)
{
	return zkp_backend_spmv(s->be, &s->a, &s->m, &s->sc, N);
}

/* a's first bytes read as a packed vector of N values, none dense (the
 * fake runs no kernel: only the launch and its bookkeeping count). */
static int st_unpack(struct scene *s)
{
	return zkp_backend_unpack(s->be, &s->b, &s->a, N, 0);
}

static int st_unsat(struct scene *s)
{
	uint64_t row;
	return zkp_backend_first_unsatisfied(s->be, &row, &s->a, &s->b, &s->sc, N);
}

static int st_fixed_base(struct scene *s)
{
	zkp_g1_affine p1[3];
	zkp_g2_affine p2[2];
	int rc = zkp_backend_fixed_base_g1(s->be, p1, s->host_sc, 3);
	if (!rc)
		rc = zkp_backend_fixed_base_g2(s->be, p2, s->host_sc, 2);
	return rc;
}

static int st_busy(struct scene *s)
{
	double busy;
	return zkp_backend_busy_seconds(s->be, &busy);
}

static int st_teardown(struct scene *s)
{
	zkp_backend_release(s->be, &s->g1);
	zkp_backend_release(s->be, &s->g2);
	zkp_backend_release(s->be, &s->sc);
	zkp_backend_release(s->be, &s->a);
	zkp_backend_release(s->be, &s->b);
	zkp_backend_csr_release(s->be, &s->m);
	zkp_backend_host_free(s->be, s->pin, s->pin_bytes);
	zkp_backend_free(s->be);
	return 0;
}

enum kind { SETUP, WORK, TEARDOWN };

static const struct {
	const char *name;
	int (*fn)(struct scene *s);
	enum kind kind;
} steps[] = {
	{ "new", st_new, SETUP },
	{ "host_alloc", st_pin, SETUP },
	{ "import", st_import, SETUP },
	{ "alloc", st_alloc, SETUP },
	{ "upload", st_upload, WORK },
	{ "ntt", st_ntt, WORK },
	{ "ntt cached", st_ntt_cached, WORK },
	{ "h_pointwise", st_pointwise, WORK },
	{ "h_coeffs", st_h_coeffs, WORK },
	{ "sync", st_sync, WORK },
	/* Before the MSMs: once their workspace is held, an allocation that
	 * meets an out-of-memory lets it go and succeeds (its own test). */
	{ "spmv", st_spmv, WORK },
	{ "first_unsatisfied", st_unsat, WORK },
	{ "unpack", st_unpack, WORK },
	{ "fixed_base", st_fixed_base, WORK },
	{ "msm_g1", st_msm, WORK },
	{ "msm_g1 density", st_msm_density, WORK },
	{ "msm_g2", st_msm_g2, WORK },
	{ "msm_g1 phases", st_msm_phases, WORK },
	{ "download", st_download, WORK },
	{ "host_alloc other size", st_repin, WORK },
	{ "mem_info", st_mem_info, WORK },
	{ "busy_seconds", st_busy, WORK },
	{ "teardown", st_teardown, TEARDOWN },
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

struct run {
	int rc[NSTEPS];
	bool ran[NSTEPS];
	unsigned long end[NSTEPS];      /* fake_cuda_calls() after the step */
	unsigned long work_end[NSTEPS]; /* fake_cuda_work_calls() after it */
	bool failed_after[NSTEPS];      /* zkp_backend_cuda_failed after it */
	char last[sizeof(((zkp_error *)0)->msg)]; /* last_error after the work steps */
};

/* The calls whose failure the step must report. */
static bool must_report(const char *call)
{
	static const char *const names[] = { "cudaMalloc",	 "cudaHostAlloc",
					     "cudaMemcpyAsync",	 "cudaMemsetAsync",
					     "kernel launch",	 "cudaMemGetInfo",
					     "cudaGetDeviceCount", "cudaStreamCreateWithFlags" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(call, names[i]) == 0)
			return true;
	return false;
}

static unsigned long current_k;

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL: the shim hung (deadlock) after an injected failure\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	char num[32];
	int len = snprintf(num, sizeof(num), "at call %lu\n", current_k);
	(void)!write(2, num, (size_t)len);
	_exit(1);
}

static void play(struct run *r, const struct scene *proto, unsigned long k, int code)
{
	struct scene s = *proto;
	memset(r, 0, sizeof(*r));
	fake_cuda_reset();
	fake_cuda_fail_at(k, code);
	current_k = k;
	alarm(20);
	bool setup_ok = true;
	for (size_t i = 0; i < NSTEPS; i++) {
		if (i > 0 && !s.be)
			break;
		if (steps[i].kind != TEARDOWN && !setup_ok)
			continue;
		if (steps[i].kind == TEARDOWN) {
			zkp_error e;
			zkp_backend_cuda_last_error(s.be, &e);
			snprintf(r->last, sizeof(r->last), "%s", e.msg);
		}
		r->rc[i] = steps[i].fn(&s);
		r->ran[i] = true;
		r->end[i] = fake_cuda_calls();
		r->work_end[i] = fake_cuda_work_calls();
		r->failed_after[i] = steps[i].kind != TEARDOWN && zkp_backend_cuda_failed(s.be);
		if (steps[i].kind == SETUP && r->rc[i])
			setup_ok = false;
	}
	alarm(0);
}

static void leaks(const char *what, unsigned long k)
{
	check(fake_cuda_live_device() == 0, "device memory freed", what, k);
	check(fake_cuda_live_pinned() == 0, "pinned memory freed", what, k);
	check(fake_cuda_live_streams() == 0, "stream destroyed", what, k);
	check(fake_cuda_live_events() == 0, "events destroyed", what, k);
	check(fake_cuda_bad_frees() == 0, "no bad free", what, k);
	check(zkp_mem_counter(ZKP_MEM_DEVICE) == 0, "device counter back to 0", what, k);
	check(zkp_mem_counter(ZKP_MEM_PINNED) == 0, "pinned counter back to 0", what, k);
}

/* Checks one injected run against the clean one. */
static void judge(const struct run *r, unsigned long k, int code, const char *code_name)
{
	bool sticky = fake_cuda_sticky(code);
	const char *call = fake_cuda_failed_call();
	size_t hit = NSTEPS;
	for (size_t i = 0; i < NSTEPS && r->ran[i]; i++)
		if (r->end[i] >= k) {
			hit = i;
			break;
		}
	check(hit < NSTEPS && *call, "the injected call was reached", "-", k);
	if (hit == NSTEPS)
		return;
	const char *name = steps[hit].name;
	for (size_t i = 0; i < hit; i++)
		check(r->rc[i] == 0, "steps before the fault succeed", steps[i].name, k);
	int rc = r->rc[hit];
	check(rc == 0 || rc == ZKP_ERR_DEVICE, "the fault is ZKP_ERR_DEVICE", name, k);
	if (must_report(call))
		check(rc == ZKP_ERR_DEVICE, "the failed call is reported", name, k);
	if (rc == ZKP_ERR_DEVICE && hit > 0 && steps[hit].kind != TEARDOWN)
		check(strstr(r->last, code_name) != NULL, "last_error names the CUDA error", name,
		      k);
	bool setup_failed = steps[hit].kind == SETUP && rc != 0;
	for (size_t i = hit + 1; i < NSTEPS; i++) {
		const char *si = steps[i].name;
		if (steps[i].kind == TEARDOWN) {
			check(r->ran[i] == (r->rc[0] == 0), "teardown runs when the backend exists",
			      si, k);
			continue;
		}
		if (setup_failed) {
			check(!r->ran[i], "no step after a failed setup", si, k);
			continue;
		}
		check(r->ran[i], "every step runs after a call that succeeded", si, k);
		if (sticky) {
			check(r->rc[i] == ZKP_ERR_DEVICE, "a dead device fails every call", si, k);
			check(r->work_end[i] == r->work_end[hit], "a dead device gets no work", si,
			      k);
			check(r->failed_after[i], "the device is marked failed", si, k);
		} else {
			check(r->rc[i] == 0, "a recoverable fault does not linger", si, k);
			check(!r->failed_after[i], "the device is not marked failed", si, k);
		}
	}
}

static void workspace(const struct scene *proto)
{
	struct scene s = *proto;
	const char *w = "workspace";
	fake_cuda_reset();
	check(st_new(&s) == 0 && st_import(&s) == 0 && st_alloc(&s) == 0 && st_upload(&s) == 0,
	      "setup", w, 0);
	zkp_g1 r1, r2;
	unsigned long m0 = fake_cuda_mallocs();
	check(zkp_backend_msm_g1(s.be, &r1, &s.g1, &s.sc, NULL, N / 2, NULL) == 0, "msm", w, 0);
	unsigned long m1 = fake_cuda_mallocs();
	check(m1 > m0, "the first MSM allocates its workspace", w, 0);
	check(zkp_backend_msm_g1(s.be, &r2, &s.g1, &s.sc, NULL, N / 2, NULL) == 0, "msm", w, 0);
	check(fake_cuda_mallocs() == m1, "a second MSM of the size allocates nothing", w, 0);
	check(zkp_backend_msm_g1(s.be, &r2, &s.g1, &s.sc, s.density, N / 2, NULL) == 0, "msm", w,
	      0);
	check(zkp_backend_msm_g1(s.be, &r2, &s.g1, &s.sc, NULL, N, NULL) == 0, "msm", w, 0);
	check(fake_cuda_mallocs() > m1, "a larger MSM grows it", w, 0);
	check(zkp_backend_msm_g1(s.be, &r2, &s.g1, &s.sc, s.density, N, NULL) == 0, "msm", w, 0);
	unsigned long m2 = fake_cuda_mallocs();
	check(zkp_backend_msm_g1(s.be, &r2, &s.g1, &s.sc, s.density, N / 2, NULL) == 0 &&
		      zkp_backend_msm_g1(s.be, &r2, &s.g1, &s.sc, NULL, N / 4, NULL) == 0,
	      "msm", w, 0);
	check(fake_cuda_mallocs() == m2, "smaller MSMs fit in it", w, 0);
	check(zkp_mem_counter(ZKP_MEM_DEVICE) == (uint64_t)fake_cuda_live_device_bytes(),
	      "the tracker counts the workspace", w, 0);

	size_t before = fake_cuda_live_device_bytes();
	zkp_dbuf extra;
	fake_cuda_fail_next("cudaMalloc", CUDA_ERROR_MEMORY_ALLOCATION);
	check(zkp_backend_alloc(s.be, &extra, N * sizeof(zkp_fr)) == 0,
	      "out of memory with an idle workspace: the retry succeeds", w, 0);
	check(fake_cuda_live_device_bytes() < before + N * sizeof(zkp_fr),
	      "the workspace was let go", w, 0);
	check(zkp_mem_counter(ZKP_MEM_DEVICE) == (uint64_t)fake_cuda_live_device_bytes(),
	      "the tracker follows", w, 0);
	check(!zkp_backend_cuda_failed(s.be), "the device is not marked failed", w, 0);
	zkp_dbuf more;
	fake_cuda_fail_next("cudaMalloc", CUDA_ERROR_MEMORY_ALLOCATION);
	check(zkp_backend_alloc(s.be, &more, N * sizeof(zkp_fr)) == ZKP_ERR_DEVICE,
	      "out of memory with no workspace to let go fails", w, 0);
	check(zkp_backend_msm_g1(s.be, &r2, &s.g1, &s.sc, NULL, N / 2, NULL) == 0,
	      "an MSM after that allocates its workspace again", w, 0);
	zkp_backend_release(s.be, &extra);
	st_teardown(&s);
	leaks(w, 0);
}

/* Uploads run on the second stream and wait for the kernels' stream only
 * when they would overwrite memory that queued work still uses. */
static void upload_stream(const struct scene *proto)
{
	struct scene s = *proto;
	const char *w = "upload stream";
	const unsigned long COMPUTE = 1, XFER = 2; /* creation order in the shim */
	const size_t bytes = N * sizeof(zkp_fr);
	fake_cuda_reset();
	check(st_new(&s) == 0 && st_alloc(&s) == 0, "setup", w, 0);
	check(st_upload(&s) == 0, "upload", w, 0);
	check(fake_cuda_last_upload_stream() == XFER, "uploads go on their own stream", w, 0);
	check(fake_cuda_stream_syncs(COMPUTE) == 0, "an upload into idle memory waits for no kernel",
	      w, 0);
	check(st_ntt(&s) == 0, "ntt", w, 0);
	unsigned long c0 = fake_cuda_stream_syncs(COMPUTE);
	check(zkp_backend_upload(s.be, &s.b, 0, s.host_sc, bytes) == 0 &&
		      zkp_backend_upload(s.be, &s.sc, 0, s.host_sc, bytes) == 0,
	      "upload", w, 0);
	check(fake_cuda_stream_syncs(COMPUTE) == c0,
	      "beside a queued NTT, uploads into other buffers do not wait for it", w, 0);
	check(zkp_backend_upload(s.be, &s.a, bytes / 2, s.host_sc, 64) == 0, "upload", w, 0);
	check(fake_cuda_stream_syncs(COMPUTE) == c0 + 1,
	      "an upload into the NTT's buffer waits for it", w, 0);
	check(zkp_backend_upload(s.be, &s.a, 0, s.host_sc, bytes) == 0 &&
		      fake_cuda_stream_syncs(COMPUTE) == c0 + 1,
	      "once waited for, the NTT holds nothing back", w, 0);
	check(st_pointwise(&s) == 0, "pointwise", w, 0);
	check(zkp_backend_upload(s.be, &s.sc, 0, s.host_sc, bytes) == 0 &&
		      fake_cuda_stream_syncs(COMPUTE) == c0 + 2,
	      "an upload into a buffer the H step reads waits for it", w, 0);
	for (int i = 0; i < 40; i++)
		check(st_ntt(&s) == 0, "ntt", w, i);
	check(zkp_backend_upload(s.be, &s.sc, 0, s.host_sc, bytes) == 0, "upload", w, 0);
	unsigned long c1 = fake_cuda_stream_syncs(COMPUTE);
	check(c1 > c0 + 2, "more queued operations than slots: the stream is waited for", w, 0);
	check(st_sync(&s) == 0 && zkp_backend_upload(s.be, &s.a, 0, s.host_sc, bytes) == 0 &&
		      fake_cuda_stream_syncs(COMPUTE) == c1 + 1,
	      "after sync, uploads wait for nothing", w, 0);
	check(fake_cuda_stream_syncs(XFER) > 0, "an upload waits for its own copy", w, 0);
	st_teardown(&s);
	leaks(w, 0);
}

static double busy_of(zkp_backend *be)
{
	double b = -1;
	return zkp_backend_busy_seconds(be, &b) ? -1 : b;
}

static bool near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

/* The busy time the shim measures is the device time of the kernels it
 * launched, and no more. */
static void busy_time(const struct scene *proto)
{
	struct scene s = *proto;
	const char *w = "busy time";
	const double tick = FAKE_CUDA_LAUNCH_MS * 1e-3;
	fake_cuda_reset();
	check(st_new(&s) == 0 && st_import(&s) == 0 && st_alloc(&s) == 0, "setup", w, 0);
	check(busy_of(s.be) == 0, "a new device has not been busy", w, 0);
	check(st_upload(&s) == 0 && st_pin(&s) == 0 && st_download(&s) == 0 && busy_of(s.be) == 0,
	      "copies are not busy time", w, 0);
	check(st_ntt(&s) == 0 && st_ntt_cached(&s) == 0 && st_pointwise(&s) == 0 &&
		      st_sync(&s) == 0 && st_msm(&s) == 0 && st_msm_density(&s) == 0,
	      "work", w, 0);
	unsigned long launched = fake_cuda_launches();
	check(launched > 0, "kernels were launched", w, 0);
	check(near(busy_of(s.be), (double)launched * tick),
	      "busy time is the launched kernels' device time", w, 0);
	check(st_msm_g2(&s) == 0 && fake_cuda_launches() > launched &&
		      near(busy_of(s.be), (double)fake_cuda_launches() * tick),
	      "the G2 MSM on the device adds its kernels' time", w, 0);
	launched = fake_cuda_launches();

	/* Work still running on the device counts once it is reached. */
	fake_cuda_lazy_events(true);
	double before = busy_of(s.be);
	check(st_ntt(&s) == 0 && st_pointwise(&s) == 0, "queued work", w, 0);
	unsigned long queued = fake_cuda_launches() - launched;
	check(queued > 0 && near(busy_of(s.be), before),
	      "work in flight is not counted yet, and the query does not wait for it", w, 0);
	check(st_sync(&s) == 0 && near(busy_of(s.be), before + (double)queued * tick),
	      "after sync it is", w, 0);
	check(st_msm(&s) == 0 && st_sync(&s) == 0 &&
		      near(busy_of(s.be), (double)fake_cuda_launches() * tick),
	      "an MSM counts whole once synced", w, 0);
	st_teardown(&s);
	leaks(w, 0);
}

/* zkp_msm_opts.phases: the phases' times are the fake's device time of
 * the kernels each holds (FAKE_CUDA_LAUNCH_MS a launch): every launch of
 * the MSM but the count of scalars other than 0 and 1 (before the run)
 * lies in one phase; each pass has 3 sort launches (histogram, scan,
 * scatter), 1 accumulation, the same scan steps and at least a finish, a
 * reduction and a gather; kb = 1 runs one pass a window. */
static void phase_times(const struct scene *proto)
{
	struct scene s = *proto;
	const char *w = "msm phases";
	const double L = FAKE_CUDA_LAUNCH_MS;
	fake_cuda_reset();
	check(st_new(&s) == 0 && st_import(&s) == 0 && st_alloc(&s) == 0 && st_upload(&s) == 0,
	      "setup", w, 0);
	unsigned passes[2] = { 0, 0 };
	for (unsigned kb = 0; kb < 2; kb++) {
		zkp_g1 r;
		zkp_msm_phases ph = { 1, 1, 1, 1, 1, 7 }; /* overwritten */
		const zkp_msm_opts o = { ZKP_MSM_AUTO, 0, false, kb, &ph };
		unsigned long l0 = fake_cuda_launches();
		check(zkp_backend_msm_g1(s.be, &r, &s.g1, &s.sc, NULL, N, &o) == 0, "msm", w, kb);
		double launched = (double)(fake_cuda_launches() - l0 - 1) * L;
		double sum = ph.prepare + ph.sort + ph.accumulate + ph.scan + ph.reduce;
		double p = ph.passes, scan_steps = ph.passes ? ph.scan / (p * L) : 0;
		passes[kb] = ph.passes;
		check(ph.passes > 0 && near(sum, launched), "every launch in one phase", w, kb);
		check(near(ph.sort, 3 * p * L) && near(ph.accumulate, p * L),
		      "sort and accumulation per pass", w, kb);
		check(near(scan_steps, (double)(unsigned)(scan_steps + 0.5)) && ph.reduce >= 3 * p * L &&
			      ph.prepare >= 2 * L,
		      "scan, reduction and preparation", w, kb);
	}
	check(passes[0] == 1 && passes[1] > 1, "one pass by default here, one a window with kb 1", w,
	      passes[1]);
	st_teardown(&s);
	leaks(w, 0);
}

/* scratch_bytes, what device memory admission plans with, bounds what the
 * shim keeps: the MSM workspace after G1 MSMs (plain and density) and a G2
 * MSM of N points, and the NTT tables of the domain exactly. */
static void scratch_bounds(const struct scene *proto)
{
	struct scene s = *proto;
	const char *w = "scratch bounds";
	fake_cuda_reset();
	check(st_new(&s) == 0 && st_import(&s) == 0 && st_alloc(&s) == 0 && st_upload(&s) == 0,
	      "setup", w, 0);
	uint64_t tables = 0, msm = 0, t2 = 0, m2 = 0;
	zkp_backend_scratch_bytes(s.be, LOG_N, N, N, N, &tables, &msm);
	zkp_backend_cuda_scratch_bytes(LOG_N, N, N, N, &t2, &m2);
	check(tables == t2 && msm == m2, "the op and the function agree", w, 0);
	zkp_backend_cuda_scratch_bytes(LOG_N + 4, N << 4, N << 4, N << 4, &t2, &m2);
	check(t2 > tables && m2 > msm, "and grow with the sizes", w, 0);
	/* A 32 GiB PoRep partition (docs/memory.md, "On a GPU"): its largest G1
	 * query is H's 2^27 - 1 points, B_G2 has 33,112,282 and the witness
	 * 130,170,221 variables. Its workspace is the MSM's copy of 2^27
	 * scalars (4 GiB) and one window pass (at most 4 GiB): 7.7 GiB, which
	 * with the G1 queries (38.2), B_G2 (5.9), matrices (4.0), tables (2.0)
	 * and one job (15.9) fits the about 76 GiB an 80 GB GPU leaves zkpd. */
	zkp_backend_cuda_scratch_bytes(27, ((size_t)1 << 27) - 1, 33112282, 130170221, &t2, &m2);
	check(t2 == ((uint64_t)1 << 26) * 32 + 2 * 32 * (((uint64_t)1 << 14) + ((uint64_t)1 << 13)) &&
		      m2 > ((uint64_t)15 << 29) && m2 < ((uint64_t)8 << 30),
	      "a 32 GiB partition's workspace is 7.5 to 8 GiB", w, (unsigned long)(m2 >> 20));
	size_t l0 = fake_cuda_live_device_bytes();
	check(st_msm(&s) == 0 && st_msm_density(&s) == 0 && st_msm_g2(&s) == 0, "msm", w, 0);
	size_t l1 = fake_cuda_live_device_bytes();
	check(l1 > l0 && l1 - l0 <= msm, "the MSM workspace kept is within the bound", w,
	      (unsigned long)(l1 - l0));
	check(st_ntt(&s) == 0 && st_sync(&s) == 0, "ntt", w, 0);
	check(fake_cuda_live_device_bytes() - l1 == tables, "the tables are as planned", w,
	      (unsigned long)(fake_cuda_live_device_bytes() - l1));
	st_teardown(&s);
	leaks(w, 0);
}

int main(void)
{
	tu_seed();
	zkp_log_set_level((enum zkp_log_level)-1); /* every injected fault logs an error */
	signal(SIGALRM, on_alarm);

	static zkp_fr host_sc[N];
	static zkp_g1_affine host_g1[N];
	static zkp_g2_affine host_g2[N];
	static uint64_t density[N / 64];
	for (size_t i = 0; i < N; i++) {
		uint64_t w[8];
		for (int j = 0; j < 8; j++)
			w[j] = tu_rand64();
		zkp_fr_from_wide(&host_sc[i], w);
		host_g1[i] = ZKP_G1_GENERATOR;
		host_g2[i] = ZKP_G2_GENERATOR;
	}
	for (size_t i = 0; i < N / 64; i++)
		density[i] = tu_rand64();
	/* A matrix of N rows: row r is w_r + 2 w_(r+1 mod N), one escape in
	 * row 0 and one overflow length (row 1 holds its 2 in overflow). */
	static uint8_t row_len[N], mcodes[2 * N];
	static uint32_t cols[2 * N], escapes[1] = { 0 }, overflow[1] = { 2 };
	static zkp_csr_block blocks[N / 64];
	static zkp_fr values[1];
	zkp_fr_set_u64(&values[0], 2);
	for (size_t r = 0; r < N; r++) {
		row_len[r] = r == 1 ? ZKP_CSR_ROW_LEN_OVERFLOW : 2;
		cols[2 * r] = (uint32_t)r;
		cols[2 * r + 1] = (uint32_t)((r + 1) % N);
		mcodes[2 * r] = ZKP_CSR_CODE_ONE;
		mcodes[2 * r + 1] = r == 0 ? ZKP_CSR_CODE_ESCAPE : ZKP_CSR_CODE_FIRST_VALUE;
	}
	for (size_t b = 0; b < N / 64; b++)
		blocks[b] = (zkp_csr_block){ 2 * 64 * b, b ? 1 : 0, b ? 1 : 0 };
	const zkp_csr host_m = { N, 2 * N, 1, 1, 1, row_len, blocks, cols, mcodes, escapes,
				 overflow, values };
	void *mem = aligned_alloc(64, zkp_ntt_domain_mem_size(LOG_N));
	zkp_ntt_domain dom;
	if (!mem || zkp_ntt_domain_init(&dom, LOG_N, ZKP_NTT_ROOTS_BELLMAN, NULL, mem, NULL)) {
		fprintf(stderr, "domain setup failed\n");
		return 1;
	}
	struct scene proto = { 0 };
	proto.dom = &dom;
	proto.host_sc = host_sc;
	proto.host_g1 = host_g1;
	proto.host_g2 = host_g2;
	proto.density = density;
	proto.host_m = &host_m;

	struct run clean;
	play(&clean, &proto, 0, 0);
	for (size_t i = 0; i < NSTEPS; i++)
		check(clean.ran[i] && clean.rc[i] == 0 && !clean.failed_after[i],
		      "the clean run succeeds", steps[i].name, 0);
	leaks("clean", 0);
	unsigned long total = fake_cuda_calls();
	printf("clean run: %lu runtime calls (%lu give work)\n", total, fake_cuda_work_calls());

	const struct {
		int code;
		const char *name;
	} codes[] = { { CUDA_ERROR_MEMORY_ALLOCATION, "cudaErrorMemoryAllocation" },
		      { CUDA_ERROR_ILLEGAL_ADDRESS, "cudaErrorIllegalAddress" } };
	for (size_t c = 0; c < 2; c++) {
		unsigned long f0 = failures;
		for (unsigned long k = 1; k <= total; k++) {
			struct run r;
			play(&r, &proto, k, codes[c].code);
			judge(&r, k, codes[c].code, codes[c].name);
			leaks(codes[c].name, k);
		}
		printf("%s at each of %lu calls: %lu failures\n", codes[c].name, total,
		       failures - f0);
	}
	unsigned long f0 = failures;
	workspace(&proto);
	printf("MSM workspace: %lu failures\n", failures - f0);
	f0 = failures;
	upload_stream(&proto);
	printf("upload stream: %lu failures\n", failures - f0);
	f0 = failures;
	busy_time(&proto);
	printf("busy time: %lu failures\n", failures - f0);
	f0 = failures;
	phase_times(&proto);
	printf("msm phases: %lu failures\n", failures - f0);
	f0 = failures;
	scratch_bounds(&proto);
	printf("scratch bounds: %lu failures\n", failures - f0);
	free(mem);
	printf("total %lu checks, %lu failures\n", checks, failures);
	return failures ? 1 : 0;
}
