/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File creation, replacement and removal (docs/mmv-format.md §10.1; docs/compatibility.md "file creation",
 * "mmv_stats_stop", "missing pcp.conf"), and where the file goes.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "mmv_test.h"

static void *start_one(const char *file, mmv_stats_flags_t flags,
		mmv_registry_t **out)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, flags);
	void *addr;

	assert_non_null(r);
	assert_int_equal(mmv_stats_add_metric(r, "u", 1, MMV_TYPE_U32,
			MMV_SEM_INSTANT, mt_none, 0, NULL, NULL), 0);
	addr = mmv_stats_start(r);
	*out = r;
	return addr;
}

static void *start_legacy(const char *file, mmv_stats_flags_t flags)
{
	mmv_metric_t m = { .name = "u", .item = 1, .type = MMV_TYPE_U32,
			   .semantics = MMV_SEM_INSTANT };
	void *addr = mmv_stats_init(file, 0, flags, &m, 1, NULL, 0);

	assert_non_null(addr);
	return addr;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int hidden_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, ".mmv-", 5) == 0)
			n++;
	closedir(d);
	return n;
}

static int is_mmv_file(void **state, const char *name, long long size)
{
	unsigned char *b;
	size_t len;
	int ok;

	b = mt_read(state, name, &len);
	ok = (long long)len == size && memcmp(b, "MMV", 4) == 0 &&
	     rd64(b, 8) != 0 && rd64(b, 8) == rd64(b, 16);
	free(b);
	return ok;
}

static void replaces_regular_file(void **state)
{
	const struct mt *t = *state;
	char path[PATH_MAX];
	mmv_registry_t *r;
	struct stat st;

	write_file(mt_path(state, "f", path), "old contents that are not MMV\n");
	assert_non_null(start_one("f", 0, &r));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(is_mmv_file(state, "f", 208));
	assert_int_equal(hidden_files(t->mmvdir), 0);
	mmv_stats_free(r);
}

static void replaces_symlink_not_target(void **state)
{
	const struct mt *t = *state;
	char path[PATH_MAX], target[PATH_MAX], buf[64] = { 0 };
	mmv_registry_t *r;
	struct stat st;
	FILE *f;

	snprintf(target, sizeof(target), "%s/target", t->dir);
	write_file(target, "keep me");
	assert_int_equal(symlink(target, mt_path(state, "s", path)), 0);
	assert_non_null(start_one("s", 0, &r));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(is_mmv_file(state, "s", 208));
	f = fopen(target, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "keep me");
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 7);
	mmv_stats_free(r);
	/* a dangling symlink is replaced too, and nothing appears at its target */
	snprintf(target, sizeof(target), "%s/nowhere", t->dir);
	assert_int_equal(symlink(target, mt_path(state, "d", path)), 0);
	assert_non_null(start_one("d", 0, &r));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(access(target, F_OK), -1);
	mmv_stats_free(r);
}

static void missing_directory(void **state)
{
	const struct mt *t = *state;
	mmv_registry_t *r;

	errno = 0;
	assert_null(start_one("nosub/x", 0, &r));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(hidden_files(t->mmvdir), 0);
	mmv_stats_free(r);
	/* no mmv/ directory at all */
	assert_int_equal(rmdir(t->mmvdir), 0);
	errno = 0;
	assert_null(start_one("x", 0, &r));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(access(t->mmvdir, F_OK), -1);
	mmv_stats_free(r);
	assert_int_equal(mkdir(t->mmvdir, 0755), 0);
	/* a subdirectory that exists is used as is */
	char sub[PATH_MAX];
	assert_int_equal(mkdir(mt_path(state, "sub", sub), 0755), 0);
	assert_non_null(start_one("sub/x", 0, &r));
	assert_true(is_mmv_file(state, "sub/x", 208));
	assert_int_equal(hidden_files(sub), 0);
	mmv_stats_free(r);
}

/* A directory at the path is not replaced; the hidden file is cleaned up. */
static void directory_at_path(void **state)
{
	const struct mt *t = *state;
	char path[PATH_MAX];
	mmv_registry_t *r;
	struct stat st;

	assert_int_equal(mkdir(mt_path(state, "dir", path), 0755), 0);
	errno = 0;
	assert_null(start_one("dir", 0, &r));
	assert_int_equal(errno, EISDIR);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(hidden_files(t->mmvdir), 0);
	mmv_stats_free(r);
}

