/*
 * sockdir: checking and making the directories of Unix sockets (sockdir.h).
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sockdir.h"

#define DIR_MAX sizeof(((zkp_address *)0)->path)

int zkp_socket_id(const char *text, bool group, unsigned *ret, zkp_error *err)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(text, &end, 10);
	if (*text && !*end && !errno && v < UINT32_MAX) {
		*ret = (unsigned)v;
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(text);
		if (g) {
			*ret = g->gr_gid;
			return 0;
		}
	} else {
		struct passwd *p = getpwnam(text);
		if (p) {
			*ret = p->pw_uid;
			return 0;
		}
	}
	return zkp_error_set(err, ZKP_ERR_CONFIG, "server.socket_%s: no %s \"%s\"",
			     group ? "group" : "owner", group ? "group" : "user", text);
}

/* dir gets the directory part of path (false: path has none but "/"). */
static bool dir_of(char *dir, const char *path)
{
	snprintf(dir, DIR_MAX, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return false;
	*slash = 0;
	return true;
}

/* Whether zkpd makes dir itself: its name begins with "zkpd" and its
 * parent is an existing directory. */
static bool ours_to_make(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : dir;
	if (strncmp(name, "zkpd", 4))
		return false;
	char parent[DIR_MAX];
	struct stat st;
	if (!dir_of(parent, dir))
		snprintf(parent, sizeof(parent), "/");
	return !stat(parent, &st) && S_ISDIR(st.st_mode);
}

static bool is_default_dir(const char *dir)
{
	char def[DIR_MAX];
	zkp_address_default_dir(def, sizeof(def));
	return !strcmp(dir, def);
}

static bool group_access(const zkp_config *cfg)
{
	return (cfg->socket_mode & 0070) != 0;
}

static void user_name(char *buf, size_t size)
{
	struct passwd *p = getpwuid(geteuid());
	if (p)
		snprintf(buf, size, "%s", p->pw_name);
	else
		snprintf(buf, size, "%u", (unsigned)geteuid());
}

static void group_name(char *buf, size_t size)
{
	struct group *g = getgrgid(getegid());
	if (g)
		snprintf(buf, size, "%s", g->gr_name);
	else
		snprintf(buf, size, "%u", (unsigned)getegid());
}

/* How an operator makes dir: the systemd unit's way and the shell's. */
static void how_to_make(const zkp_config *cfg, const char *dir, char *buf, size_t size)
{
	char user[64], group[64];
	user_name(user, sizeof(user));
	group_name(group, sizeof(group));
	const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	snprintf(buf, size,
		 "under systemd, RuntimeDirectory=%s in the unit makes it at each start "
		 "(zkpd.service has it); otherwise, as root: install -d -o %s -g %s -m %s %s",
		 name, user, cfg->socket_group ? cfg->socket_group : group,
		 group_access(cfg) ? "0750" : "0700", dir);
}

int zkp_sockdir_check(const zkp_config *cfg, const char *option, const char *path,
		      bool *will_make, zkp_error *err)
{
	char dir[DIR_MAX], how[512], user[64];
	struct stat st;
	*will_make = false;
	if (!dir_of(dir, path))
		return 0;
	user_name(user, sizeof(user));
	if (stat(dir, &st)) {
		if (errno != ENOENT)
			return zkp_error_set(err, ZKP_ERR_CONFIG, "%s: %s: %s", option, dir,
					     strerror(errno));
		if (!ours_to_make(dir))
			return zkp_error_set(err, ZKP_ERR_CONFIG,
					     "%s: directory %s does not exist, and zkpd makes only "
					     "a directory named zkpd... in an existing one: make "
					     "it first", option, dir);
		char parent[DIR_MAX];
		if (!dir_of(parent, dir))
			snprintf(parent, sizeof(parent), "/");
		if (access(parent, W_OK | X_OK)) {
			how_to_make(cfg, dir, how, sizeof(how));
			return zkp_error_set(err, ZKP_ERR_CONFIG,
					     "%s: directory %s does not exist and %s cannot "
					     "create it in %s; %s", option, dir, user, parent,
					     how);
		}
		*will_make = true;
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return zkp_error_set(err, ZKP_ERR_CONFIG, "%s: %s is not a directory", option,
				     dir);
	if (is_default_dir(dir))
		return zkp_address_check_private_dir(dir, err) ? ZKP_ERR_CONFIG : 0;
	unsigned mode = (unsigned)(st.st_mode & 07777);
	if (access(dir, W_OK | X_OK))
		return zkp_error_set(err, ZKP_ERR_CONFIG,
				     "%s: %s (owner uid %u, group gid %u, mode %04o): %s cannot "
				     "create the socket there; run this check as the user "
				     "zkpd runs as", option, dir, (unsigned)st.st_uid,
				     (unsigned)st.st_gid, mode, user);
	if ((mode & 0002) && !(mode & 01000))
		return zkp_error_set(err, ZKP_ERR_CONFIG,
				     "%s: %s has mode %04o: anyone may replace the socket "
				     "there; use a directory of zkpd's own", option, dir, mode);
	if (!group_access(cfg))
		return 0;
	unsigned gid = (unsigned)st.st_gid;
	int rc = cfg->socket_group ? zkp_socket_id(cfg->socket_group, true, &gid, err) : 0;
	if (rc)
		return rc;
	bool reach = (mode & 0001) || ((mode & 0010) && (unsigned)st.st_gid == gid);
	if (!reach)
		return zkp_error_set(err, ZKP_ERR_CONFIG,
				     "%s: %s (group gid %u, mode %04o) keeps out the socket's "
				     "group %s, which server.socket_mode %04o lets in: give "
				     "the directory that group and mode 0750", option, dir,
				     (unsigned)st.st_gid, mode,
				     cfg->socket_group ? cfg->socket_group : "(zkpd's primary group)",
				     cfg->socket_mode);
	return 0;
}

int zkp_sockdir_check_all(const zkp_config *cfg, const char *name)
{
	int bad = 0;
	for (size_t i = 0; i <= cfg->n_listen; i++) {
		const zkp_address *a = i < cfg->n_listen ? &cfg->listen[i] : &cfg->grpc_listen;
		zkp_error err = { 0 };
		bool make = false;
		if (a->kind != ZKP_ADDR_UNIX || !a->path[0])
			continue;
		if (zkp_sockdir_check(cfg, i < cfg->n_listen ? "server.listen" : "grpc.listen",
				      a->path, &make, &err)) {
			fprintf(stderr, "%s: %s\n", name, err.msg);
			bad = 1;
		} else if (make) {
			printf("%s: the directory of unix:%s is made at start\n", name, a->path);
		}
	}
	return bad;
}

int zkp_sockdir_make(const zkp_config *cfg, const char *path, zkp_error *err)
{
	char dir[DIR_MAX], how[512];
	struct stat st;
	if (!dir_of(dir, path) || !stat(dir, &st))
		return 0;
	if (errno != ENOENT)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: %s", dir, strerror(errno));
	if (!ours_to_make(dir))
		return zkp_error_set(err, ZKP_ERR_IO,
				     "directory %s does not exist, and zkpd makes only a "
				     "directory named zkpd... in an existing one: make it first",
				     dir);
	bool grp = group_access(cfg) && !is_default_dir(dir);
	if (mkdir(dir, grp ? 0750 : 0700) && errno != EEXIST) {
		int e = errno;
		how_to_make(cfg, dir, how, sizeof(how));
		return zkp_error_set(err, ZKP_ERR_IO, "cannot create directory %s: %s; %s", dir,
				     strerror(e), how);
	}
	/* The umask may have taken bits away. */
	if (chmod(dir, grp ? 0750 : 0700))
		return zkp_error_set(err, ZKP_ERR_IO, "chmod %s: %s", dir, strerror(errno));
	if (grp && cfg->socket_group) {
		unsigned gid;
		int rc = zkp_socket_id(cfg->socket_group, true, &gid, err);
		if (rc)
			return rc;
		if (chown(dir, (uid_t)-1, gid))
			return zkp_error_set(err, ZKP_ERR_IO, "cannot give %s the group %s: %s",
					     dir, cfg->socket_group, strerror(errno));
	}
	return 0;
}
