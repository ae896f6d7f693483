/*
 * fake_cudart: a stand-in for the CUDA runtime library, linked in place of
 * cudart so that the shim (cuda/shim.cu) and the launchers of cuda/ntt.cu
 * and cuda/msm.cu run on a machine without a GPU. Kernels are not run: a
 * launch is counted and returns. Device memory is host memory (calloc), so
 * copies and memsets really move bytes and AddressSanitizer sees every
 * access and every leak.
 *
 * It keeps the runtime's error model: a failing call leaves its error
 * pending until cudaGetLastError returns it (and clears it;
 * cudaPeekAtLastError does not clear); a launch reports its error only
 * through that pending error. A sticky error (fake_cuda_sticky) poisons
 * the fake context: every later call returns it, cudaGetLastError never
 * clears it, and frees release the memory but still return it.
 *
 * Fault injection: fake_cuda_fail_at(k, e) makes the k-th counted call
 * (1-based, counted from the last fake_cuda_reset) fail with e. Counted:
 * every entry point the shim calls, launches included, but not the error
 * strings and not the registration and launch-configuration hooks that
 * nvcc's generated code calls.
 *
 * Events: a kernel launch takes FAKE_CUDA_LAUNCH_MS of device time on
 * its stream (copies take none), and an event recorded on a stream is
 * stamped with that stream's device time so far. An event is complete at
 * once; with fake_cuda_lazy_events(true), only once waited for
 * (cudaEventSynchronize, or cudaStreamSynchronize of its stream), as work
 * still running on a device would be.
 *
 * Single-threaded use only (the counters are plain globals).
 */
#ifndef ZKPD_TEST_FAKE_CUDART_H
#define ZKPD_TEST_FAKE_CUDART_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Clears the counters, the pending and sticky errors and the injection.
 * Live allocations are kept (they are the leak check's business). */
void fake_cuda_reset(void);

/* The k-th counted call from now on (k >= 1) fails with CUDA error code
 * `code`; k = 0 injects nothing. */
void fake_cuda_fail_at(unsigned long k, int code);

/* The next call named `name` ("cudaMalloc", ...) fails with `code`, once.
 * name must outlive the injection (a string literal). */
void fake_cuda_fail_next(const char *name, int code);

/* cudaMalloc calls that succeeded since the last reset. */
unsigned long fake_cuda_mallocs(void);

/* Bytes of device memory allocated and not yet freed. */
size_t fake_cuda_live_device_bytes(void);

/* Stream k (1-based, in creation order since the last reset): how many
 * cudaStreamSynchronize calls on it succeeded. */
unsigned long fake_cuda_stream_syncs(unsigned long k);

/* The creation ordinal of the stream of the last host-to-device
 * cudaMemcpyAsync since the reset (0: none). */
unsigned long fake_cuda_last_upload_stream(void);

/* Counted calls since the last reset. */
unsigned long fake_cuda_calls(void);

/* Counted calls since the last reset that give the device work or take
 * resources: allocations, copies, memsets, launches, cudaGetLastError,
 * cudaMemGetInfo, stream creation; not frees, cudaSetDevice or
 * cudaStreamSynchronize. A dead backend must make none. */
unsigned long fake_cuda_work_calls(void);

/* The name of the call the injection hit ("" before it fired). */
const char *fake_cuda_failed_call(void);

/* Device allocations, pinned host allocations and streams alive now; frees
 * of pointers the fake never handed out (or handed out and freed). */
size_t fake_cuda_live_device(void);
size_t fake_cuda_live_pinned(void);
size_t fake_cuda_live_streams(void);
size_t fake_cuda_bad_frees(void);

/* Device time of one kernel launch, in milliseconds. */
#define FAKE_CUDA_LAUNCH_MS 1.0

/* Kernel launches that succeeded since the last reset. */
unsigned long fake_cuda_launches(void);

/* Events alive now (created and not destroyed). */
size_t fake_cuda_live_events(void);

/* Whether events complete only once waited for (see above); off after a
 * reset. */
void fake_cuda_lazy_events(bool on);

/* Whether CUDA error code `code` is one the fake treats as sticky: the
 * same set the CUDA documentation calls unrecoverable. */
bool fake_cuda_sticky(int code);

#ifdef __cplusplus
}
#endif

#endif