/*
 * In a sticky directory another user's file of the name is not replaced
 * (docs/compatibility.md: file creation). Needs root to act as two users.
 */
static void sticky_other_users_file(void **state)
{
	const struct mt *t = *state;
	char path[PATH_MAX];
	struct stat st;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(t->dir, 0755), 0);
	assert_int_equal(chmod(t->mmvdir, 01777), 0);
	write_file(mt_path(state, "victim", path), "root's");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		mmv_registry_t *r;
		void *addr;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(100);
		/* the directory is writable: a new name works */
		if (start_one("mine", 0, &r) == NULL)
			_exit(101);
		addr = start_one("victim", 0, &r);
		_exit(addr ? 0 : errno);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_true(WEXITSTATUS(status) == EPERM || WEXITSTATUS(status) == EACCES);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_size, 6);
	assert_int_equal(mt_size(state, "mine"), 208);
	assert_int_equal(hidden_files(t->mmvdir), 0);
}

/* Names starting with '/' are used verbatim (docs/mmv-format.md §10.1). */
static void absolute_path(void **state)
{
	const struct mt *t = *state;
	char path[PATH_MAX];
	mmv_registry_t *r;
	struct stat st;

	snprintf(path, sizeof(path), "%s/abs", t->dir);
	assert_non_null(start_one(path, MMV_FLAG_PROCESS, &r));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 208);
	assert_int_equal(hidden_files(t->dir), 0);
	mmv_stats_free(r);
	assert_int_equal(stat(path, &st), -1);
}

static void stop_and_process_flag(void **state)
{
	char path[PATH_MAX], other[PATH_MAX];
	mmv_registry_t *r;
	void *addr;

	/* with the flag our file goes */
	addr = start_legacy("p", MMV_FLAG_PROCESS);
	mmv_stats_stop("p", addr);
	assert_int_equal(mt_size(state, "p"), -1);

	/* without it the file stays */
	addr = start_legacy("k", 0);
	mmv_stats_stop("k", addr);
	assert_true(is_mmv_file(state, "k", 208));

	/* a different file that took the name is not ours to remove */
	addr = start_one("q", MMV_FLAG_PROCESS, &r);
	assert_non_null(addr);
	write_file(mt_path(state, "q.new", other), "someone else's");
	assert_int_equal(rename(other, mt_path(state, "q", path)), 0);
	mmv_stats_free(r);
	assert_int_equal(mt_size(state, "q"), 14);

	/* a newer MMV file of the same name, from another registry, survives */
	mmv_registry_t *r2;
	addr = start_one("n", MMV_FLAG_PROCESS, &r);
	assert_non_null(addr);
	assert_non_null(start_one("n", 0, &r2));
	mmv_stats_free(r);
	assert_true(is_mmv_file(state, "n", 208));
	mmv_stats_free(r2);

	/* NULL addr: nothing */
	mmv_stats_stop("k", NULL);
	assert_true(is_mmv_file(state, "k", 208));
}

/*
 * A file the size limit refuses (as a full disk would): start fails with
 * the write's errno, no hidden file is left and the old file of the name
 * is untouched. In a child, as the limit is process-wide.
 */
