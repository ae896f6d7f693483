/*
 * Runs a fuzz target's LLVMFuzzerTestOneInput on files, without libFuzzer:
 * the regression test (fuzz_regressions) replays the seed corpora and every
 * input that once crashed a target, in any build. Arguments are files or
 * directories (their regular files, not recursively). A broken invariant or
 * a sanitizer report aborts; otherwise exit 0 after printing the count.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;
	do {
		if (cap - len < 65536) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			FUZZ_CHECK(buf != NULL);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "%s: read error\n", path);
		free(buf);
		return -1;
	}
	/* an exact-size copy, so ASan sees reads past the input */
	uint8_t *in = malloc(len ? len : 1);
	FUZZ_CHECK(in != NULL);
	memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	return 0;
}

int main(int argc, char **argv)
{
	size_t runs = 0;
	int failed = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			failed = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed |= run_file(argv[i]) != 0;
			runs++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			failed = 1;
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d))) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			failed |= run_file(path) != 0;
			runs++;
		}
		closedir(d);
	}
	printf("%s: %zu inputs replayed\n", argv[0], runs);
	return failed;
}
