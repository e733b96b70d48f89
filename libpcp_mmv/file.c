/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Creating, publishing and stopping MMV files.
 *
 * PCP unlinks any file of the name and creates the new one in place under
 * a process-wide umask change, so pmdammv can catch it half-built. Here
 * the file is built under a hidden name (pmdammv skips dot-files) with
 * O_EXCL, never following a symlink, and rename()d into place once g2 is
 * set: readers see no file or a complete one. rename never follows the
 * target either, and in a sticky directory it refuses to replace another
 * user's file.
 *
 * Over an existing regular file (an application restarting) the names
 * are swapped with RENAME_EXCHANGE and the old file unlinked: as atomic
 * for readers, but ext4 does not flush the new file's pages as it does
 * for a rename over a file (auto_da_alloc), which doubled start's cost.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mmv_priv.h"
#include "pcp_conf.h"

int mmv__build_path(const char *name, char *buf, size_t len)
{
	char tmp[PATH_MAX];
	int n;

	if (name == NULL || name[0] == '\0')
		return EINVAL;
	if (name[0] == '/') {
		n = snprintf(buf, len, "%s", name);
	} else {
		if (sdk_pcp_conf_tmp_dir(tmp, sizeof(tmp)) < 0)
			return ENAMETOOLONG;
		n = snprintf(buf, len, "%s/mmv/%s", tmp, name);
	}
	return n < 0 || (size_t)n >= len ? ENAMETOOLONG : 0;
}

/* g1: seconds in the high word, microseconds in the low (docs/mmv-format.md §6.2). */
static uint64_t generation_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return mmv_generation_make((uint64_t)ts.tv_sec,
			(uint64_t)(ts.tv_nsec / 1000));
}

/* A hidden name in the target's directory, for mkostemp. */
static int temp_path(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;
	int n;

	if (slash == NULL)
		n = snprintf(buf, len, ".mmv-XXXXXX");
	else
		n = snprintf(buf, len, "%.*s/.mmv-XXXXXX", dirlen, path);
	return n < 0 || (size_t)n >= len ? ENAMETOOLONG : 0;
}

/*
 * A new file gets its size as written zeros, ZERO_CHUNK bytes a call,
 * rather than as ftruncate's hole: ext4 fills a hole one 4 KiB page per
 * fault, where a write puts the zeros into large folios (2-3x cheaper,
 * bench/RESULTS.md). The chunk caps the folio size, because ext4's
 * page_mkwrite redoes the whole folio at each page's first write: one
 * write of a 1.1 MB file made MADV_POPULATE_WRITE take 1.5 ms, not 0.1.
 * A full disk now fails here with ENOSPC instead of SIGBUS later.
 */
#define ZERO_CHUNK	(128 * 1024)

static char zeros[ZERO_CHUNK];	/* never written: reads as the zero page */

static int write_zeros(int fd, uint64_t size)
{
	uint64_t off = 0;

	while (off < size) {
		size_t len = size - off < ZERO_CHUNK ? (size_t)(size - off) : ZERO_CHUNK;
		ssize_t w = pwrite(fd, zeros, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		off += (uint64_t)w;
	}
	return 0;
}

/* Create @tmp (a mkostemp template, rewritten in place), size and map it. */
static void *map_new_file(char *tmp, uint64_t size, struct stat *st)
{
	void *addr = MAP_FAILED;
	int fd, err;

	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		tmp[0] = '\0';
		return NULL;
	}
	/* fchmod, not umask: the process umask is shared with other threads */
	if (fchmod(fd, 0644) == 0 && write_zeros(fd, size) == 0 &&
	    fstat(fd, st) == 0)
		addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* one call instead of a page fault per page written (Linux 5.14+) */
	if (addr != MAP_FAILED)
		(void)madvise(addr, size, MADV_POPULATE_WRITE);
	err = errno;
	close(fd);
	if (addr == MAP_FAILED) {
		unlink(tmp);
		tmp[0] = '\0';
		errno = err;
		return NULL;
	}
	return addr;
}

static int publish(const char *tmp, const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
		unlink(tmp);	/* the previous file, now under the hidden name */
		return 0;
	}
	/* no file there, a file system without exchange, or an error rename
	 * reports best */
	return rename(tmp, path);
}

