/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file.c - open one directory entry and decide whether it is an MMV file
 * worth parsing (docs/mmv-format.md §7, §7.1, §7.2), never following a symlink and never
 * blocking on a FIFO or touching a device.
 *
 * Truncation safety: at scan time the file is copied into a heap buffer
 * with pread(2) and parsed from that copy, so a writer changing it
 * meanwhile cannot race the checks. Live values are then read from a
 * read-only mapping of the size seen at the scan, through the SIGBUS
 * guard of guard.c: a file shrunk under the mapping gives PM_ERR_VALUE,
 * not a crash. Where the guard cannot be installed values are read with
 * pread(2) on the descriptor kept open.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <pcp/mmv_dev.h>
#include "reader_priv.h"

bool mmvr_span_ok(uint64_t size, uint64_t off, uint64_t count, uint64_t recsize)
{
	uint64_t bytes, end;

	if (count == 0)
		return true;
	if (__builtin_mul_overflow(count, recsize, &bytes) ||
	    __builtin_add_overflow(off, bytes, &end))
		return false;
	return end <= size;
}

/* A zombie has exited: its state letter in /proc/<pid>/stat is Z or X. */
static bool is_zombie(int pid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;	/* no /proc: trust kill() */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold anything, so the last ')'. */
	if ((paren = strrchr(buf, ')')) == NULL || paren[1] != ' ')
		return false;
	return paren[2] == 'Z' || paren[2] == 'X';
}

bool mmvr_writer_alive(int pid)
{
	/* kill(0) fails with EPERM for another user's live process. */
	if (pid <= 0 || (kill(pid, 0) < 0 && errno != EPERM))
		return false;
	return !is_zombie(pid);
}

void mmvr_header_read(const unsigned char *buf, uint64_t *g1, uint64_t *g2)
{
	memcpy(g1, buf + MMV_HDR_G1, sizeof(*g1));
	memcpy(g2, buf + MMV_HDR_G2, sizeof(*g2));
}

void mmvr_image_release(image_t *img)
{
	mmvr_block_give((void *)img->buf);
	img->buf = NULL;
}

/* Open @name only if it is a regular file, as a descriptor we fstat. */
static int open_regular(mmvr_snapshot_t *snap, int dfd, const char *name,
		struct stat *st)
{
	int fd;

	if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)	/* vanished: the writer removed it */
			mmvr_log(snap, LOG_WARNING, name, "stat: %s",
					strerror(errno));
		return -1;
	}
	if (S_ISLNK(st->st_mode)) {
		mmvr_log(snap, LOG_WARNING, name,
				"symbolic link, not followed");
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		mmvr_log(snap, LOG_WARNING, name, "not a regular file");
		return -1;
	}
	/* O_NONBLOCK: should a FIFO be swapped in, open must not wait. */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		mmvr_log(snap, LOG_WARNING, name, "open: %s",
				strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		mmvr_log(snap, LOG_WARNING, name, "not a regular file");
		close(fd);
		return -1;
	}
	return fd;
}

bool mmvr_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				(off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;	/* shrank meanwhile */
		done += (size_t)n;
	}
	return true;
}

static enum load_result not_ready(mmvr_snapshot_t *snap, const char *name,
		const char *why)
{
	mmvr_log(snap, LOG_INFO, name, "not ready (%s), will retry", why);
	return LOAD_NOT_READY;
}

