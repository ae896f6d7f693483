/*
 * probe: a Health call to whatever serves a Unix socket (probe.h).
 */
#define _GNU_SOURCE /* struct ucred */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "probe.h"
#include "wire.h"

/* A Health answer is a few dozen bytes; a peer that sends more is not zkpd. */
#define PROBE_MAX_FRAME 65536

bool zkp_probe_unix(const char *path, int timeout_ms, char *desc, size_t size)
{
	char address[4200];
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	snprintf(address, sizeof(address), "unix:%s", path);
	if (zkp_client_connect(&c, address, PROBE_MAX_FRAME, &err))
		return false;
	char pid[32] = "";
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (!getsockopt(zkp_client_fd(c), SOL_SOCKET, SO_PEERCRED, &cred, &len) && cred.pid > 0)
		snprintf(pid, sizeof(pid), "pid %ld", (long)cred.pid);

	Zkpd__V1__HealthRequest hr = ZKPD__V1__HEALTH_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__Envelope out = ZKPD__V1__ENVELOPE__INIT;
	Zkpd__V1__Envelope *in = NULL;
	req.call_case = ZKPD__V1__REQUEST__CALL_HEALTH;
	req.health = &hr;
	out.call_id = zkp_client_next_call_id(c);
	out.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	out.request = &req;
	const char *who = "another process";
	char version[80] = "";
	if (!zkp_client_send(c, &out, &err) && !zkp_client_recv(c, &in, timeout_ms, &err)) {
		if (in->body_case == ZKPD__V1__ENVELOPE__BODY_RESPONSE &&
		    in->response->call_case == ZKPD__V1__RESPONSE__CALL_HEALTH) {
			who = "another zkpd";
			snprintf(version, sizeof(version), "version %.60s",
				 in->response->health->version);
		} else if (in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR) {
			who = "another zkpd";
		}
	}
	zkp_wire_free(in);
	zkp_client_close(c);
	if (pid[0] && version[0])
		snprintf(desc, size, "%s (%s, %s)", who, pid, version);
	else if (pid[0] || version[0])
		snprintf(desc, size, "%s (%s)", who, pid[0] ? pid : version);
	else
		snprintf(desc, size, "%s", who);
	return true;
}
