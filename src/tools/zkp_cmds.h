/*
 * Subcommands of the offline `zkp` tool. Each takes the arguments after
 * `zkp` (argv[0] is the subcommand's own name), prints its own --help, and
 * returns the process exit code: ZKP_EXIT_OK, ZKP_EXIT_FAIL when the
 * operation ran and failed (a file refused, a witness unsatisfied),
 * ZKP_EXIT_USAGE for bad arguments.
 */
#ifndef ZKPD_TOOLS_ZKP_CMDS_H
#define ZKPD_TOOLS_ZKP_CMDS_H

#include <stdbool.h>
#include <stdint.h>

#include "zkpd/backend.h"
#include "zkpd/circuit.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"

#define ZKP_EXIT_OK 0
#define ZKP_EXIT_FAIL 1
#define ZKP_EXIT_USAGE 2

int zkp_cmd_inspect(int argc, char **argv);
int zkp_cmd_check(int argc, char **argv);
int zkp_cmd_compile(int argc, char **argv);
int zkp_cmd_synth(int argc, char **argv);
int zkp_cmd_setup(int argc, char **argv);
int zkp_cmd_prove(int argc, char **argv);
int zkp_cmd_verify(int argc, char **argv);
int zkp_cmd_dev_ptau(int argc, char **argv);
int zkp_cmd_export_vk(int argc, char **argv);
int zkp_cmd_dev_key(int argc, char **argv);
int zkp_cmd_porep(int argc, char **argv);
/* zkp porep seal | check | prove | verify (zkp_porep_c2.c); sub names which. */
int zkp_cmd_porep_c2(const char *sub, int argc, char **argv);
int zkp_cmd_post(int argc, char **argv);
/* zkp post dev-vanilla (zkp_post_dev.c). */
int zkp_cmd_post_dev(int argc, char **argv);
int zkp_cmd_snap(int argc, char **argv);
/* zkp snap dev-update | prove | verify (zkp_snap_c2.c); sub names which. */
int zkp_cmd_snap_c2(const char *sub, int argc, char **argv);

/* Helpers shared by subcommands. */
/* Prints s as a JSON string literal (quoted, escaped). */
void zkp_print_json_string(const char *s);
/* Option values shared by several subcommands. Each prints
 * "zkp CMD: bad --OPTION 'ARG'" on stderr and returns -1 when arg is not
 * valid: a seed is a non-negative integer (decimal or 0x hex), a thread
 * count 1..1024. */
int zkp_parse_seed(const char *cmd, const char *arg, uint64_t *seed);
int zkp_parse_threads(const char *cmd, const char *arg, long *threads);
/* Circuit shapes (zkp_circuit_cli.c): a non-negative integer, and tree
 * arities "B-S-T", "B-S" or "B"; on error "zkp CMD: bad ..." on stderr and
 * -1. */
int zkp_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *v);
int zkp_parse_tree(const char *cmd, const char *arg, unsigned tree[3]);
/* 32 bytes as 64 hex digits (an optional 0x first), in the order given. */
int zkp_parse_hex32(const char *cmd, const char *opt, const char *arg, uint8_t out[32]);
/* Prints 32 bytes as 64 hex digits. */
void zkp_print_hex32(const uint8_t b[32]);
/* The output options of the circuit subcommands: -o FILE, --count, --json
 * and --help / -h. zkp_circuit_cli_opt takes argv[*i] when it is one of
 * them (moving *i past a value) and says whether it did;
 * zkp_circuit_cli_output checks that exactly one of -o and --count was
 * given, else prints "zkp CMD: give -o FILE or --count" and returns -1. */
typedef struct {
	const char *out;
	bool count, json, help;
} zkp_circuit_cli_opts;
bool zkp_circuit_cli_opt(zkp_circuit_cli_opts *o, int argc, char **argv, int *i);
int zkp_circuit_cli_output(const char *cmd, const zkp_circuit_cli_opts *o);
/* Monotonic seconds, and this process's peak RSS in MiB. */
double zkp_now(void);
double zkp_peak_rss_mib(void);
/* Counts the circuit fn(job) (out NULL) or writes it to out with label,
 * then prints its structural fingerprint (zkp_circuit_cli.c): as text
 * under title, or with json one object of constraints (synthesized rows),
 * rows (with the prover's input rows), inputs (with ONE), aux, a_aux,
 * b_input, b_aux, nnz_a, nnz_b, nnz_c (A with the input rows' one term
 * each); the time and peak RSS on stderr. Returns ZKP_EXIT_OK, or
 * ZKP_EXIT_FAIL after "zkp CMD: why" on stderr. */
int zkp_circuit_cli_run(const char *cmd, zkp_circuit_fn fn, void *job, const uint8_t *label,
			const char *out, const char *title, bool json);
/* That fingerprint on stdout, for a circuit written (out) or counted
 * (out NULL) some other way. */
void zkp_circuit_cli_report(const char *title, const zkp_pce_builder_stats *st, bool json,
			    const char *out);

/* Proving and verifying for the Filecoin subcommands (zkp_proof_cli.c).
 * Each prints "zkp CMD: why" on stderr when it fails. */
typedef struct {
	zkp_pce *pce;
	zkp_groth16_pk pk;
	zkp_groth16_pvk *pvk;
	zkp_pool *pool;
	zkp_backend *be;
	zkp_groth16_prover prover; /* the above, borrowed */
} zkp_cli_prover;
/* The circuit, its key and a CPU backend of `threads` threads; -1 on
 * failure (release p even then). */
int zkp_cli_prover_load(zkp_cli_prover *p, const char *cmd, const char *pce_path,
			const char *key_path, long threads);
void zkp_cli_prover_release(zkp_cli_prover *p);
/* A verifying key, prepared; -1 on failure. */
int zkp_cli_pvk_load(zkp_groth16_pvk **ret, const char *cmd, const char *vk_path);
/* n proofs, 192 bytes each, concatenated; -1 on failure. */
int zkp_cli_write_proofs(const char *path, const zkp_groth16_proof *proofs, unsigned n);
/* Exactly n proofs from path: -1 when the file is missing or has another
 * size (a usage error), 1 when a proof does not decode. */
int zkp_cli_read_proofs(const char *cmd, const char *path, zkp_groth16_proof *proofs, unsigned n);

/* zkp inspect for a Groth16 key or verifying key; returns the exit code. */
int zkp_inspect_key(const char *path, bool json);

#endif
