/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared fixture for the libpcp_mmv unit tests: every test gets a fresh
 * temporary PCP_TMP_DIR with an mmv/ subdirectory, removed afterwards,
 * plus helpers to read the file back and decode its fields. Expected
 * values in the tests come from docs/mmv-format.md, mmv_stats.h or docs/compatibility.md.
 */
#ifndef MMV_TEST_H
#define MMV_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "../../lib/cmocka_compat.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcp/mmv_stats.h>
#include <pcp/mmv_dev.h>
#include "pcp_compat.h"

struct mt {
	char dir[64];		/* PCP_TMP_DIR */
	char mmvdir[96];	/* PCP_TMP_DIR/mmv */
};

static inline int mt_setup(void **state)
{
	struct mt *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return -1;
	strcpy(t->dir, "/tmp/mmv-unit.XXXXXX");
	if (mkdtemp(t->dir) == NULL) {
		free(t);
		return -1;
	}
	snprintf(t->mmvdir, sizeof(t->mmvdir), "%s/mmv", t->dir);
	if (mkdir(t->mmvdir, 0755) < 0 || setenv("PCP_TMP_DIR", t->dir, 1) < 0) {
		rmdir(t->dir);
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static inline int mt_rm(const char *path, const struct stat *st, int flag,
		struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static inline int mt_teardown(void **state)
{
	struct mt *t = *state;

	nftw(t->dir, mt_rm, 16, FTW_DEPTH | FTW_PHYS);
	free(t);
	return 0;
}

#define MT_TEST(f) cmocka_unit_test_setup_teardown(f, mt_setup, mt_teardown)

/* PCP_TMP_DIR/mmv/@name into @buf (PATH_MAX). */
static inline char *mt_path(void **state, const char *name, char *buf)
{
	const struct mt *t = *state;

	snprintf(buf, PATH_MAX, "%s/%s", t->mmvdir, name);
	return buf;
}

/* The whole file PCP_TMP_DIR/mmv/@name (free it), its size in *len. */
static inline unsigned char *mt_read(void **state, const char *name, size_t *len)
{
	char path[PATH_MAX];
	struct stat st;
	unsigned char *buf;
	int fd = open(mt_path(state, name, path), O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Size of PCP_TMP_DIR/mmv/@name, or -1 if it is absent. */
static inline long long mt_size(void **state, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (lstat(mt_path(state, name, path), &st) < 0)
		return -1;
	return (long long)st.st_size;
}

static inline uint32_t rd32(const void *b, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)b + off, sizeof(v));
	return v;
}

static inline int32_t rdi32(const void *b, size_t off)
{
	return (int32_t)rd32(b, off);
}

static inline uint64_t rd64(const void *b, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)b + off, sizeof(v));
	return v;
}

/* The pmUnits word as stored on disk. */
static inline uint32_t units_word(pmUnits u)
{
	uint32_t w;

	memcpy(&w, &u, sizeof(w));
	return w;
}

/* Check TOC entry @i of header @b. */
static inline void check_toc(const void *b, int i, int type, int count,
		uint64_t offset)
{
	size_t o = 40 + 16 * (size_t)i;

	assert_int_equal(rdi32(b, o), type);
	assert_int_equal(rdi32(b, o + 4), count);
	assert_int_equal(rd64(b, o + 8), offset);
}

/* A string of @n copies of @c (free it). */
static inline char *mt_str(size_t n, char c)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static const pmUnits mt_none __attribute__((unused)) = MMV_UNITS(0, 0, 0, 0, 0, 0);
static const pmUnits mt_count __attribute__((unused)) = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
static const pmUnits mt_usec __attribute__((unused)) = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);

/* The record offset a value handle points at. */
static inline uint64_t mt_off(const void *addr, const void *handle)
{
	return (uint64_t)((const char *)handle - (const char *)addr);
}

#endif
