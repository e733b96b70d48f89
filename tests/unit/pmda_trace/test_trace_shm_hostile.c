/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's reader against hostile segments (docs/trace-protocol.md
 * §10.6): descriptors it must refuse (unsealed, shrunk below the
 * geometry, not a memfd, a header that does not match), and segments
 * that turn bad after it took them (indices out of bounds, bad tag
 * entries, torn slots, numbers going backwards or beyond belief,
 * garbage everywhere). Refusals come with a reason; nothing crashes
 * (ASan, UBSan); every batch that is emitted is self-consistent.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../../libpcp_trace/trace_priv.h"
#include "../../../pmda_trace/core/shm.h"

#define TAGS 8
#define ROWS 4

struct count {
	int batches;
	uint64_t reports;
	int bad;		/* a batch that was not self-consistent */
};

static int emit(void *arg, uint64_t seq, int type, const char *tag, size_t len,
		const struct trace_batch *b)
{
	struct count *c = arg;
	uint64_t n = 0;

	(void)seq;
	c->batches++;
	c->reports += b->count;
	if (type < TRACE_FIRST_TYPE || type > TRACE_LAST_TYPE || len == 0 ||
	    len >= TRACE_SHM_NAME_MAX || memchr(tag, '\0', len) != NULL ||
	    b->count == 0 || b->count > TRACE_BATCH_MAX || b->min > b->max)
		c->bad++;
	if (b->hist != NULL) {
		for (uint32_t i = 0; i < TRACE_HIST_NBUCKETS; i++)
			n += b->hist[i];
		c->bad += n != b->count;
	}
	return 1;
}

static struct trace_shm_seg seg;

