/*
 * sockdir: the directories of zkpd's Unix sockets (server.listen and
 * grpc.listen; http.listen is TCP only): what --check-config says of them
 * and which one zkpd makes itself.
 *
 * The rule: zkpd creates a socket's directory D only when D does not
 * exist, D's name begins with "zkpd" (/run/zkpd, ${TMPDIR:-/tmp}/zkpd-UID,
 * $XDG_RUNTIME_DIR/zkpd) and D's parent exists. It never creates a parent
 * of D. D gets mode 0750 and server.socket_group when server.socket_mode
 * gives the group access, else mode 0700; the default socket's directory
 * is always 0700 (zkp_address_check_private_dir).
 *
 * Threads: any (they read the file system and the user database).
 */
#ifndef ZKPD_DAEMON_SOCKDIR_H
#define ZKPD_DAEMON_SOCKDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "zkpd/config.h"
#include "zkpd/error.h"

/* A user (group false) or group (group true) as written in the config: a
 * name or a number, for server.socket_owner and socket_group. Errors:
 * ZKP_ERR_CONFIG naming the option and the name. */
int zkp_socket_id(const char *text, bool group, unsigned *ret, zkp_error *err);

/* For --check-config: whether the directory of the socket path (given by
 * option, "server.listen" or "grpc.listen") exists, is a directory the
 * running user may create the socket in, and lets server.socket_group
 * reach the socket when socket_mode gives the group access. A directory
 * that zkpd will make (the rule above) passes, with *will_make set.
 * Errors: ZKP_ERR_CONFIG naming the option, the directory and what to do. */
int zkp_sockdir_check(const zkp_config *cfg, const char *option, const char *path,
		      bool *will_make, zkp_error *err);

/* zkp_sockdir_check for every Unix socket of cfg (server.listen,
 * grpc.listen): each problem on stderr and each directory made at start
 * on stdout, as "NAME: ...". Returns 1 when one has a problem, else 0. */
int zkp_sockdir_check_all(const zkp_config *cfg, const char *name);

/* At start, before the socket is bound: makes the directory of path when
 * the rule allows, else leaves it alone. Errors: ZKP_ERR_IO naming the
 * directory and, for a missing one zkpd may not or cannot make, how to
 * make it (systemd's RuntimeDirectory=, or install -d). */
int zkp_sockdir_make(const zkp_config *cfg, const char *path, zkp_error *err);

#endif
