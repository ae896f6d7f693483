/*
 * Subcommands of the offline `zkp` tool. Each takes the arguments after
 * `zkp` (argv[0] is the subcommand's own name), prints its own --help, and
 * returns the process exit code: ZKP_EXIT_OK, ZKP_EXIT_FAIL when the
 * operation ran and failed (a file refused, a witness unsatisfied),
 * ZKP_EXIT_USAGE for bad arguments.
 */
#ifndef ZKPD_TOOLS_ZKP_CMDS_H
#define ZKPD_TOOLS_ZKP_CMDS_H

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

#endif
