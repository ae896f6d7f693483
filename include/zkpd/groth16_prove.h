/*
 * groth16_prove: the Groth16 prover over a pre-compiled circuit (pce.h), and
 * INSECURE development keys for any circuit.
 *
 * Invariants:
 *  - A proof is returned only after it verified against the key's own vk
 *    with the witness's public inputs; a proof that does not verify is an
 *    error, never an answer.
 *  - All NTTs and MSMs go through the backend's ops table (backend.h); the
 *    prover itself only does the row evaluation, pointwise products and
 *    the assembly. The B_G2 MSM runs on its own thread while the G1 MSMs
 *    run on the caller's.
 *  - The randomizers r and s come from OpenSSL RAND_bytes (64 bytes each,
 *    reduced mod r): two proofs of the same witness differ.
 *  - H follows the key's convention (groth16.h, enum zkp_groth16_h_conv):
 *      BELLMAN: roots 7^((r-1)/2^32), a, b, c to coefficients, evaluated on
 *        the coset 7 w^i, (a b - c) / (7^n - 1), inverse coset transform;
 *        the first n[H] coefficients are the H scalars.
 *      SNARKJS: roots 5^((r-1)/2^32), coefficients evaluated on the odd
 *        coset w_{2n} w^i, the n values a b - c are the H scalars.
 *    Both add one input row per input, ONE included (A = w_j, B = C = 0),
 *    after the circuit's rows, then zero-pad to the domain.
 *
 * Threads: zkp_groth16_prove may run on any thread and concurrently with
 * other proofs (each with its own witness); the key, circuit and backend are
 * only read. It starts one thread for the B_G2 MSM and joins it.
 *
 * Memory: three domain-size Fr vectors (a, b, c; 96 bytes per domain
 * point, the H scalars reuse a), two density bitmaps of (n_inputs + n_aux)
 * bits, plus what the backend's MSMs take as workspace.
 */
#ifndef ZKPD_GROTH16_PROVE_H
#define ZKPD_GROTH16_PROVE_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/backend.h"
#include "zkpd/error.h"
#include "zkpd/groth16.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"

/*
 * Where one proof's time goes: named spans, in the order they run. Every
 * stage call of groth16_job.h is covered from entry to return by
 * contiguous spans read from one clock (CLOCK_MONOTONIC), so the spans add
 * up to the stage calls' time by construction. A span may be entered more
 * than once (eval resumes after the satisfiability check); its seconds add.
 */
enum zkp_groth16_span {
	ZKP_GROTH16_SPAN_EVAL,      /* a, b, c allocated, A.w, B.w, C.w, the input rows */
	ZKP_GROTH16_SPAN_SAT_CHECK, /* a_i * b_i = c_i checked row by row */
	ZKP_GROTH16_SPAN_UPLOAD,    /* a, b, c and the witness copied to a device backend */
	ZKP_GROTH16_SPAN_NTT,       /* H: every transform and the pointwise step, waited for */
	ZKP_GROTH16_SPAN_MSM_SETUP, /* densities, the B_G2 MSM's inputs, its thread started */
	ZKP_GROTH16_SPAN_MSM_H,     /* each G1 MSM (its bases imported first when the */
	ZKP_GROTH16_SPAN_MSM_L,     /* job has no resident copy of them) */
	ZKP_GROTH16_SPAN_MSM_A,
	ZKP_GROTH16_SPAN_MSM_B_G1,
	ZKP_GROTH16_SPAN_G2_WAIT,   /* finish waiting for the B_G2 MSM's thread */
	ZKP_GROTH16_SPAN_ASSEMBLE,  /* randomizers and the proof's points */
	ZKP_GROTH16_SPAN_VERIFY,    /* preparing the vk if needed, verifying the proof */
	ZKP_GROTH16_SPANS
};

/* "eval", "sat_check", "upload", "ntt", "msm_setup", "msm_h", "msm_l",
 * "msm_a", "msm_b_g1", "g2_wait", "assemble", "verify"; "?" otherwise. */
const char *zkp_groth16_span_name(enum zkp_groth16_span s);

/* Seconds of one proof. span[] are the spans above; msm_b_g2 is the B_G2
 * MSM's own thread, which runs beside the G1 MSMs and is not a span (what
 * the caller waits for it is G2_WAIT). total: from a job (groth16_job.h)
 * the time of its stage calls so far, which the spans add up to; from
 * zkp_groth16_prove the whole call, which also covers making and freeing
 * the job (microseconds beside the spans). */
typedef struct {
	double span[ZKP_GROTH16_SPANS];
	double msm_b_g2;
	double total;
} zkp_groth16_prove_times;

/* The four G1 MSM spans together. */
static inline double zkp_groth16_g1_msms(const zkp_groth16_prove_times *t)
{
	return t->span[ZKP_GROTH16_SPAN_MSM_H] + t->span[ZKP_GROTH16_SPAN_MSM_L] +
	       t->span[ZKP_GROTH16_SPAN_MSM_A] + t->span[ZKP_GROTH16_SPAN_MSM_B_G1];
}

/* The spans' sum. */
static inline double zkp_groth16_spans_sum(const zkp_groth16_prove_times *t)
{
	double sum = 0;
	for (int s = 0; s < ZKP_GROTH16_SPANS; s++)
		sum += t->span[s];
	return sum;
}