/* Header checks of docs/mmv-format.md §7.1, §7.2 (4-10 apart from the cluster choice). */
static enum load_result check_header(mmvr_snapshot_t *snap, const char *name,
		image_t *img, mmv_disk_header_t *h)
{
	static const char zero[4];

	memcpy(h, img->buf, sizeof(*h));
	/* A writer that sizes the file before filling it (PCP's) leaves a
	 * zeroed header for a moment: retry it, do not refuse it for good. */
	if (memcmp(h->magic, zero, 4) == 0)
		return not_ready(snap, name, "header not written yet");
	if (memcmp(h->magic, "MMV", 4) != 0) {
		mmvr_log(snap, LOG_WARNING, name, "bad magic, not MMV");
		return LOAD_REFUSED;
	}
	if (h->version < MMV_VERSION1 || h->version > MMV_VERSION3) {
		mmvr_log(snap, LOG_WARNING, name, "version %d unsupported",
				h->version);
		return LOAD_REFUSED;
	}
	if (h->g1 == 0)
		return not_ready(snap, name, "generation 0");
	if (h->g1 != h->g2)
		return not_ready(snap, name, "generations differ");
	if (h->tocs < MMV_TOC_MIN ||
	    img->size < MMV_TOC_OFFSET + (uint64_t)h->tocs * MMV_TOC_ENTRY_SIZE) {
		mmvr_log(snap, LOG_WARNING, name,
				"bad TOC count %d for size %llu", h->tocs,
				(unsigned long long)img->size);
		return LOAD_REFUSED;
	}
	if ((h->flags & MMV_FLAG_PROCESS) && h->process != 0 &&
	    !mmvr_writer_alive(h->process)) {
		mmvr_log(snap, LOG_INFO, name, "writer pid %d has exited",
				h->process);
		return LOAD_REFUSED;
	}
	if (h->cluster < 0 || h->cluster > MMV_CLUSTER_MAX) {
		mmvr_log(snap, LOG_WARNING, name, "cluster %d out of range",
				h->cluster);
		return LOAD_REFUSED;
	}
	img->version = h->version;
	img->tocs = (uint32_t)h->tocs;
	return LOAD_OK;
}

static enum load_result new_rfile(mmvr_snapshot_t *snap, const char *name,
		int fd, const struct stat *st, const mmv_disk_header_t *h,
		rfile_t **out)
{
	rfile_t *f = calloc(1, sizeof(*f));

	(void)snap;
	if (f == NULL)
		return LOAD_NOMEM;
	if ((f->pub.name = mmvr_arena_strdup(&f->arena, name)) == NULL) {
		free(f);
		return LOAD_NOMEM;
	}
	f->refs = 1;
	f->pub.requested_cluster = h->cluster;
	f->pub.flags = (unsigned int)h->flags;
	f->pub.version = h->version;
	f->pub.generation = h->g1;
	f->pub.pid = (h->flags & MMV_FLAG_PROCESS) ? h->process : 0;
	f->fd = fd;
	f->size = (uint64_t)st->st_size;
	if (mmvr_guard_init()) {
		void *p = mmap(NULL, (size_t)f->size, PROT_READ, MAP_SHARED, fd, 0);

		f->map = p == MAP_FAILED ? NULL : p;
	}
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->log_budget = 5;
	*out = f;
	return LOAD_OK;
}

enum load_result mmvr_file_load(mmvr_snapshot_t *snap, int dfd, const char *name,
		rfile_t **out, image_t *img, rpending_t *pend)
{
	mmv_disk_header_t h;
	struct stat st;
	enum load_result r;
	unsigned char *buf;
	size_t got;
	int fd = open_regular(snap, dfd, name, &st);

	memset(img, 0, sizeof(*img));
	memset(pend, 0, sizeof(*pend));
	if (fd < 0)
		return LOAD_REFUSED;
	pend->size = (uint64_t)st.st_size;
	if (st.st_size < (off_t)MMV_HEADER_SIZE) {
		close(fd);
		return not_ready(snap, name, "shorter than a header");
	}
	if ((uint64_t)st.st_size > snap->max_file_size) {
		mmvr_log(snap, LOG_WARNING, name,
				"size %llu over the %llu byte limit",
				(unsigned long long)st.st_size,
				(unsigned long long)snap->max_file_size);
		close(fd);
		return LOAD_REFUSED;
	}
	img->size = (uint64_t)st.st_size;
	if ((buf = mmvr_block_take((size_t)img->size, &got)) == NULL) {
		close(fd);
		return LOAD_NOMEM;
	}
	img->buf = buf;
	if (!mmvr_pread_all(fd, buf, (size_t)img->size, 0)) {
		mmvr_image_release(img);
		close(fd);
		return not_ready(snap, name, "shrank while read");
	}
	mmvr_header_read(buf, &pend->g1, &pend->g2);
	r = check_header(snap, name, img, &h);
	if (r == LOAD_OK)
		r = new_rfile(snap, name, fd, &st, &h, out);
	if (r != LOAD_OK) {
		mmvr_image_release(img);
		close(fd);
	}
	return r;
}
