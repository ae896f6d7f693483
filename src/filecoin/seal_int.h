/*
 * seal_int: what the development sealers share inside the Filecoin layer.
 */
#ifndef ZKPD_FILECOIN_SEAL_INT_H
#define ZKPD_FILECOIN_SEAL_INT_H

#include "zkpd/porep_seal.h"

/* The sector takes ownership of the parents function's context it was
 * sealed with: zkp_porep_sector_free calls release(ctx) (it reads its
 * parents again for every challenge, so the graph must live as long). */
void zkp_porep_sector_adopt(zkp_porep_sector *sec, void (*release)(void *ctx));

#endif
