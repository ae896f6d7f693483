/*
 * zkp dev-key CIRCUIT -o DIR [--owner USER] [--group GROUP] [--threads T]
 *
 * A Filecoin circuit of the 2 KiB sector size and an INSECURE development
 * key for it, made into DIR where zkpd can read them, with no source tree:
 * DIR/CIRCUIT.pce, DIR/CIRCUIT.INSECURE-DEV.params with its native cache
 * (.params.zkpc, so that zkpd maps the key at once instead of decoding it),
 * DIR/CIRCUIT.INSECURE-DEV.vk and DIR/CIRCUIT.pce.sha256 (the circuit the
 * key was made for). The circuit is built each time (seconds); the key is
 * made again only when the circuit's SHA-256 differs from the recorded one.
 * The keys come from a fixed seed per circuit (2048 + its index below), so
 * anyone can forge their proofs: tests, demos and trials only. Their points
 * are made as zkp setup --backend auto makes them (a GPU when this zkp has
 * the CUDA backend and one is present); the files are the same either way.
 *
 * Prints, on stdout, the [circuit.CIRCUIT] section of zkpd's configuration
 * for the files; progress and warnings go to stderr.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "zkp_cmds.h"

/* DIR's absolute path; the files' names stay within PATH_MAX. */
#define DIR_MAX (PATH_MAX / 2)

static const struct dev_circuit {
	const char *name;
	const char *what;
	const char *build[6]; /* the zkp command that writes its .pce, before -o */
	const char *option;   /* its sector-size option in zkpd's configuration */
	const char *cost;
} circuits[] = {
	{ "porep-2k", "the 2 KiB PoRep partition",
	  { "porep", "circuit", "--sector-size", "2KiB" }, "porep_sector_size",
	  "3 to 6 minutes on 2 cores, 2.2 GB" },
	{ "snap-2k", "one 2 KiB SnapDeals partition",
	  { "snap", "circuit", "--sector-size", "2KiB" }, "snap_sector_size",
	  "about 2 minutes on 2 cores, 1.3 GB" },
	{ "post-window-2k", "the 2 KiB WindowPoSt partition",
	  { "post", "circuit", "--kind", "window", "--sector-size", "2KiB" },
	  "window_post_sector_size", "seconds" },
	{ "post-winning-2k", "the 2 KiB WinningPoSt circuit",
	  { "post", "circuit", "--kind", "winning", "--sector-size", "2KiB" },
	  "winning_post_sector_size", "seconds" },
};
#define N_CIRCUITS (sizeof(circuits) / sizeof(circuits[0]))

static void help(FILE *f)
{
	fprintf(f, "usage: zkp dev-key CIRCUIT -o DIR [--owner USER] [--group GROUP]\n"
		   "                   [--threads T]\n\n"
		   "Makes a Filecoin circuit's .pce and an INSECURE development key for it\n"
		   "(a fixed seed: anyone can forge its proofs; never use it for anything of\n"
		   "value) into DIR, which must exist: CIRCUIT.pce, CIRCUIT.INSECURE-DEV.params\n"
		   "with its native cache .params.zkpc, CIRCUIT.INSECURE-DEV.vk and\n"
		   "CIRCUIT.pce.sha256. A key already in DIR for the same circuit is kept.\n"
		   "Prints zkpd's [circuit.CIRCUIT] section for the files.\n"
		   "CIRCUIT:\n");
	for (size_t i = 0; i < N_CIRCUITS; i++)
		fprintf(f, "  %-16s %s (key: %s)\n", circuits[i].name, circuits[i].what,
			circuits[i].cost);
	fprintf(f, "  --owner USER    give the files this owner (default: as root, DIR's owner)\n"
		   "  --group GROUP   give the files this group (default: as root, DIR's group)\n"
		   "  --threads T     threads for the key (default: all processors)\n");
}

/* Runs a zkp subcommand with its stdout sent to stderr: its report is
 * progress here, and stdout carries the configuration section only. */
static int run_quiet(int (*fn)(int, char **), int argc, char **argv)
{
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "zkp dev-key: dup: %s\n", strerror(errno));
		if (saved >= 0)
			close(saved);
		return ZKP_EXIT_FAIL;
	}
	int rc = fn(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return rc;
}

/* A line on stderr every 10 s while the key is made: minutes of silence
 * look like a hang. */
struct ticker {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool done;
	const char *name;
};