/* Each value record's type, for mmv__record_type (mmv_priv.h). */
static uint8_t *record_types(const char *base, const struct mmv_layout *lay)
{
	const mmv_disk_value_t *v = (const mmv_disk_value_t *)(base + lay->off_values);
	uint8_t *t = malloc(lay->nvalues ? lay->nvalues : 1);

	for (size_t i = 0; t != NULL && i < lay->nvalues; i++) {
		const char *m = base + v[i].metric;

		t[i] = (uint8_t)(lay->version == MMV_VERSION1 ?
				 ((const mmv_disk_metric_t *)m)->type :
				 ((const mmv_disk_metric2_t *)m)->type);
	}
	return t;
}

void *mmv__create(const struct mmv_def *def, int version)
{
	struct mmv_layout lay;
	struct mmv_mapping *map;
	char path[PATH_MAX], tmp[PATH_MAX];
	mmv_disk_header_t *h;
	struct stat st;
	uint64_t gen;
	char *addr;
	int err;

	if ((err = mmv__layout_plan(def, version, &lay)) != 0 ||
	    (err = mmv__build_path(def->file, path, sizeof(path))) != 0 ||
	    (err = temp_path(path, tmp, sizeof(tmp))) != 0) {
		errno = err;
		return NULL;
	}
	if ((map = calloc(1, sizeof(*map))) == NULL)
		return NULL;
	if ((addr = map_new_file(tmp, lay.size, &st)) == NULL) {
		err = errno;
		goto fail;
	}
	gen = generation_now();
	mmv__layout_write(def, &lay, addr, gen);
	map->addr = addr;
	map->size = lay.size;
	map->dev = st.st_dev;
	map->ino = st.st_ino;
	map->off_values = lay.off_values;
	map->nvalues = lay.nvalues;
	if ((map->index = mmv__index_build(def, &lay, addr)) == NULL ||
	    (map->types = record_types(addr, &lay)) == NULL) {
		err = ENOMEM;
		goto unmap;
	}
	if ((err = mmv__hist_build(def, map->index, &map->hists)) != 0)
		goto unmap;
	/* g2 = g1 last, and ordered after every other store of the image */
	h = (mmv_disk_header_t *)addr;
	__atomic_store_n(&h->g2, gen, __ATOMIC_RELEASE);
	if (publish(tmp, path) < 0) {
		err = errno;
		goto unmap;
	}
	if ((err = mmv__mapping_add(map)) != 0) {
		unlink(path);
		tmp[0] = '\0';
		goto unmap;
	}
	return addr;
unmap:
	if (tmp[0])
		unlink(tmp);
	munmap(addr, lay.size);
	mmv__index_free(map->index);
	mmv__hist_free(map->hists);
	free(map->types);
fail:
	free(map);
	errno = err;
	return NULL;
}

/* Remove @path only if it still names the file we created. */
static void unlink_if_ours(const char *path, const struct mmv_mapping *map)
{
	struct stat st;

	if (lstat(path, &st) == 0 && st.st_dev == map->dev && st.st_ino == map->ino)
		unlink(path);
}

void mmv_stats_stop(const char *name, void *addr)
{
	struct mmv_mapping *map;
	char path[PATH_MAX];
	int have_path;

	if (addr == NULL)
		return;
	have_path = mmv__build_path(name, path, sizeof(path)) == 0;
	mmv__counters_detach(addr);
	map = mmv__mapping_remove(addr);
	if (map != NULL) {
		if (have_path && (((mmv_disk_header_t *)addr)->flags & MMV_FLAG_PROCESS))
			unlink_if_ours(path, map);
		munmap(addr, map->size);
		mmv__index_free(map->index);
		mmv__hist_free(map->hists);
		free(map->types);
		free(map);
		return;
	}
	/* Not created here: do what PCP does, sized by the file of that name. */
	size_t size = 1;
	struct stat st;
	int fd = have_path ? open(path, O_RDONLY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && st.st_size > 0) {
			size = (size_t)st.st_size;
			if (((mmv_disk_header_t *)addr)->flags & MMV_FLAG_PROCESS)
				unlink(path);
		}
		close(fd);
	}
	munmap(addr, size);
}
