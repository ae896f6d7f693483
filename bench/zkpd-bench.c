/*
 * zkpd-bench: benchmark programs that print one JSON object on stdout.
 * Subcommands are added as their layers land; see `zkpd-bench --help`.
 */
#include <stdio.h>
#include <string.h>

int bench_field_main(int argc, char **argv);
int bench_ntt_main(int argc, char **argv);
int bench_msm_main(int argc, char **argv);
int bench_spmv_main(int argc, char **argv);
int bench_prove_main(int argc, char **argv);
int bench_pipeline_main(int argc, char **argv);
int bench_load_main(int argc, char **argv);
int bench_porep_main(int argc, char **argv);
int bench_snap_main(int argc, char **argv);
int bench_stall_main(int argc, char **argv);
int bench_check_main(int argc, char **argv);

static const struct {
	const char *name;
	int (*main)(int, char **);
	const char *help;
} commands[] = {
	{ "field", bench_field_main, "field, curve and pairing operations (ns per op)" },
	{ "ntt", bench_ntt_main, "NTT over Fr: --log2 N [--threads T] [--coset]" },
	{ "msm", bench_msm_main,
	  "multi-scalar multiplication: --group g1|g2 --log2 N [--threads T] [--runs R] "
	  "[--mode auto|xyzz|affine] [--window C] [--split PCT]" },
	{ "spmv", bench_spmv_main,
	  "PCE evaluation vs the classic baseline: --pce FILE [--baseline-shape porep --seed S]" },
	{ "prove", bench_prove_main,
	  "Groth16 proof stages: (--pce P --key K | --synth LOG2) [--witness W | --seed S] "
	  "[--backends cpu,offhost,cuda[:N]] [--threads T] [--runs R] [--no-cache]" },
	{ "pipeline", bench_pipeline_main,
	  "memory of N proofs in K pipelines: --pce P --key K -n N --pipelines K --out DIR "
	  "[--baseline] [--no-purge] [--threads T] [--seed S] [--trust-key] [--no-cache] "
	  "[--sample-ms MS] [--c1 C1.json]" },
	{ "porep", bench_porep_main,
	  "PoRep partition circuit passes (shape, count, witness vs memory floor): "
	  "[--sector-size 2KiB | --nodes N --layers L --challenges C --tree B-S-T] [--runs R] "
	  "[--threads T] [--seed S]; or on a real C1: --c1 C1.json [--runs R] [--threads T]" },
	{ "snap", bench_snap_main,
	  "SnapDeals partition on a development update (decode, native check, shape, count, "
	  "witness vs memory floor, 32 GiB projection): [--sector-size 1KiB..32KiB] "
	  "[--partition K] [--runs R] [--seed S]" },
	{ "load", bench_load_main,
	  "load on a running zkpd: --connect ADDR [--connections N] [--status-calls M] "
	  "[--circuit C --witness W --proofs P --proof-clients K] [--runs R]" },
	{ "check", bench_check_main,
	  "MSM and NTT results checked in O(n) at any size: msm|ntt [--backend cpu|cuda[:N]|corrupt] "
	  "[--group g1|g2] [--log2 LO[..HI]] [--scalars KIND,...|all] [--runs R] [--spots K] "
	  "[--roots bellman|snarkjs] [--seed S] [--threads T] [--perturb]" },
	{ "stall", bench_stall_main,
	  "Health latency on a running zkpd while another client sends a large Submit: "
	  "--connect ADDR --circuit C [--bytes B] [--runs R] [--interval-ms MS]" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: zkpd-bench COMMAND [options]\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "--threads T defaults to every online CPU.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/* COMMAND --help: its options, exit 0. */
		for (int k = 2; k < argc; k++)
			if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
				printf("usage: zkpd-bench %s [options]\n%s\n"
				       "Prints one JSON object on stdout; docs/benchmarks.md, section "
				       "\"zkpd-bench %s\", explains every option and figure.\n",
				       commands[i].name, commands[i].help, commands[i].name);
				return 0;
			}
		return commands[i].main(argc - 1, argv + 1);
	}
	fprintf(stderr, "zkpd-bench: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
