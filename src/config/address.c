#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zkpd/config.h"

#define EXPECTED "(expected unix:PATH or tcp:HOST:PORT)"

static int parse_tcp(zkp_address *ret, const char *text, const char *host, const char *prefix,
		     zkp_error *err);

int zkp_address_parse(zkp_address *ret, const char *text, zkp_error *err)
{
	zkp_address a;
	memset(&a, 0, sizeof(a));

	if (strncmp(text, "unix:", 5) == 0) {
		const char *path = text + 5;
		size_t len = strlen(path);
		if (len == 0)
			return zkp_error_set(err, ZKP_ERR_CONFIG,
					     "empty socket path in \"%s\" " EXPECTED, text);
		if (len >= sizeof(a.path))
			return zkp_error_set(err, ZKP_ERR_CONFIG,
					     "socket path of %zu bytes in \"%s\" is too long "
					     "(expected at most %zu bytes)",
					     len, text, sizeof(a.path) - 1);
		a.kind = ZKP_ADDR_UNIX;
		memcpy(a.path, path, len + 1);
		*ret = a;
		return 0;
	}
	if (strncmp(text, "tcp:", 4) != 0)
		return zkp_error_set(err, ZKP_ERR_CONFIG,
				     "address \"%s\" has no unix: or tcp: prefix " EXPECTED, text);
	return parse_tcp(ret, text, text + 4, "tcp:", err);
}

int zkp_address_parse_host_port(zkp_address *ret, const char *text, zkp_error *err)
{
	return parse_tcp(ret, text, text, "", err);
}

/* HOST:PORT at host, a part of text (named whole in messages); prefix is
 * what the expected form shows before HOST. */
static int parse_tcp(zkp_address *ret, const char *text, const char *host, const char *prefix,
		     zkp_error *err)
{
	zkp_address a;
	const char *host_end, *colon;
	memset(&a, 0, sizeof(a));
	if (*host == '[') {
		host++;
		host_end = strchr(host, ']');
		if (!host_end || host_end[1] != ':')
			return zkp_error_set(err, ZKP_ERR_CONFIG,
					     "bad IPv6 address in \"%s\" (expected %s[ADDR]:PORT)",
					     text, prefix);
		colon = host_end + 1;
	} else {
		colon = strrchr(host, ':');
		if (!colon)
			return zkp_error_set(err, ZKP_ERR_CONFIG,
					     "no port in \"%s\" (expected %sHOST:PORT)", text,
					     prefix);
		host_end = colon;
		if (memchr(host, ':', (size_t)(host_end - host)))
			return zkp_error_set(err, ZKP_ERR_CONFIG,
					     "bad host in \"%s\" (expected %s[ADDR]:PORT for "
					     "IPv6)", text, prefix);
	}
	size_t hlen = (size_t)(host_end - host);
	if (hlen == 0 || hlen >= sizeof(a.host))
		return zkp_error_set(err, ZKP_ERR_CONFIG,
				     "%s host in \"%s\" (expected 1 to %zu bytes)",
				     hlen ? "too long a" : "empty", text, sizeof(a.host) - 1);

	const char *p = colon + 1;
	unsigned long port = 0;
	if (!*p)
		goto bad_port;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad_port;
		port = port * 10 + (unsigned long)(*p - '0');
		if (port > 65535)
			goto bad_port;
	}
	if (port == 0)
		goto bad_port;
	a.kind = ZKP_ADDR_TCP;
	memcpy(a.host, host, hlen);
	a.host[hlen] = 0;
	a.port = (uint16_t)port;
	*ret = a;
	return 0;
bad_port:
	return zkp_error_set(err, ZKP_ERR_CONFIG, "bad port \"%s\" in \"%s\" (expected 1..65535)",
			     colon + 1, text);
}

int zkp_address_check_private_dir(const char *dir, zkp_error *err)
{
	struct stat st;
	if (lstat(dir, &st))
		return zkp_error_set(err, ZKP_ERR_IO, "%s: %s", dir, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return zkp_error_set(err, ZKP_ERR_IO,
				     "%s is a symbolic link (expected a directory of uid %u, "
				     "mode 0700)", dir, (unsigned)getuid());
	if (!S_ISDIR(st.st_mode))
		return zkp_error_set(err, ZKP_ERR_IO,
				     "%s is not a directory (expected a directory of uid %u, "
				     "mode 0700)", dir, (unsigned)getuid());
	if (st.st_uid != getuid())
		return zkp_error_set(err, ZKP_ERR_IO,
				     "%s is owned by uid %u, not by uid %u (expected our own "
				     "directory, mode 0700)", dir, (unsigned)st.st_uid,
				     (unsigned)getuid());
	if ((st.st_mode & 07777) != 0700)
		return zkp_error_set(err, ZKP_ERR_IO,
				     "%s has mode %04o (expected 0700: no one else may create or "
				     "replace the socket there)", dir, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Whether a directory holds no more than path_max - 1 bytes of
 * "DIR/zkpd.sock": sun_path holds 108 bytes, and an address that cannot be
 * bound is no default. */
static bool fits(const char *dir, const char *tail)
{
	return strlen(dir) + strlen(tail) < sizeof(((zkp_address *)0)->path);
}

void zkp_address_default_dir(char *buf, size_t size)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	if (dir && dir[0] == '/' && fits(dir, "/zkpd.sock") &&
	    zkp_address_check_private_dir(dir, NULL) == 0) {
		snprintf(buf, size, "%s", dir);
		return;
	}
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/' || !fits(tmp, "/zkpd-4294967295/zkpd.sock"))
		tmp = "/tmp";
	size_t n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		n--;
	snprintf(buf, size, "%.*s/zkpd-%u", (int)n, tmp, (unsigned)getuid());
}

void zkp_address_default(char *buf, size_t size)
{
	char dir[sizeof(((zkp_address *)0)->path)];
	zkp_address_default_dir(dir, sizeof(dir));
	snprintf(buf, size, "unix:%s/zkpd.sock", dir);
}

bool zkp_address_is_loopback(const zkp_address *a)
{
	struct in_addr v4;
	struct in6_addr v6;
	if (a->kind != ZKP_ADDR_TCP)
		return false;
	if (strcasecmp(a->host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, a->host, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, a->host, &v6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&v6);
	return false;
}
