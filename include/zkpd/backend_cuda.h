/*
 * backend_cuda: the CUDA implementation of the backend ops table
 * (backend.h), built when ZKPD_CUDA is on; code that links zkp_cuda sees
 * ZKPD_HAVE_CUDA defined.
 *
 * Invariants:
 *  - One backend drives one device, chosen at creation. Every call makes
 *    that device current for the calling thread first and enqueues its work
 *    on the backend's own stream, so nothing relies on a process-wide
 *    current device; several backends (one per device) may be used from
 *    the same threads.
 *  - host_visible is false: buffers are device memory (cudaMalloc), counted
 *    in the memory tracker under ZKP_MEM_DEVICE while they live.
 *    import_host copies the host data once and keeps no reference to it.
 *  - upload and download return when the copy has completed; ntt returns
 *    when the work is queued (sync waits); msm_g1 and msm_g2 return with the
 *    result. Buffers handed to a queued ntt must stay alive until sync.
 *  - msm_g1 runs on the device (Pippenger, cuda/msm.cu); its opts select
 *    only the window (0 or a forced c, clamped to 4..20); the accumulation
 *    form and the 0/1 split are CPU options and are ignored. A density
 *    bitmap is applied by compacting the scalars on the host (they are
 *    downloaded, compacted and uploaded again), so n scalars cost 64 n bytes
 *    of copies.
 *  - msm_g2 runs on the CPU (the B_G2 MSM stays on the host): bases and
 *    scalars are downloaded and the CPU Pippenger runs on the host pool
 *    (zkp_backend_cuda_set_host_pool; NULL: the calling thread).
 *  - Any CUDA failure returns ZKP_ERR_DEVICE; the CUDA message (call, file,
 *    line, cudaGetErrorString) is logged at error level and kept for
 *    zkp_backend_cuda_last_error. A device fault can leave the device
 *    unusable; later calls on that backend then fail the same way and the
 *    process stays up.
 */
#ifndef ZKPD_BACKEND_CUDA_H
#define ZKPD_BACKEND_CUDA_H

#include <stddef.h>

#include "zkpd/backend.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/pool.h"

/* Number of CUDA devices. No device or no usable driver gives *n = 0 and
 * returns 0; any other CUDA failure gives *n = 0 and ZKP_ERR_DEVICE. */
int zkp_backend_cuda_count(int *n);

/* A backend on device `device` (0-based, < zkp_backend_cuda_count) with its
 * own stream. Errors: ZKP_ERR_INVAL (no such device), ZKP_ERR_NOMEM,
 * ZKP_ERR_DEVICE; err (may be NULL) gets the message. Free with
 * zkp_backend_free. */
int zkp_backend_cuda_new(zkp_backend **ret, int device, zkp_error *err);

/* The pool the host-side work (the G2 MSM) runs on; NULL: the calling
 * thread. The pool must outlive the backend. Not thread-safe: call before
 * the backend is shared. No effect on a backend that is not CUDA's. */
void zkp_backend_cuda_set_host_pool(zkp_backend *be, zkp_pool *pool);

/* The message of the last CUDA failure on this backend (code 0 and an empty
 * message if none). */
void zkp_backend_cuda_last_error(zkp_backend *be, zkp_error *ret);

/* The pointwise step of H on a coset: a[i] = (a[i] b[i] - c[i]) zinv for
 * i < n, on the device (queued like ntt). a, b and c hold at least n Fr
 * elements. Errors: ZKP_ERR_INVAL (short buffers or not a CUDA backend),
 * ZKP_ERR_DEVICE. */
int zkp_backend_cuda_h_pointwise(zkp_backend *be, zkp_dbuf *a, const zkp_dbuf *b,
				 const zkp_dbuf *c, const zkp_fr *zinv, size_t n);

#endif
