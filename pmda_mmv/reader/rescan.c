/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rescan.c - has anything changed since the snapshot was taken
 * (docs/mmv-format.md §7.11)? Checked before requests, so each test is one
 * or two system calls.
 * Beyond PCP's agent: a file that was not ready is watched by itself
 * (no rescan storm while it stays unready), and a loaded file whose size
 * changes in place is noticed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <pcp/mmv_dev.h>
#include "reader_priv.h"

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/*
 * Per request: fstat of the directory the scan read, which costs no path
 * walk. Entries added, removed or renamed change its mtime; a rename or
 * permission change of the directory itself changes its ctime; removal
 * leaves no link. Once a second (@full) its path is looked up again, for
 * what the descriptor cannot see: another directory now at that path (a
 * symlink retargeted, a mount over it).
 */
static bool dir_changed(const mmvr_snapshot_t *snap, bool full)
{
	struct stat st;

	if (snap->dfd < 0 || full) {
		if (stat(snap->dir, &st) < 0)
			return errno != snap->dir_errno;
		if (snap->dfd < 0 || st.st_dev != snap->dir_dev ||
		    st.st_ino != snap->dir_ino)
			return true;	/* appeared, or another one */
	} else if (fstat(snap->dfd, &st) < 0 || st.st_nlink == 0) {
		return true;
	}
	if (snap->dir_racy)
		return true;
	return !same_time(&st.st_mtim, &snap->dir_mtime) ||
		!same_time(&st.st_ctim, &snap->dir_ctime);
}

/* Header bytes 8-23 (g1, g2) of an open file; false on a short read. */
static bool read_generations(int fd, uint64_t *g1, uint64_t *g2)
{
	unsigned char h[MMV_HDR_GEN_END];
	ssize_t n;

	do {
		n = pread(fd, h, sizeof(h), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(h))
		return false;
	mmvr_header_read(h, g1, g2);
	return true;
}

/* A not-ready file is worth a rescan once it looks complete. */
static bool pending_ready(const mmvr_snapshot_t *snap, const rpending_t *p)
{
	char path[4096];
	struct stat st;
	uint64_t g1, g2;
	bool ready;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", snap->dir, p->name) >=
	    sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			O_NOCTTY);
	if (fd < 0)
		return false;	/* gone: the directory mtime tells */
	ready = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		st.st_size >= (off_t)MMV_HEADER_SIZE &&
		read_generations(fd, &g1, &g2) &&
		g1 != 0 && g1 == g2;
	close(fd);
	return ready;
}

bool mmvr_file_generation_same(const rfile_t *f)
{
	unsigned char h[MMV_HDR_GEN_END];
	uint64_t g1, g2;

	if (!mmvr_file_read(f, h, sizeof(h), 0))
		return false;
	mmvr_header_read(h, &g1, &g2);
	return g1 == f->pub.generation && g2 == f->pub.generation;
}

static int file_changed(const rfile_t *f)
{
	struct stat st;

	if (fstat(f->fd, &st) < 0 || (uint64_t)st.st_size != f->size ||
	    !mmvr_file_generation_same(f))
		return MMVR_RESCAN_CHANGED;
	if (f->pub.pid > 0 && !mmvr_writer_alive(f->pub.pid))
		return MMVR_RESCAN_WRITER_GONE;
	return MMVR_RESCAN_NONE;
}

static int quick_check(const mmvr_snapshot_t *snap, bool full)
{
	unsigned int i;

	if (__atomic_load_n(&snap->changed, __ATOMIC_RELAXED))
		return MMVR_RESCAN_CHANGED;
	if (dir_changed(snap, full))
		return MMVR_RESCAN_DIR;
	for (i = 0; i < snap->npending; i++)
		if (pending_ready(snap, &snap->pending[i]))
			return MMVR_RESCAN_READY;
	return MMVR_RESCAN_NONE;
}

int mmvr_snapshot_needs_rescan_quick(const mmvr_snapshot_t *snap)
{
	return quick_check(snap, false);
}

int mmvr_snapshot_needs_rescan(const mmvr_snapshot_t *snap)
{
	size_t j;
	int why;

	if ((why = quick_check(snap, true)) != MMVR_RESCAN_NONE)
		return why;
	for (j = 0; j < snap->nfiles; j++)
		if ((why = file_changed(snap->files[j])) != MMVR_RESCAN_NONE)
			return why;
	return MMVR_RESCAN_NONE;
}
