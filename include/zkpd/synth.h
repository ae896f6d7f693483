/*
 * synth: synthetic circuits shaped like real ones, made for tests, benches
 * and memory tests that need a large satisfiable circuit with its witness
 * without the code that produced the real one.
 *
 * The PoRep shape imitates one partition of Filecoin's 32 GiB StackedDRG
 * PoRep circuit (docs/filecoin-circuits.md), scaled to any number
 * of constraints N. The full-size partition has 130,278,869 constraints,
 * 328 inputs (including ONE), 130,169,893 aux variables, non-zeros A
 * 309,405,051, B 130,327,340, C 282,656,500, and 25.4% of its aux variables
 * in B (ZKP_SYNTH_POREP_* below). A generated circuit keeps, at every
 * N >= 10^4, within a few percent of the full-size figures:
 *  - non-zeros per constraint in A, B and C;
 *  - aux variables per constraint;
 *  - the share of aux variables with a non-zero in B;
 * and has n_inputs = max(2, round(328 * N / 130,278,869)) inputs, of which
 * only ONE appears in B, as in the real circuit.
 *
 * Rows, by kind (shares of constraints, fixed for every N and seed):
 *  - booleanity (1 - b) * b = 0 of freshly allocated bits, 24.4%;
 *  - SHA-256 bit gadgets with +-1 coefficients (and 2 for XOR, as bellman
 *    writes it): XOR (2a) * b = a + b - c, 60.3%; AND a * b = c, 2%;
 *    CH (b - c) * a = ch - c, 7.6%; MAJ as b * c = bc then
 *    (2bc - b - c) * a = bc - maj, 4%;
 *  - bit packing (sum 2^i b_i) * ONE = x over 254 bits (a label or digest
 *    becoming a field element), 0.31%; packed 32-bit additions in the style
 *    of bellman's MultiEq: four additions x + y = r checked in one row,
 *    (sum 2^(33k+i) (x_ki + y_ki)) * ONE = sum 2^(33k+i) r_ki, whose 33-bit
 *    results are among the booleanity rows above, 0.083%;
 *  - Poseidon-style rows (arity 8, width 9, 8 full and 57 partial rounds,
 *    neptune's legacy layout): per S-box a materialization
 *    (sum_i M[j][i] s_i) * ONE = v with a mixing row as coefficients, then
 *    v * v = v2, v2 * v2 = v4, v * v4 = out - k * ONE, 1.3%. Full rounds mix
 *    with neptune's Cauchy MDS matrix M[i][j] = 1/(i + j + 9); partial
 *    rounds with pseudo-random vectors, and round constants are
 *    pseudo-random, both from a fixed seed (the same for every circuit);
 *  - one packing row per public input beyond ONE:
 *    (sum 2^i b_i) * ONE = input, over 64 bits.
 * Rows are interleaved by a deterministic scheduler (largest deficit
 * first against the shares above), so every prefix of the stream keeps the
 * mix. Operands are drawn from recently allocated variables; the seed only
 * picks operands and bit values, never the structure: the dimensions and
 * non-zero counts depend on N alone, the matrices and witness on (N, seed).
 *
 * Every row holds for the witness the generator fills; terms within a
 * linear combination have distinct columns and non-zero coefficients, so
 * the counts in zkp_synth_info equal those a pce builder stores.
 *
 * Threads: functions here share no state; any thread, any number at once.
 * Memory: a few hundred KiB of generator state plus n/4 bytes of density
 * bitmaps for the statistics; the circuit itself only ever exists in the
 * sink.
 */
#ifndef ZKPD_SYNTH_H
#define ZKPD_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/pce.h"

/* The 32 GiB PoRep partition the shape follows (docs/filecoin-circuits.md,
 * 'What the tests pin'). */
#define ZKP_SYNTH_POREP_CONSTRAINTS 130278869ULL
#define ZKP_SYNTH_POREP_INPUTS 328ULL
#define ZKP_SYNTH_POREP_AUX 130169893ULL
#define ZKP_SYNTH_POREP_NNZ_A 309405051ULL
#define ZKP_SYNTH_POREP_NNZ_B 130327340ULL
#define ZKP_SYNTH_POREP_NNZ_C 282656500ULL
#define ZKP_SYNTH_POREP_AUX_IN_B 33112281ULL
#define ZKP_SYNTH_POREP_AUX_IN_A 129753292ULL

