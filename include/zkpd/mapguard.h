/*
 * mapguard: file mappings that survive their file being cut short.
 *
 * zkpd keeps circuits (.pce) and key caches (.zkpc) mapped for as long as
 * they are loaded, and maps a key's source while decoding it. When another
 * process truncates such a file, a read of a page past the new end raises
 * SIGBUS, which would kill the daemon and every job in it. A range
 * registered here is guarded instead: the SIGBUS handler puts a page of
 * zeros over the faulting page, marks the range damaged and lets the read
 * go on. The owner asks zkp_mapguard_damaged after the work that read the
 * range and fails that work (a job, a load) with a message naming the file:
 * zeros read from a damaged range never reach a result.
 *
 * Invariants:
 *  - A SIGBUS outside every registered range keeps its default action (the
 *    process dies, as without the guard): only file mappings are guarded,
 *    never a bug.
 *  - Registering and unregistering may happen on any thread, concurrently
 *    with faults on others; the handler reads the table without locks.
 *  - At most ZKP_MAPGUARD_MAX ranges are guarded at once; past that a
 *    range is not guarded (zkp_mapguard_add says so) and works as before.
 *
 * Threads: any.
 */
#ifndef ZKPD_MAPGUARD_H
#define ZKPD_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>

#define ZKP_MAPGUARD_MAX 256

/* Guards [base, base + len), a mapping of a file (installs the SIGBUS
 * handler on first use). Returns a handle > 0, or 0 when the table is full
 * or the handler cannot be installed (the range is then unguarded). */
int zkp_mapguard_add(const void *base, size_t len);
/* Stops guarding (before the range is unmapped). 0 is ignored. */
void zkp_mapguard_remove(int handle);
/* Whether a read of the range faulted since it was added: the file was cut
 * short under the mapping and some of what was read is zeros. */
bool zkp_mapguard_damaged(int handle);

#endif
