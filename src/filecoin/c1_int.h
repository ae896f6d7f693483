/*
 * c1_int: what the C1 reader (c1_read.c) and writer (c1_write.c) share:
 * the names Filecoin gives the published sector sizes and proof versions
 * (rust-filecoin-proofs-api src/registry.rs RegisteredSealProof, src/seal.rs
 * VanillaSealProof), and the partition counts of each version
 * (rust-fil-proofs filecoin-proofs/src/constants.rs).
 *
 * Kept here rather than taken from another module so the C1 format has no
 * dependency beyond porep.h: the names are part of the file format.
 */
#ifndef ZKPD_FILECOIN_C1_INT_H
#define ZKPD_FILECOIN_C1_INT_H

#include <stddef.h>
#include <stdint.h>

#define C1_SIZES 5
#define C1_MAX_PARTITIONS 126 /* NI-PoRep, 32 and 64 GiB */

/* "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" and their bytes, i < C1_SIZES. */
const char *c1_size_name(unsigned i);
uint64_t c1_size_bytes(unsigned i);

/* The size index of a vanilla_proofs tag ("StackedDrg<size>V1"), or -1. */
int c1_tag_size(const char *s, size_t len);
/* The size index of a registered_proof name (StackedDrg<size> followed by
 * V1, V1_1, V1_1_Feat_SyntheticPoRep or V1_2_Feat_NonInteractivePoRep), or
 * -1; *ni says whether it is NI-PoRep. */
int c1_proof_size(const char *s, size_t len, int *ni);
/* Partitions of a proof version: 1 or 10 (interactive and synthetic),
 * 13 or 126 (NI), for sectors up to 512 MiB or 32/64 GiB. */
unsigned c1_partitions(uint64_t sector_bytes, int ni);

#endif
