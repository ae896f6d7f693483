/*
 * The kernel launchers of cuda/ntt.cu and cuda/msm.cu, private to cuda/.
 * They enqueue work on the given stream and return the first CUDA error
 * (cudaSuccess otherwise); the shim turns errors into zkpd errors and owns
 * every allocation, so launchers take device pointers and workspaces.
 * The caller has already made the stream's device current.
 */
#ifndef ZKPD_CUDA_KERNELS_CUH
#define ZKPD_CUDA_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "bitpack.cuh"
#include "ec.cuh"
#include "ff.cuh"
#include "spmv.cuh"
#include "zkpd/msm.h"

/* ---- NTT ---- */

/* A domain's tables in device memory (ntt.h: tw holds n/2 powers of omega,
 * the coset tables 2^split and 2^(log_n - split) entries, n^-1 folded into
 * ci_hi). */
struct ntt_dev_domain {
	unsigned log_n, split;
	size_t n;
	dfr n_inv;
	const dfr *tw, *cs_lo, *cs_hi, *ci_lo, *ci_hi;
};

/* x (n elements) in place, as zkp_ntt does: coset scaling before a forward
 * transform, DIF for natural input, DIT for bit-reversed input to natural
 * output, a permutation pass when both orders are equal, and the inverse
 * scaling (n^-1, or the coset tables) after an inverse one. The stages run
 * in groups of up to 10 in shared memory (cuda/ntt.cu); the scalings are
 * fused into the first group's load and the last group's store. */
cudaError_t ntt_run(dfr *x, const ntt_dev_domain *d, bool inverse, bool coset,
		    bool in_bitrev, bool out_bitrev, cudaStream_t stream);

/* a[i] = (a[i] b[i] - c[i]) scale for i < n; scale NULL: no multiplication,
 * c NULL: no subtraction. scale is host memory, read before the launch
 * returns. */
cudaError_t ntt_h_pointwise(dfr *a, const dfr *b, const dfr *c, const dfr *scale, size_t n,
			    cudaStream_t stream);

/* x[i] = (x[rev(i)] - y[rev(i)]) scale for i < 2^log_n (ntt_bitrev_sub in
 * cuda/ntt.cuh); x and y do not overlap; scale as above. */
cudaError_t ntt_bitrev_sub(dfr *x, const dfr *y, const dfr *scale, unsigned log_n,
			   cudaStream_t stream);

/* ---- MSM (G1 and G2) ---- */

/* Device workspace bytes for n scalars of which at most cap (<= n) are
 * other than 0 and 1, with window c, kb windows a pass (0: the passes of
 * msm_pass_windows, within MSM_PASS_BYTES). */
size_t msm_g1_ws_size(size_t n, size_t cap, unsigned c, unsigned kb);
size_t msm_g2_ws_size(size_t n, size_t cap, unsigned c, unsigned kb);

/* Pippenger over n (< 2^31) scalars (Montgomery Fr, device memory the call
 * may overwrite: they leave holding their canonical limbs) and bases,
 * window c, kb windows a pass (0: msm_pass_windows), with the scalars 0
 * skipped and the scalars 1 summed by batch addition: writes the
 * K = msm_windows(c) window sums to win_host (host memory, K entries, XYZZ;
 * the sum of the ones is inside window 0's) and waits for them. cap: at
 * least the count of scalars other than 0 and 1 (n when not counted); the
 * bucket lists and chunks are sized by it, so a count below the true one
 * overruns them. ws holds msm_g?_ws_size(n, cap, c, kb) bytes, 256-byte
 * aligned. phases: NULL, or where the phases' device times go (CUDA
 * events between them; zkp_msm_phases). */
cudaError_t msm_g1_run(g1_xyzz *win_host, const g1_affine *bases, dfr *scalars, size_t n,
		       size_t cap, unsigned c, unsigned kb, void *ws, zkp_msm_phases *phases,
		       cudaStream_t stream);
cudaError_t msm_g2_run(g2_xyzz *win_host, const g2_affine *bases, dfr *scalars, size_t n,
		       size_t cap, unsigned c, unsigned kb, void *ws, zkp_msm_phases *phases,
		       cudaStream_t stream);

/* ---- evaluation (a = A.w, b = B.w, c = C.w) ---- */

/* out[r] = row r of m times w for r < m->rows, 0 up to n_out (device
 * memory throughout). Queued on stream. */
cudaError_t spmv_run(dfr *out, const spmv_csr *m, const dfr *w, size_t n_out, cudaStream_t stream);
/* *ret = the first r < m with a[r] b[r] != c[r], SPMV_NONE (UINT64_MAX)
 * when every row holds; first is one device word of workspace. Waits. */
cudaError_t spmv_first_unsat(uint64_t *ret, const dfr *a, const dfr *b, const dfr *c, size_t m,
			     unsigned long long *first, cudaStream_t stream);

/* out[i] = value i of the packed vector v of n values (device memory;
 * bitpack.cuh). Queued on stream. */
cudaError_t bitpack_unpack_run(dfr *out, const bitpack_view *v, size_t n, cudaStream_t stream);

/* ---- fixed-base multiplication (key setup) ---- */

/* out[i] = [scalars[i]] G for i < n (device memory): table is the
 * generator's window table (zkp_fixed_base_g?_table's layout, on the
 * device), tmp holds n XYZZ points of workspace. Queued on stream. */
cudaError_t fb_g1_run(g1_affine *out, g1_xyzz *tmp, const g1_affine *table, const dfr *scalars,
		      size_t n, cudaStream_t stream);
cudaError_t fb_g2_run(g2_affine *out, g2_xyzz *tmp, const g2_affine *table, const dfr *scalars,
		      size_t n, cudaStream_t stream);

/* *ret = the number of scalars i < n (< 2^31) that are neither 0 nor 1,
 * counted in count (device memory, one word) and waited for. */
cudaError_t msm_count_other(size_t *ret, const dfr *scalars, size_t n, uint32_t *count,
			    cudaStream_t stream);

/* Device workspace bytes for compacting n scalars. */
size_t msm_compact_ws_size(size_t n);

/* out[j] = scalars[i] for the set bits i < n of density (host memory,
 * ceil(n / 64) words; bits past n are ignored), j the rank of i among them:
 * the bitmap is uploaded, counted, scanned and scattered on the device.
 * out holds the population count; ws msm_compact_ws_size(n) bytes,
 * 256-byte aligned. Queued on stream; density may be freed on return. */
cudaError_t msm_compact(dfr *out, const dfr *scalars, const uint64_t *density, size_t n,
			void *ws, cudaStream_t stream);

#endif