static int setup(void **state)
{
	(void)state;
	assert_int_equal(trace__shm_seg_create(&seg, TAGS, ROWS), 0);
	assert_int_equal(trace__shm_install(&seg), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	trace__shm_drop(1);
	return 0;
}

static struct trace_shm_hdr *hdr(void)
{
	return seg.base;
}

/* A report by name as the library makes it: the thread's cache, else the segment's tables. */
static int rec(int type, const char *tag, double v)
{
	size_t taglen;
	int rc = trace__shm_fast(type, tag, v, &taglen);

	return rc != TRACE_SHM_PDU ? rc : trace__shm_record(type, tag, strlen(tag) + 1, 0, NULL, v);
}

static struct tra_shm *open_ok(void)
{
	char why[128] = "";
	struct tra_shm *s = tra_shm_open(dup(seg.fd), TAGS, ROWS, why, sizeof(why));

	if (s == NULL)
		fail_msg("%s", why);
	return s;
}

/* tra_shm_open refuses @fd (closed here) for a reason containing @want. */
static void refused(int fd, uint32_t tags, uint32_t rows, const char *want)
{
	char why[128] = "";

	assert_null(tra_shm_open(fd, tags, rows, why, sizeof(why)));
	if (strstr(why, want) == NULL)
		fail_msg("reason \"%s\", expected \"%s\"", why, want);
	close(fd);
}

/* A memfd of @size bytes with @seals, holding a copy of seg's header. */
static int memfd_with(size_t size, int seals)
{
	int fd = memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(pwrite(fd, seg.base, TRACE_SHM_HDR_SIZE, 0), TRACE_SHM_HDR_SIZE);
	if (seals)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

static void refuse_descriptors(void **state)
{
	size_t size = trace_shm_size(TAGS, ROWS);
	char path[] = "/tmp/trace_shm_hostile.XXXXXX";
	int fd;

	(void)state;
	refused(memfd_with(size, 0), TAGS, ROWS, "not sealed");
	refused(memfd_with(size, F_SEAL_GROW), TAGS, ROWS, "not sealed");
	refused(memfd_with(size / 2, F_SEAL_SHRINK), TAGS, ROWS, "smaller");
	refused(dup(seg.fd), TAGS, ROWS + 1, "smaller");
	refused(dup(seg.fd), TAGS, ROWS - 1, "does not match");
	refused(dup(seg.fd), 0, ROWS, "geometry");
	refused(dup(seg.fd), TRACE_SHM_TAGS_MAX + 1, ROWS, "geometry");
	/* a plain file cannot be sealed */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	refused(fd, TAGS, ROWS, "not sealed");
	/* sealed, but the magic is wrong */
	fd = memfd_with(size, F_SEAL_SHRINK);
	assert_int_equal(pwrite(fd, "NOTTRACE", 8, 0), 8);
	refused(fd, TAGS, ROWS, "does not match");
}

static void collect_fails(struct tra_shm *s, const char *want)
{
	struct count c = { 0 };
	char why[128] = "";

	assert_int_equal(tra_shm_collect(s, 1, 0, emit, &c, why, sizeof(why)), -1);
	if (strstr(why, want) == NULL)
		fail_msg("reason \"%s\", expected \"%s\"", why, want);
	assert_int_equal(c.bad, 0);
}

static void bad_indices(void **state)
{
	struct tra_shm *s = open_ok();

	(void)state;
	rec(TRACE_TYPE_POINT, "p", 0);
	hdr()->ntags = TAGS + 1;
	collect_fails(s, "tags published");
	tra_shm_close(s);
	s = open_ok();
	hdr()->ntags = 1;
	hdr()->nrows = UINT32_MAX;
	collect_fails(s, "rows in use");
	tra_shm_close(s);
}

static void bad_tag_entries(void **state)
{
	struct trace_shm_tag *e = trace_shm_tag_at(seg.base, 0);
	struct tra_shm *s;

	(void)state;
	rec(TRACE_TYPE_POINT, "p", 0);
	s = open_ok();
	e->type = 9;
	collect_fails(s, "type 9");
	tra_shm_close(s);
	s = open_ok();
	e->type = TRACE_TYPE_POINT;
	e->len = 0;
	collect_fails(s, "length 0");
	tra_shm_close(s);
	s = open_ok();
	e->len = 200;
	collect_fails(s, "length 200");
	tra_shm_close(s);
	s = open_ok();
	e->len = 3;
	memcpy(e->name, "a\0b", 3);
	collect_fails(s, "NUL inside");
	tra_shm_close(s);
}

/* A writer that never finishes its update: skipped until it is gone. */
static void torn(void **state)
{
	struct trace_shm_slot *slot = trace_shm_slot_at(seg.base, TAGS, 0, 0);
	struct tra_shm *s = open_ok();
	struct count c = { 0 };

	(void)state;
	rec(TRACE_TYPE_OBSERVE, "o", 1.0);
	rec(TRACE_TYPE_OBSERVE, "o", 2.0);
	slot->seq |= 1;	/* mid-update, for ever */
	assert_int_equal(tra_shm_collect(s, 1, 0, emit, &c, NULL, 0), 0);
	/* the writer died there: its numbers are taken as they stand */
	assert_int_equal(tra_shm_collect(s, 1, 1, emit, &c, NULL, 0), 1);
	assert_int_equal(c.reports, 2);
	assert_int_equal(c.bad, 0);
	tra_shm_close(s);
}

/* Backwards is ignored; beyond belief drops the segment. */
static void counts(void **state)
{
	struct trace_shm_slot *slot = trace_shm_slot_at(seg.base, TAGS, 0, 0);
	struct tra_shm *s = open_ok();
	struct count c = { 0 };

	(void)state;
	for (int i = 0; i < 10; i++)
		rec(TRACE_TYPE_OBSERVE, "o", 1.0);
	assert_int_equal(tra_shm_collect(s, 1, 0, emit, &c, NULL, 0), 1);
	slot->count = 3;
	assert_int_equal(tra_shm_collect(s, 1, 0, emit, &c, NULL, 0), 0);
	slot->count = 12;
	assert_int_equal(tra_shm_collect(s, 1, 0, emit, &c, NULL, 0), 1);
	assert_int_equal(c.reports, 12);
	/* histogram counters that went backwards: the batch stays consistent */
	trace_shm_hist_at(seg.base, TAGS, ROWS, 0, 0)[trace_hist_index(1.0)] = 0;
	slot->count = 20;
	assert_int_equal(tra_shm_collect(s, 1, 0, emit, &c, NULL, 0), 1);
	assert_int_equal(c.bad, 0);
	slot->count = UINT64_MAX;
	collect_fails(s, "reports at once");
	tra_shm_close(s);
}

/* Garbage everywhere after a valid header: bounded, consistent, no crash. */
static void garbage(void **state)
{
	unsigned char *p = seg.base;
	struct count c = { 0 };
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 50; round++) {
		struct tra_shm *s = open_ok();
		char why[128];

		for (size_t i = TRACE_SHM_HDR_SIZE; i < seg.size; i += 1 + rand_r(&seed) % 64)
			p[i] = (unsigned char)rand_r(&seed);
		hdr()->ntags = (uint32_t)rand_r(&seed) % (TAGS + 2);
		hdr()->nrows = (uint32_t)rand_r(&seed) % (ROWS + 2);
		for (int k = 0; k < 3; k++)
			if (tra_shm_collect(s, (uint64_t)k, k == 2, emit, &c, why, sizeof(why)) < 0)
				break;
		tra_shm_close(s);
	}
	assert_int_equal(c.bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(refuse_descriptors, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_indices, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_tag_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(torn, setup, teardown),
		cmocka_unit_test_setup_teardown(counts, setup, teardown),
		cmocka_unit_test_setup_teardown(garbage, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