/* Largest N accepted: columns must fit u32 with room for the inputs. */
#define ZKP_SYNTH_MAX_CONSTRAINTS ((uint64_t)1 << 31)

/* Receives one constraint A.w * B.w = C.w as three term lists. The lists
 * are the generator's scratch, valid only during the call. Returning
 * non-zero stops the generator, which returns that code (the sink fills
 * err). zkp_pce_builder_add has this shape with a builder as ctx; see
 * zkp_synth_builder_sink. */
typedef int (*zkp_synth_sink)(void *ctx, const zkp_pce_term *a, size_t na,
			      const zkp_pce_term *b, size_t nb, const zkp_pce_term *c, size_t nc,
			      zkp_error *err);

/* Sink adapter: ctx is a zkp_pce_builder. */
int zkp_synth_builder_sink(void *ctx, const zkp_pce_term *a, size_t na,
			   const zkp_pce_term *b, size_t nb, const zkp_pce_term *c, size_t nc,
			   zkp_error *err);

typedef struct {
	uint64_t n_constraints;
	uint64_t n_inputs; /* including ONE */
	uint64_t n_aux;
	uint64_t nnz[3];      /* A, B, C */
	uint64_t aux_in_a;    /* aux variables with a non-zero in A */
	uint64_t aux_in_b;    /* ... in B */
	uint64_t inputs_in_b; /* inputs with a non-zero in B (ONE only) */
	uint64_t bit_rows;      /* booleanity, XOR, AND, CH, MAJ */
	uint64_t packing_rows;  /* bit packing, packed additions, inputs */
	uint64_t poseidon_rows;
	uint64_t poseidon_hashes; /* completed permutations */
} zkp_synth_info;

/* Figures that define the shape, per constraint unless said otherwise. */
typedef struct {
	double a_per_row, b_per_row, c_per_row;
	double aux_per_row;
	double aux_in_b; /* share of aux variables */
	double aux_in_a;
} zkp_synth_ratios;

/* Streams the PoRep-shaped circuit of n_constraints rows made from seed
 * into sink (may be NULL: nothing receives the rows), in order, and fills
 * witness (may be NULL; else n_inputs + n_aux Montgomery values, sizes
 * from zkp_synth_porep_dims) so that every row holds. Each row's new
 * variables are written to witness before the row reaches the sink, so a
 * sink may evaluate the row against witness at once. info (may be NULL)
 * receives the dimensions and counts.
 * Errors: ZKP_ERR_RANGE (n_constraints = 0 or above
 * ZKP_SYNTH_MAX_CONSTRAINTS), ZKP_ERR_NOMEM, or whatever the sink returns.
 * Cost: about 60-80 ns per constraint plus the sink, and about 1 ms for
 * the constant tables; single-threaded. */
int zkp_synth_porep(uint64_t n_constraints, uint64_t seed, zkp_synth_sink sink, void *ctx,
		    zkp_fr *witness, zkp_synth_info *info, zkp_error *err);

/* The info zkp_synth_porep would return, for any seed: run this first to
 * size a builder and a witness. Same cost as a run without sink and witness. */
int zkp_synth_porep_dims(uint64_t n_constraints, zkp_synth_info *info, zkp_error *err);

/* n_inputs for n_constraints: max(2, round(328 * n / 130,278,869)). */
uint64_t zkp_synth_porep_inputs(uint64_t n_constraints);

/* The ratios info achieved, and those of the full-size circuit. */
void zkp_synth_ratios_of(zkp_synth_ratios *ret, const zkp_synth_info *info);
void zkp_synth_porep_target(zkp_synth_ratios *ret);

/* Writes w (count values, Montgomery) as a circom .wtns file, version 2,
 * BLS12-381's r, 32-byte canonical little-endian values, atomically (a
 * temporary file in the same directory, fsync, rename, fsync of the
 * directory). Errors: ZKP_ERR_RANGE (count = 0 or >= 2^32, the format's
 * limit), ZKP_ERR_IO (names the path and the system error). */
int zkp_synth_write_wtns(const char *path, const zkp_fr *w, uint64_t count, zkp_error *err);

#endif
