/*
 * What the Filecoin subcommands' prove and verify share (zkp_cmds.h): a
 * circuit, its key and a CPU backend loaded for proving, a verifying key,
 * and files of concatenated 192-byte proofs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkp_cmds.h"

int zkp_cli_prover_load(zkp_cli_prover *p, const char *cmd, const char *pce_path,
			const char *key_path, long threads)
{
	zkp_error err = { 0 };
	memset(p, 0, sizeof(*p));
	zkp_groth16_pk_init(&p->pk);
	if (zkp_pool_new(&p->pool, (unsigned)threads - 1) || zkp_backend_cpu_new(&p->be, p->pool)) {
		fprintf(stderr, "zkp %s: cannot start %ld threads\n", cmd, threads);
		return -1;
	}
	zkp_groth16_load_opts opts = { .pool = p->pool };
	if (zkp_pce_load(&p->pce, pce_path, 0, &err) ||
	    zkp_groth16_pk_load(&p->pk, key_path, &opts, &err) || zkp_groth16_pvk_new(&p->pvk, &p->pk.vk)) {
		fprintf(stderr, "zkp %s: %s\n", cmd, err.msg[0] ? err.msg : "loading the key");
		return -1;
	}
	p->prover = (zkp_groth16_prover){ p->pce, &p->pk, p->pvk, p->be, p->pool };
	return 0;
}

void zkp_cli_prover_release(zkp_cli_prover *p)
{
	zkp_backend_free(p->be);
	zkp_pool_free(p->pool);
	zkp_groth16_pvk_free(p->pvk);
	zkp_groth16_pk_release(&p->pk);
	zkp_pce_free(p->pce);
	memset(p, 0, sizeof(*p));
}

int zkp_cli_pvk_load(zkp_groth16_pvk **ret, const char *cmd, const char *vk_path)
{
	zkp_error err = { 0 };
	zkp_groth16_vk vk;
	zkp_groth16_vk_init(&vk);
	int rc = zkp_groth16_vk_load(&vk, vk_path, 0, &err) || zkp_groth16_pvk_new(ret, &vk);
	if (rc)
		fprintf(stderr, "zkp %s: %s\n", cmd, err.msg[0] ? err.msg : "loading the vk");
	zkp_groth16_vk_release(&vk);
	return rc ? -1 : 0;
}

int zkp_cli_write_proofs(const char *path, const zkp_groth16_proof *proofs, unsigned n)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		uint8_t b[ZKP_GROTH16_PROOF_BYTES];
		zkp_groth16_proof_to_bytes(b, &proofs[k]);
		fwrite(b, 1, sizeof(b), f);
	}
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int zkp_cli_read_proofs(const char *cmd, const char *path, zkp_groth16_proof *proofs, unsigned n)
{
	zkp_error err = { 0 };
	FILE *f = fopen(path, "rb");
	size_t want = (size_t)n * ZKP_GROTH16_PROOF_BYTES, got = 0;
	uint8_t *bytes = malloc(want + 1);
	if (f && bytes)
		got = fread(bytes, 1, want + 1, f);
	if (f)
		fclose(f);
	int rc = 0;
	if (!f || !bytes || got != want) {
		fprintf(stderr, "zkp %s: %s: want %zu bytes (%u partition proofs), read %zu\n", cmd,
			path, want, n, got);
		rc = -1;
	} else if (zkp_groth16_proofs_from_bytes(proofs, n, bytes, want, &err)) {
		fprintf(stderr, "zkp %s: %s\n", cmd, err.msg);
		rc = 1;
	}
	free(bytes);
	return rc;
}