/*
 * Proves that the witness w (n_w = n_inputs + n_aux Montgomery values,
 * w[0] = ONE) satisfies circuit pce, with key pk (any h_conv and
 * ab_layout groth16.h describes). be runs the NTTs and MSMs (any backend:
 * groth16_job.h says how a device's is driven); pool runs the row
 * evaluation (both may share a pool). times may be
 * NULL.
 * Errors (detail in err): ZKP_ERR_MISMATCH (n_w differs from the circuit's
 * n_inputs + n_aux; the key's shape differs from the circuit's, naming the
 * section; or the proof failed to verify for a witness that satisfies the
 * circuit: the key belongs to another circuit), ZKP_ERR_UNSATISFIED (the
 * witness fails a row; the detail names the first; found right after the
 * evaluation, before any NTT or MSM), ZKP_ERR_INVAL (w[0] is not
 * ONE), ZKP_ERR_UNSUPPORTED (a snarkjs key with 2^28 or more points),
 * ZKP_ERR_IO (the random generator failed), ZKP_ERR_NOMEM,
 * or the backend's error.
 * Cost: 3 pce evaluations; 6 (snarkjs) or 7 (bellman) NTTs of the domain
 * size; G1 MSMs over about n + n_aux + |A| + |B| points and a G2 MSM over
 * |B| points; one verification (about 2 ms).
 */
int zkp_groth16_prove(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
		      const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w, size_t n_w,
		      zkp_backend *be, zkp_pool *pool, zkp_error *err);

/* What proving one circuit's proofs needs, loaded once: the circuit, its
 * proving key and prepared verifying key (for the self-check after each
 * proof), the backend and the pool. Borrowed, not owned. */
typedef struct {
	const zkp_pce *pce;
	const zkp_groth16_pk *pk;
	const zkp_groth16_pvk *pvk;
	zkp_backend *be;
	zkp_pool *pool;
} zkp_groth16_prover;

/* Stage boundaries of one proof, for observers (memory tracker, benches). */
enum zkp_groth16_stage {
	ZKP_GROTH16_STAGE_EVAL, /* a, b, c evaluated (all three held) */
	ZKP_GROTH16_STAGE_NTT,  /* H computed; b and c still held */
	ZKP_GROTH16_STAGE_MSM,  /* every MSM joined, workspaces freed */
};

/* Called on the proving thread when a stage ends; it must not fail and
 * should be quick (a snapshot, a counter). */
typedef void (*zkp_groth16_stage_fn)(void *arg, enum zkp_groth16_stage stage);

/* zkp_groth16_prove, calling on_stage(arg, stage) at each boundary above
 * (on_stage may be NULL). Same errors and cost. */
int zkp_groth16_prove_staged(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			     const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w,
			     size_t n_w, zkp_backend *be, zkp_pool *pool,
			     zkp_groth16_stage_fn on_stage, void *arg, zkp_error *err);

/*
 * INSECURE development keys. Toxic waste tau, alpha, beta, gamma, delta is
 * drawn from RAND_bytes, or derived from seed (SHA-512 of a label and the
 * seed) when seed is not NULL, for reproducible tests; whoever knows it can
 * forge proofs for every statement. Never use these keys for anything of
 * value.
 *
 * Builds into *pk (released on error) a key for pce in convention conv,
 * from the Lagrange basis L_i of the domain at tau (input rows included):
 *   u_j, v_j, w_j = the A, B, C column polynomials at tau,
 *   ic_j = [(beta u_j + alpha v_j + w_j) / gamma]_1 for inputs,
 *   l_j  = [(beta u_j + alpha v_j + w_j) / delta]_1 for aux,
 *   a = [u_j]_1, b = [v_j]_1,2.
 * BELLMAN: roots 7^((r-1)/2^32), COMPACT A/B (by the circuit's densities),
 *   h_i = [tau^i Z(tau) / delta]_1, i < n - 1: what bellman's generator
 *   makes; zkp_groth16_pk_write_params can write it.
 * SNARKJS: roots 5^((r-1)/2^32), FULL A/B (infinity for empty columns),
 *   h_i = [L^(2n)_{2i+1}(tau) / delta]_1, i < n: the layout of a snarkjs
 *   .zkey's sections, held in memory only (for tests of that convention).
 * The vk has its G1 extras.
 * Errors: ZKP_ERR_IO (random generator), ZKP_ERR_NOMEM, ZKP_ERR_INVAL
 * (an unknown conv, a toxic value hit zero, or tau landed on the domain: probability about
 * 2^-220).
 * The points are [k]G for the scalars k computed here, made by be's
 * fixed_base ops (backend.h; be NULL: a CPU backend over pool): on a GPU
 * the device does them, and the key is the same byte for byte whatever
 * the backend. Errors also ZKP_ERR_DEVICE (the backend failed).
 * Cost: one fixed-base G1 multiplication per point (about 32 mixed
 * additions with an 8-bit window table), G2 for B; the Lagrange basis,
 * the transposed matrix passes and the scalars in parallel over pool.
 * Memory beside the key: 96 bytes per variable (u, v, w), 64 per domain
 * point (freed before the points are made), 128 MiB of scalars.
 */
int zkp_groth16_setup_dev(zkp_groth16_pk *pk, const zkp_pce *pce, enum zkp_groth16_h_conv conv,
			  const uint64_t *seed, zkp_backend *be, zkp_pool *pool, zkp_error *err);

#endif