static void size_limit_fails_cleanly(void **state)
{
	const struct mt *t = *state;
	char path[PATH_MAX];
	int status;
	pid_t pid;

	write_file(mt_path(state, "big", path), "old");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = { 64 * 1024, 64 * 1024 };
		mmv_registry_t *r = mmv_stats_registry("big", 0, 0);
		char names[300][16];
		int bad = 0;

		signal(SIGXFSZ, SIG_IGN);
		if (r == NULL || setrlimit(RLIMIT_FSIZE, &lim) != 0)
			_exit(10);
		/* 600 help texts of 256 bytes: about 180 KiB */
		for (int i = 0; i < 300; i++) {
			snprintf(names[i], sizeof(names[i]), "m%d", i);
			mmv_stats_add_metric(r, names[i], i, MMV_TYPE_U32,
					     MMV_SEM_INSTANT, mt_none, 0, "s", "l");
		}
		errno = 0;
		bad |= mmv_stats_start(r) != NULL;
		bad |= (errno != EFBIG) << 1;
		bad |= (hidden_files(t->mmvdir) != 0) << 2;
		bad |= (mt_size(state, "big") != 3) << 3;
		mmv_stats_free(r);
		/* a file within the limit is still made */
		bad |= (start_one("small", 0, &r) == NULL) << 4;
		bad |= !is_mmv_file(state, "small", 208) << 5;
		mmv_stats_free(r);
		_exit(bad);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Values written through the mapping are in the file (MAP_SHARED). */
static void mapping_is_shared(void **state)
{
	mmv_registry_t *r;
	unsigned char *b;
	size_t len;
	void *addr = start_one("shared", 0, &r);

	assert_non_null(addr);
	mmv_stats_set(addr, "u", NULL, 0x01020304);
	b = mt_read(state, "shared", &len);
	/* the value record follows the 104-byte metric at 72 */
	assert_int_equal(rd32(b, 176), 0x01020304);
	free(b);
	mmv_stats_free(r);
}

/* PCP_TMP_DIR is read at each start (docs/mmv-format.md §10.1). */
static void tmp_dir_from_environment(void **state)
{
	const struct mt *t = *state;
	char other[PATH_MAX], sub[PATH_MAX + 8], file[PATH_MAX + 16];
	mmv_registry_t *r;
	struct stat st;

	snprintf(other, sizeof(other), "%s/other", t->dir);
	snprintf(sub, sizeof(sub), "%s/mmv", other);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	setenv("PCP_TMP_DIR", other, 1);
	assert_non_null(start_one("env", 0, &r));
	snprintf(file, sizeof(file), "%s/env", sub);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_size, 208);
	assert_int_equal(mt_size(state, "env"), -1);
	mmv_stats_free(r);
	setenv("PCP_TMP_DIR", t->dir, 1);
	assert_non_null(start_one("env", 0, &r));
	assert_int_equal(mt_size(state, "env"), 208);
	mmv_stats_free(r);
}

/* With PCP_TMP_DIR unset, $PCP_CONF's pcp.conf is honoured. */
static void tmp_dir_from_pcp_conf(void **state)
{
	const struct mt *t = *state;
	char conf[PATH_MAX], other[256], sub[272], text[400], file[288];
	const char *old_conf = getenv("PCP_CONF");
	char *saved = old_conf ? strdup(old_conf) : NULL;
	mmv_registry_t *r;
	struct stat st;

	snprintf(other, sizeof(other), "%s/conf dir", t->dir);
	snprintf(sub, sizeof(sub), "%s/mmv", other);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(conf, sizeof(conf), "%s/pcp.conf", t->dir);
	snprintf(text, sizeof(text), "# test\nPCP_TMP=/nope\nPCP_TMP_DIR_X=/nope\n"
		 "PCP_TMP_DIR=\"%s\"\nPCP_LOG_DIR=/nope\n", other);
	write_file(conf, text);
	unsetenv("PCP_TMP_DIR");
	setenv("PCP_CONF", conf, 1);
	assert_non_null(start_one("conf", MMV_FLAG_PROCESS, &r));
	snprintf(file, sizeof(file), "%s/conf", sub);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_size, 208);
	/* stop finds the same path */
	mmv_stats_free(r);
	assert_int_equal(stat(file, &st), -1);
	/* the environment wins over pcp.conf */
	setenv("PCP_TMP_DIR", t->dir, 1);
	assert_non_null(start_one("conf", 0, &r));
	assert_int_equal(mt_size(state, "conf"), 208);
	assert_int_equal(stat(file, &st), -1);
	mmv_stats_free(r);
	if (saved) {
		setenv("PCP_CONF", saved, 1);
		free(saved);
	} else {
		unsetenv("PCP_CONF");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(replaces_regular_file),
		MT_TEST(replaces_symlink_not_target),
		MT_TEST(missing_directory),
		MT_TEST(directory_at_path),
		MT_TEST(sticky_other_users_file),
		MT_TEST(absolute_path),
		MT_TEST(stop_and_process_flag),
		MT_TEST(mapping_is_shared),
		MT_TEST(size_limit_fails_cleanly),
		MT_TEST(tmp_dir_from_environment),
		MT_TEST(tmp_dir_from_pcp_conf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
