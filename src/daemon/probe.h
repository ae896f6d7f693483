/*
 * probe: who already serves an address zkpd cannot take, for the message
 * of a start that fails. It connects as a client, asks the peer's process
 * id from the kernel (SO_PEERCRED) and sends one Health call; it never
 * changes anything on the peer.
 *
 * Threads: any; blocks at most timeout_ms for the answer.
 */
#ifndef ZKPD_DAEMON_PROBE_H
#define ZKPD_DAEMON_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether something accepts connections on the Unix socket at path. When it
 * does, desc gets who: "another zkpd (pid N, version V)" when it answers
 * Health as zkpd does, "another zkpd (pid N)" when it refuses the call
 * (server.token_file), else "another process (pid N)". */
bool zkp_probe_unix(const char *path, int timeout_ms, char *desc, size_t size);

#endif