static void *tick_main(void *arg)
{
	struct ticker *t = arg;
	struct timespec start, until;
	clock_gettime(CLOCK_REALTIME, &start);
	until = start;
	pthread_mutex_lock(&t->mu);
	while (!t->done) {
		until.tv_sec += 10;
		while (!t->done && pthread_cond_timedwait(&t->cond, &t->mu, &until) != ETIMEDOUT)
			;
		if (!t->done)
			fprintf(stderr, "zkp dev-key: %s: making the key, %ld s\n", t->name,
				(long)(until.tv_sec - start.tv_sec));
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

static int sha256_hex(char hex[65], const char *path)
{
	uint8_t d[32];
	zkp_error err = { 0 };
	int rc = zkp_groth16_file_sha256(d, path, &err);
	if (rc) {
		fprintf(stderr, "zkp dev-key: %s\n", zkp_error_text(&err, rc));
		return -1;
	}
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return 0;
}

/* Whether DIR holds a complete key for the circuit whose digest is sum. */
static bool key_current(const char *dir, const char *name, const char *sum)
{
	static const char *const parts[] = { ".INSECURE-DEV.params", ".INSECURE-DEV.params.zkpc",
					     ".INSECURE-DEV.vk" };
	char path[PATH_MAX], seen[80] = "";
	struct stat st;
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s%s", dir, name, parts[i]);
		if (stat(path, &st) || st.st_size == 0)
			return false;
	}
	snprintf(path, sizeof(path), "%s/%s.pce.sha256", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(seen, sizeof(seen), f) && !strncmp(seen, sum, 64);
	fclose(f);
	return ok;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "zkp dev-key: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int rename_into(const char *dir, const char *from_stem, const char *to_stem,
		       const char *suffix)
{
	char from[PATH_MAX], to[PATH_MAX];
	if (snprintf(from, sizeof(from), "%s/%s%s", dir, from_stem, suffix) >= (int)sizeof(from) ||
	    snprintf(to, sizeof(to), "%s/%s%s", dir, to_stem, suffix) >= (int)sizeof(to)) {
		fprintf(stderr, "zkp dev-key: %s: a file name there is too long\n", dir);
		return -1;
	}
	if (rename(from, to)) {
		fprintf(stderr, "zkp dev-key: rename %s to %s: %s\n", from, to, strerror(errno));
		return -1;
	}
	return 0;
}

static int make_key(const char *dir, const struct dev_circuit *c, unsigned seed,
		    const char *threads)
{
	char pce[PATH_MAX], out[PATH_MAX], tmp[64], seed_s[16];
	snprintf(pce, sizeof(pce), "%s/%s.pce", dir, c->name);
	snprintf(tmp, sizeof(tmp), "tmp-%s", c->name);
	snprintf(out, sizeof(out), "%s/%s", dir, tmp);
	snprintf(seed_s, sizeof(seed_s), "%u", seed);
	char *argv[] = { "setup", pce, "-o", out, "--seed", seed_s, "--backend", "auto",
			 threads ? "--threads" : NULL, (char *)threads, NULL };
	int argc = threads ? 10 : 8;
	fprintf(stderr, "zkp dev-key: making the INSECURE development key of %s in %s (%s)\n",
		c->name, dir, c->cost);
	struct ticker t = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, c->name };
	pthread_t thr;
	bool ticking = !pthread_create(&thr, NULL, tick_main, &t);
	int rc = run_quiet(zkp_cmd_setup, argc, argv);
	if (ticking) {
		pthread_mutex_lock(&t.mu);
		t.done = true;
		pthread_cond_signal(&t.cond);
		pthread_mutex_unlock(&t.mu);
		pthread_join(thr, NULL);
	}
	if (rc)
		return rc;
	char stem[PATH_MAX];
	snprintf(stem, sizeof(stem), "%s", c->name);
	if (rename_into(dir, tmp, stem, ".INSECURE-DEV.params") ||
	    rename_into(dir, tmp, stem, ".INSECURE-DEV.params.zkpc") ||
	    rename_into(dir, tmp, stem, ".INSECURE-DEV.vk"))
		return ZKP_EXIT_FAIL;
	return ZKP_EXIT_OK;
}

/* --owner / --group, or DIR's when running as root; -1: leave alone. */
static int ownership(const char *dir, const char *owner, const char *group, uid_t *uid,
		     gid_t *gid)
{
	struct stat st;
	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if (!owner && !group && geteuid() == 0 && !stat(dir, &st)) {
		*uid = st.st_uid;
		*gid = st.st_gid;
		return 0;
	}
	if (owner) {
		struct passwd *p = getpwnam(owner);
		char *end;
		unsigned long v = strtoul(owner, &end, 10);
		if (p) {
			*uid = p->pw_uid;
		} else if (*owner && !*end) {
			*uid = (uid_t)v;
		} else {
			fprintf(stderr, "zkp dev-key: --owner: no user \"%s\"\n", owner);
			return -1;
		}
	}
	if (group) {
		struct group *g = getgrnam(group);
		char *end;
		unsigned long v = strtoul(group, &end, 10);
		if (g) {
			*gid = g->gr_gid;
		} else if (*group && !*end) {
			*gid = (gid_t)v;
		} else {
			fprintf(stderr, "zkp dev-key: --group: no group \"%s\"\n", group);
			return -1;
		}
	}
	return 0;
}

static int give(const char *dir, const char *name, uid_t uid, gid_t gid)
{
	static const char *const parts[] = { ".pce", ".pce.sha256", ".INSECURE-DEV.params",
					     ".INSECURE-DEV.params.zkpc", ".INSECURE-DEV.vk" };
	if (uid == (uid_t)-1 && gid == (gid_t)-1)
		return 0;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s%s", dir, name, parts[i]);
		if (chown(path, uid, gid)) {
			fprintf(stderr, "zkp dev-key: chown %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int zkp_cmd_dev_key(int argc, char **argv)
{
	const char *name = NULL, *dir_arg = NULL, *owner = NULL, *group = NULL, *threads = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(a, "-o") && has) {
			dir_arg = argv[++i];
		} else if (!strcmp(a, "--owner") && has) {
			owner = argv[++i];
		} else if (!strcmp(a, "--group") && has) {
			group = argv[++i];
		} else if (!strcmp(a, "--threads") && has) {
			long t;
			if (zkp_parse_threads("dev-key", argv[++i], &t))
				return ZKP_EXIT_USAGE;
			threads = argv[i];
		} else if (a[0] == '-' || name) {
			fprintf(stderr, "zkp dev-key: unexpected argument '%s'\n", a);
			help(stderr);
			return ZKP_EXIT_USAGE;
		} else {
			name = a;
		}
	}
	if (!name || !dir_arg) {
		help(stderr);
		return ZKP_EXIT_USAGE;
	}
	const struct dev_circuit *c = NULL;
	unsigned seed = 0;
	for (size_t i = 0; i < N_CIRCUITS && !c; i++)
		if (!strcmp(name, circuits[i].name)) {
			c = &circuits[i];
			seed = 2048 + (unsigned)i;
		}
	if (!c) {
		fprintf(stderr, "zkp dev-key: unknown circuit '%s': porep-2k, snap-2k, "
				"post-window-2k or post-winning-2k\n", name);
		return ZKP_EXIT_USAGE;
	}
	char real[PATH_MAX], dir[DIR_MAX];
	struct stat st;
	if (!realpath(dir_arg, real) || stat(real, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "zkp dev-key: -o %s: not a directory (make it first, for zkpd: "
				"install -d -o zkpd -g zkpd -m 0750 %s)\n", dir_arg, dir_arg);
		return ZKP_EXIT_USAGE;
	}
	size_t real_len = strlen(real);
	if (real_len >= sizeof(dir)) {
		fprintf(stderr, "zkp dev-key: -o %s: its path is longer than %zu bytes\n", dir_arg,
			sizeof(dir) - 1);
		return ZKP_EXIT_USAGE;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)sizeof(dir) - 1, real); /* fits: checked above */
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "zkp dev-key: -o %s: cannot write there (run it as root or as "
				"the directory's owner)\n", dir);
		return ZKP_EXIT_FAIL;
	}
	uid_t uid;
	gid_t gid;
	if (ownership(dir, owner, group, &uid, &gid))
		return ZKP_EXIT_USAGE;

	/* The circuit, built under a temporary name and renamed once whole. */
	char pce_new[PATH_MAX], pce[PATH_MAX], sum[65], sum_path[PATH_MAX], line[80];
	snprintf(pce_new, sizeof(pce_new), "%s/%s.pce.new", dir, c->name);
	snprintf(pce, sizeof(pce), "%s/%s.pce", dir, c->name);
	snprintf(sum_path, sizeof(sum_path), "%s/%s.pce.sha256", dir, c->name);
	char *build[10];
	int n = 0;
	for (; n < 6 && c->build[n]; n++)
		build[n] = (char *)c->build[n];
	build[n++] = "-o";
	build[n++] = pce_new;
	build[n] = NULL;
	fprintf(stderr, "zkp dev-key: building %s (%s)\n", c->name, c->what);
	int (*fn)(int, char **) = !strcmp(build[0], "porep") ? zkp_cmd_porep :
				  !strcmp(build[0], "snap")  ? zkp_cmd_snap :
							       zkp_cmd_post;
	int rc = run_quiet(fn, n, build);
	if (rc)
		return rc;
	if (sha256_hex(sum, pce_new))
		return ZKP_EXIT_FAIL;
	bool keep = key_current(dir, c->name, sum);
	if (rename(pce_new, pce)) {
		fprintf(stderr, "zkp dev-key: rename %s: %s\n", pce_new, strerror(errno));
		return ZKP_EXIT_FAIL;
	}
	if (keep) {
		fprintf(stderr, "zkp dev-key: %s: the development key in %s was made for this "
				"circuit: kept\n", c->name, dir);
	} else {
		unlink(sum_path);
		rc = make_key(dir, c, seed, threads);
		if (rc)
			return rc;
		snprintf(line, sizeof(line), "%s\n", sum);
		if (write_text(sum_path, line))
			return ZKP_EXIT_FAIL;
	}
	if (give(dir, c->name, uid, gid))
		return ZKP_EXIT_FAIL;
	fprintf(stderr, "zkp dev-key: WARNING: %s.INSECURE-DEV.params is an INSECURE development "
			"key: anyone can forge its proofs\n", c->name);
	printf("# %s: INSECURE development key (zkp dev-key): anyone can forge its proofs\n"
	       "[circuit.%s]\npce = %s\nkey = %s/%s.INSECURE-DEV.params\nkey_format = bellman\n"
	       "%s = 2K\npreload = true\n",
	       c->what, c->name, pce, dir, c->name, c->option);
	return ZKP_EXIT_OK;
}
