/*
 * backend_cuda: the CUDA implementation of the backend ops table
 * (backend.h), built when ZKPD_CUDA is on; code that links zkp_cuda sees
 * ZKPD_HAVE_CUDA defined.
 *
 * Invariants:
 *  - One backend drives one device, chosen at creation. Every call makes
 *    that device current for the calling thread first and enqueues its work
 *    on the backend's own two streams, so nothing relies on a process-wide
 *    current device; several backends (one per device) may be used from
 *    the same threads. Uploads have a stream of their own, so a thread's
 *    upload copies in while another thread's kernels run; an upload into
 *    memory that a queued ntt, h_pointwise or h_coeffs still uses waits for that
 *    work first, so it never races it.
 *  - host_visible is false: buffers are device memory (cudaMalloc), counted
 *    in the memory tracker under ZKP_MEM_DEVICE while they live.
 *    import_host copies the host data once and keeps no reference to it.
 *  - upload and download return when the copy has completed; ntt,
 *    h_pointwise and h_coeffs return when the work is queued (sync waits); msm_g1 and
 *    msm_g2 return with the result. Buffers handed to queued work must stay
 *    alive until sync.
 *  - Views (zkp_dbuf_view) are accepted wherever a buffer is only read:
 *    download, MSM bases and scalars, h_pointwise's b and c, h_coeffs's
 *    c. upload, ntt, and h_pointwise's and h_coeffs's a refuse them
 *    (ZKP_ERR_INVAL).
 *  - host_alloc returns page-locked memory (cudaHostAlloc, made on the
 *    backend's device) in whole 2 MiB granules, counted at that size under
 *    ZKP_MEM_PINNED. host_free keeps up to two blocks for the next
 *    host_alloc of the same rounded size (page-locking gigabytes takes a
 *    good part of a second, and proofs of one circuit stage the same
 *    sizes); a host_alloc of another size lets kept blocks go, and so does
 *    zkp_backend_free. Freed for good with cudaFreeHost, which waits for
 *    device work still using the memory.
 *  - msm_g1 runs on the device (Pippenger, cuda/msm.cu); its opts select
 *    only the window (0: chosen from the count of scalars other than 0 and
 *    1, taken on the device in one pass first; or a forced c, clamped to
 *    4..20); the accumulation form is a CPU option and is ignored, and the
 *    0/1 split is always on: scalars 0 are skipped, the bases of scalars 1
 *    are summed by a batch addition kernel, and only the rest go through
 *    the buckets. Bucket sums are split into fixed-size chunks of work, so
 *    a scalar value repeated many times (which a client controls) costs no
 *    more serial time than uniform scalars. A density
 *    bitmap (host memory) is applied on the device: its ceil(n / 64) words
 *    are uploaded (8 bytes per 64 scalars), counted, scanned, and the
 *    selected scalars gathered into a temporary device buffer of 32 bytes
 *    per set bit; the scalars never cross the bus.
 *  - ntt runs the radix-2 stages in groups of up to 10 in shared memory
 *    (cuda/ntt.cu); results equal the CPU backend's bit for bit.
 *  - msm_g2 runs on the device too: the same kernels over Fp2, with the
 *    same options, split and density handling; the MSM workspaces are
 *    shared by both groups.
 *  - fixed_base_g1 / fixed_base_g2 (key setups) upload the generator's
 *    window table, then stream the host scalars through the device in
 *    chunks of 2^22 (one device block of up to 2.3 GiB for the call,
 *    freed at its end) and write the affine points to host memory: the
 *    same bytes as the CPU backend's.
 *  - Any CUDA failure returns ZKP_ERR_DEVICE; the CUDA message (call, file,
 *    line, cudaGetErrorString) is logged at error level and kept for
 *    zkp_backend_cuda_last_error. A failure never blocks: it is recorded
 *    under a lock of its own, taken around nothing else. A recoverable
 *    failure (an out-of-memory, a bad launch configuration) fails that call
 *    alone: the runtime's pending error is cleared before each launch
 *    sequence, so the next operation does not inherit it. A sticky fault
 *    (illegal address, launch failure, ECC error, assert, timeout: the
 *    context is lost) marks the backend failed (zkp_backend_cuda_failed):
 *    every later call returns ZKP_ERR_DEVICE at once without touching the
 *    device, frees still reach the runtime, and the process stays up; the
 *    daemon shows the device as failed and, with gpus.fallback_cpu, proves
 *    its jobs on the CPU. Only a restart brings the device back.
 *
 * Status: the device code compiles for sm_90, and every kernel body (the
 * per-thread functions of the cuda/ headers) runs on the CPU in test_cuda_math
 * against the C layers. The kernels, their launch configurations and this
 * shim have not yet run on a GPU: tests/gpu/test_gpu_backend.c and
 * bench/gpu-check.sh are the checks to run on one.
 */
#ifndef ZKPD_BACKEND_CUDA_H
#define ZKPD_BACKEND_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/backend.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/pool.h"

/* Number of CUDA devices. No device or no usable driver gives *n = 0 and
 * returns 0; any other CUDA failure gives *n = 0 and ZKP_ERR_DEVICE. */
int zkp_backend_cuda_count(int *n);

/* A backend on device `device` (0-based, < zkp_backend_cuda_count) with its
 * own streams (kernels; uploads). Errors: ZKP_ERR_INVAL (no such device), ZKP_ERR_NOMEM,
 * ZKP_ERR_DEVICE; err (may be NULL) gets the message. Free with
 * zkp_backend_free. */
int zkp_backend_cuda_new(zkp_backend **ret, int device, zkp_error *err);

/* The message of the last CUDA failure on this backend (code 0 and an empty
 * message if none). */
void zkp_backend_cuda_last_error(zkp_backend *be, zkp_error *ret);

/* True once a sticky fault has marked the backend failed (see above);
 * false for a backend that is not CUDA's. Any thread. */
bool zkp_backend_cuda_failed(zkp_backend *be);

/* The scratch_bytes op of the CUDA backend (backend.h), which needs no
 * device: the NTT tables of 2^log_n points and the MSM workspace at its
 * largest for G1 MSMs of up to n_g1 points, G2 ones of up to n_g2 and
 * density MSMs over n_all scalars. For planning without a GPU (zkp
 * inspect). */
void zkp_backend_cuda_scratch_bytes(unsigned log_n, size_t n_g1, size_t n_g2, size_t n_all,
				    uint64_t *tables, uint64_t *msm);

/* The backend's device memory: *total bytes, and *used = total - free
 * (cudaMemGetInfo: every process's allocations, not only this backend's).
 * Errors: ZKP_ERR_INVAL (not a CUDA backend), ZKP_ERR_DEVICE. */
int zkp_backend_cuda_mem_info(zkp_backend *be, uint64_t *total, uint64_t *used);

#endif
