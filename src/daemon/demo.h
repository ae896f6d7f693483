/*
 * demo: the circuit zkpd serves when it runs without a configuration file,
 * so that a fresh install proves something at once.
 *
 * The circuit "demo" is a synthetic PoRep-shaped circuit (synth.h) of
 * ZKP_DEMO_CONSTRAINTS constraints with its witness, and an INSECURE
 * development key (groth16_prove.h, zkp_groth16_setup_dev, fixed seed):
 * whoever reads this file knows the key's toxic waste and can forge proofs
 * for it. It exists for demonstrations and tests only.
 *
 * Files in dir (made once; a later start reuses them when all are there):
 *   demo.pce, demo.wtns (a satisfying witness), demo.INSECURE-DEV.params,
 *   demo.INSECURE-DEV.vk (for `zkp verify`), and demo.ready, written last.
 * Threads: the caller's, before the server starts. Cost: about 10 s of
 * setup on 2 cores the first time; a stat of five files afterwards.
 */
#ifndef ZKPD_DAEMON_DEMO_H
#define ZKPD_DAEMON_DEMO_H

#include "zkpd/config.h"
#include "zkpd/error.h"

#define ZKP_DEMO_CONSTRAINTS ((1u << 14) - 16)

/* The default directory: $XDG_CACHE_HOME/zkpd/demo, else
 * $HOME/.cache/zkpd/demo, else /tmp/zkpd-UID/demo. */
void zkp_demo_default_dir(char *buf, size_t size);

/* Makes the files in dir if needed (creating dir), adds [circuit.demo]
 * (preloaded, insecure_dev_key) to cfg and, when cfg has no witness_dir,
 * sets it to dir so clients may name demo.wtns by path. Errors: ZKP_ERR_IO,
 * ZKP_ERR_NOMEM, the synthesizer's and setup's. */
int zkp_demo_prepare(zkp_config *cfg, const char *dir, zkp_error *err);

#endif
