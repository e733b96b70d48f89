/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File layout. Every expected number is taken from docs/mmv-format.md §2.4, §3.2, §5, §6.2, §7
 * (the acme example, the v1/v2/v3 trio, the small files, the version
 * table), never from a run of this library.
 */
#include <time.h>

#include "mmv_test.h"

static void check_header(const unsigned char *b, int version, int tocs,
		uint32_t flags, int cluster)
{
	assert_memory_equal(b, "MMV\0", 4);
	assert_int_equal(rdi32(b, 4), version);
	assert_int_not_equal(rd64(b, 8), 0);
	assert_int_equal(rd64(b, 8), rd64(b, 16));
	assert_int_equal(rdi32(b, 24), tocs);
	assert_int_equal(rd32(b, 28), flags);
	assert_int_equal(rdi32(b, 32), getpid());
	assert_int_equal(rdi32(b, 36), cluster);
}

/* docs/mmv-format.md §2.4: acme through mmv_stats_init, 3040 bytes. */
static void acme_example(void **state)
{
	mmv_instances_t in[3] = { { 0, "Anvils" }, { 1, "Rockets" },
				  { 2, "Giant_Rubber_Bands" } };
	mmv_indom_t indom = { 61, 3, in, "Acme products",
			      "Most popular products produced by the Acme Corporation" };
	mmv_metric_t m[3] = {
		{ "products.count", 7, MMV_TYPE_U64, MMV_SEM_COUNTER, mt_count, 61,
		  "Acme factory product throughput", "count help" },
		{ "products.time", 8, MMV_TYPE_U64, MMV_SEM_COUNTER, mt_usec, 61,
		  "Machine time spent producing Acme products", "time help" },
		{ "products.queuetime", 10, MMV_TYPE_U64, MMV_SEM_COUNTER, mt_usec, 61,
		  "Queued time while producing Acme products", "queuetime help" },
	};
	static const char *names[3] = { "products.count", "products.time",
					 "products.queuetime" };
	static const uint32_t items[3] = { 7, 8, 10 };
	static const uint32_t units[3] = { 0x00100000, 0x01001000, 0x01001000 };
	unsigned char *b, zero[256] = { 0 };
	size_t len;
	void *addr = mmv_stats_init("acme", 321, 0, m, 3, &indom, 1);

	assert_non_null(addr);
	b = mt_read(state, "acme", &len);
	assert_int_equal(len, 3040);
	check_header(b, 1, 5, 0, 321);
	assert_memory_equal(b + 36, "\x41\x01\x00\x00", 4);
	check_toc(b, 0, MMV_TOC_INDOMS, 1, 120);
	check_toc(b, 1, MMV_TOC_INSTANCES, 3, 152);
	check_toc(b, 2, MMV_TOC_METRICS, 3, 392);
	check_toc(b, 3, MMV_TOC_VALUES, 9, 704);
	check_toc(b, 4, MMV_TOC_STRINGS, 8, 992);
	/* indom */
	assert_int_equal(rd32(b, 120), 61);
	assert_int_equal(rd32(b, 124), 3);
	assert_int_equal(rd64(b, 128), 152);
	assert_int_equal(rd64(b, 136), 2528);
	assert_int_equal(rd64(b, 144), 2784);
	/* instances */
	for (int i = 0; i < 3; i++) {
		size_t o = 152 + 80 * (size_t)i;
		char ext[64] = { 0 };

		strcpy(ext, in[i].external);
		assert_int_equal(rd64(b, o), 120);
		assert_int_equal(rd32(b, o + 8), 0);
		assert_int_equal(rdi32(b, o + 12), i);
		assert_memory_equal(b + o + 16, ext, 64);
	}
	/* metrics */
	for (int i = 0; i < 3; i++) {
		size_t o = 392 + 104 * (size_t)i;
		char name[64] = { 0 };

		strcpy(name, names[i]);
		assert_memory_equal(b + o, name, 64);
		assert_int_equal(rd32(b, o + 64), items[i]);
		assert_int_equal(rdi32(b, o + 68), MMV_TYPE_U64);
		assert_int_equal(rdi32(b, o + 72), MMV_SEM_COUNTER);
		assert_int_equal(rd32(b, o + 76), units[i]);
		assert_int_equal(rdi32(b, o + 80), 61);
		assert_int_equal(rd32(b, o + 84), 0);
		assert_int_equal(rd64(b, o + 88), 992 + 512 * (uint64_t)i);
		assert_int_equal(rd64(b, o + 96), 1248 + 512 * (uint64_t)i);
		assert_string_equal((char *)b + 992 + 512 * i, m[i].shorttext);
		assert_string_equal((char *)b + 1248 + 512 * i, m[i].helptext);
	}
	/* values: (metric, instance) pairs, all zero */
	for (int i = 0; i < 9; i++) {
		size_t o = 704 + 32 * (size_t)i;

		assert_int_equal(rd64(b, o), 0);
		assert_int_equal(rd64(b, o + 8), 0);
		assert_int_equal(rd64(b, o + 16), 392 + 104 * (uint64_t)(i / 3));
		assert_int_equal(rd64(b, o + 24), 152 + 80 * (uint64_t)(i % 3));
	}
	assert_string_equal((char *)b + 2528, "Acme products");
	assert_string_equal((char *)b + 2784, indom.helptext);
	/* string slots are zero after their NUL */
	assert_memory_equal(b + 2528 + 14, zero, 256 - 14);
	/* the handle is the value record: products.time[Rockets] at 736+96 */
	assert_int_equal(mt_off(addr, mmv_lookup_value_desc(addr,
			"products.time", "Rockets")), 704 + 4 * 32);
	free(b);
	mmv_stats_stop("acme", addr);
}

/* docs/mmv-format.md §3.1: one definition set in three variants. */
static mmv_registry_t *trio(const char *el_name, int labels)
{
	mmv_registry_t *r = mmv_stats_registry("reg", 0, 0);

	assert_non_null(r);
	assert_int_equal(mmv_stats_add_indom(r, 5, "indom short", "indom long"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 5, 1, "one"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 5, 2, "two"), 0);
	assert_int_equal(mmv_stats_add_metric(r, "m.counter", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_count, 0, "short1", NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "m.str", 2, MMV_TYPE_STRING,
			MMV_SEM_INSTANT, mt_none, 5, NULL, "long2"), 0);
	assert_int_equal(mmv_stats_add_metric(r, el_name, 3, MMV_TYPE_ELAPSED,
			MMV_SEM_COUNTER, mt_usec, 0, NULL, NULL), 0);
	if (labels) {
		assert_int_equal(mmv_stats_add_registry_label(r, "app", "\"acme\"",
				MMV_STRING_TYPE, 0), 0);
		assert_int_equal(mmv_stats_add_indom_label(r, 5, "indom_l", "42",
				MMV_NUMBER_TYPE, 1), 0);
		assert_int_equal(mmv_stats_add_metric_label(r, 2, "metric_l", "true",
				MMV_BOOLEAN_TYPE, 0), 0);
		assert_int_equal(mmv_stats_add_instance_label(r, 5, 2, "inst_l", "null",
				MMV_NULL_TYPE, 0), 0);
	}
	return r;
}

static void trio_v1(void **state)
{
	mmv_registry_t *r = trio("m.el", 0);
	unsigned char *b;
	size_t len;

	assert_non_null(mmv_stats_start(r));
	b = mt_read(state, "reg", &len);
	assert_int_equal(len, 2288);
	check_header(b, 1, 5, 0, 0);
	check_toc(b, 0, MMV_TOC_INDOMS, 1, 120);
	check_toc(b, 1, MMV_TOC_INSTANCES, 2, 152);
	check_toc(b, 2, MMV_TOC_METRICS, 3, 312);
	check_toc(b, 3, MMV_TOC_VALUES, 4, 624);
	check_toc(b, 4, MMV_TOC_STRINGS, 6, 752);
	/* slots: 2 string values, short1, long2, indom short, indom long */
	assert_int_equal(rd64(b, 624 + 32 + 8), 752);
	assert_int_equal(rd64(b, 624 + 64 + 8), 1008);
	assert_int_equal(rd64(b, 312 + 88), 1264);
	assert_int_equal(rd64(b, 312 + 96), 0);
	assert_int_equal(rd64(b, 416 + 88), 0);
	assert_int_equal(rd64(b, 416 + 96), 1520);
	assert_int_equal(rd64(b, 120 + 16), 1776);
	assert_int_equal(rd64(b, 120 + 24), 2032);
	assert_string_equal((char *)b + 1264, "short1");
	assert_string_equal((char *)b + 1520, "long2");
	assert_string_equal((char *)b + 1776, "indom short");
	assert_string_equal((char *)b + 2032, "indom long");
	/* values: m.counter, m.str[one], m.str[two], m.el */
	assert_int_equal(rd64(b, 624 + 16), 312);
	assert_int_equal(rd64(b, 624 + 24), 0);
	assert_int_equal(rd64(b, 656 + 16), 416);
	assert_int_equal(rd64(b, 656 + 24), 152);
	assert_int_equal(rd64(b, 688 + 16), 416);
	assert_int_equal(rd64(b, 688 + 24), 232);
	assert_int_equal(rd64(b, 720 + 16), 520);
	assert_int_equal(rd64(b, 720 + 24), 0);
	assert_int_equal(rd64(b, 720 + 8), 0);
	assert_string_equal((char *)b + 520, "m.el");
	assert_int_equal(rdi32(b, 520 + 68), MMV_TYPE_ELAPSED);
	assert_int_equal(rd32(b, 520 + 76), 0x01001000);
	assert_int_equal(rdi32(b, 520 + 80), 0);
	assert_int_equal(rdi32(b, 416 + 72), MMV_SEM_INSTANT);
	assert_int_equal(rdi32(b, 416 + 80), 5);
	free(b);
	mmv_stats_free(r);
}

static void trio_v2(void **state)
{
	char *el = mt_str(70, 'e');
	mmv_registry_t *r;
	unsigned char *b;
	size_t len;

	el[1] = '.';
	r = trio(el, 0);
	assert_non_null(mmv_stats_start(r));
	b = mt_read(state, "reg", &len);
	assert_int_equal(len, 3288);
	check_header(b, 2, 5, 0, 0);
	check_toc(b, 0, MMV_TOC_INDOMS, 1, 120);
	check_toc(b, 1, MMV_TOC_INSTANCES, 2, 152);
	check_toc(b, 2, MMV_TOC_METRICS, 3, 200);
	check_toc(b, 3, MMV_TOC_VALUES, 4, 344);
	check_toc(b, 4, MMV_TOC_STRINGS, 11, 472);
	/* the long name is in the fifth slot */
	assert_int_equal(rd64(b, 200 + 96), 472 + 4 * 256);
	assert_string_equal((char *)b + 472 + 4 * 256, el);
	free(b);
	mmv_stats_free(r);
	free(el);
}

static void trio_v3(void **state)
{
	static const struct {
		uint64_t off;
		const char *text;
	} slots[] = {
		{ 488, "one" }, { 744, "two" }, { 1000, "m.counter" },
		{ 1256, "m.str" }, { 1512, "m.el" }, { 1768, "" }, { 2024, "" },
		{ 2280, "short1" }, { 2536, "long2" }, { 2792, "indom short" },
		{ 3048, "indom long" },
	};
	static const struct {
		uint32_t flags, identity;
		int32_t internal;
		const char *payload;
	} labels[] = {
		{ 0x08, 0, -1, "{\"app\":\"acme\"}" },
		{ 0x84, 5, -1, "{\"indom_l\":42}" },
		{ 0x10, 2, -1, "{\"metric_l\":true}" },
		{ 0x20, 5, 2, "{\"inst_l\":null}" },
	};
	mmv_registry_t *r = trio("m.el", 1);
	unsigned char *b;
	size_t len;

	assert_non_null(mmv_stats_start(r));
	b = mt_read(state, "reg", &len);
	assert_int_equal(len, 4328);
	check_header(b, 3, 6, 0, 0);
	check_toc(b, 0, MMV_TOC_INDOMS, 1, 136);
	check_toc(b, 1, MMV_TOC_INSTANCES, 2, 168);
	check_toc(b, 2, MMV_TOC_METRICS, 3, 216);
	check_toc(b, 3, MMV_TOC_VALUES, 4, 360);
	check_toc(b, 4, MMV_TOC_STRINGS, 11, 488);
	check_toc(b, 5, MMV_TOC_LABELS, 4, 3304);
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		assert_string_equal((char *)b + slots[i].off, slots[i].text);
	/* who points at which slot */
	assert_int_equal(rd64(b, 168 + 16), 488);
	assert_int_equal(rd64(b, 192 + 16), 744);
	assert_int_equal(rd64(b, 192), 136);
	assert_int_equal(rdi32(b, 192 + 12), 2);
	assert_int_equal(rd64(b, 216), 1000);
	assert_int_equal(rd64(b, 264), 1256);
	assert_int_equal(rd64(b, 312), 1512);
	assert_int_equal(rd32(b, 216 + 8), 1);
	assert_int_equal(rdi32(b, 264 + 12), MMV_TYPE_STRING);
	assert_int_equal(rdi32(b, 264 + 24), 5);
	assert_int_equal(rd64(b, 392 + 8), 1768);
	assert_int_equal(rd64(b, 424 + 8), 2024);
	assert_int_equal(rd64(b, 424 + 24), 192);
	assert_int_equal(rd64(b, 216 + 32), 2280);
	assert_int_equal(rd64(b, 264 + 40), 2536);
	assert_int_equal(rd64(b, 136 + 16), 2792);
	assert_int_equal(rd64(b, 136 + 24), 3048);
	for (size_t i = 0; i < 4; i++) {
		size_t o = 3304 + 256 * i;

		assert_int_equal(rd32(b, o), labels[i].flags);
		assert_int_equal(rd32(b, o + 4), labels[i].identity);
		assert_int_equal(rdi32(b, o + 8), labels[i].internal);
		assert_string_equal((char *)b + o + 12, labels[i].payload);
	}
	free(b);
	mmv_stats_free(r);
}

/* docs/mmv-format.md §2.4: 72-byte empty file, 208-byte single U32. */
static void small_files(void **state)
{
	mmv_registry_t *e = mmv_stats_registry("empty", 0, 0);
	mmv_registry_t *s = mmv_stats_registry("single", 0, 0);
	unsigned char *b;
	size_t len;

	assert_non_null(mmv_stats_start(e));
	b = mt_read(state, "empty", &len);
	assert_int_equal(len, 72);
	check_header(b, 1, 2, 0, 0);
	check_toc(b, 0, MMV_TOC_METRICS, 0, 72);
	check_toc(b, 1, MMV_TOC_VALUES, 0, 72);
	free(b);
	assert_int_equal(mmv_stats_add_metric(s, "u", 4, MMV_TYPE_U32,
			MMV_SEM_INSTANT, mt_none, MMV_INDOM_NULL, NULL, NULL), 0);
	assert_non_null(mmv_stats_start(s));
	b = mt_read(state, "single", &len);
	assert_int_equal(len, 208);
	check_header(b, 1, 2, 0, 0);
	check_toc(b, 0, MMV_TOC_METRICS, 1, 72);
	check_toc(b, 1, MMV_TOC_VALUES, 1, 176);
	assert_string_equal((char *)b + 72, "u");
	assert_int_equal(rd32(b, 72 + 64), 4);
	assert_int_equal(rdi32(b, 72 + 68), MMV_TYPE_U32);
	assert_int_equal(rdi32(b, 72 + 80), -1);
	assert_int_equal(rd64(b, 72 + 88), 0);
	assert_int_equal(rd64(b, 176 + 16), 72);
	assert_int_equal(rd64(b, 176 + 24), 0);
	free(b);
	mmv_stats_free(e);
	mmv_stats_free(s);
}

static int start_version(void **state, mmv_registry_t *r)
{
	unsigned char *b;
	size_t len;
	int v;

	assert_non_null(mmv_stats_start(r));
	b = mt_read(state, "ver", &len);
	v = rdi32(b, 4);
	free(b);
	mmv_stats_free(r);
	return v;
}

/* docs/mmv-format.md §3.2's version table, through the registry. */
static void version_choice(void **state)
{
	char *n63 = mt_str(63, 'n'), *n64 = mt_str(64, 'n');
	mmv_registry_t *r;

	r = mmv_stats_registry("ver", 0, 0);
	mmv_stats_add_metric(r, n63, 1, MMV_TYPE_U64, MMV_SEM_COUNTER, mt_none, 0, NULL, NULL);
	assert_int_equal(start_version(state, r), 1);
	r = mmv_stats_registry("ver", 0, 0);
	mmv_stats_add_metric(r, n64, 1, MMV_TYPE_U64, MMV_SEM_COUNTER, mt_none, 0, NULL, NULL);
	assert_int_equal(start_version(state, r), 2);
	r = mmv_stats_registry("ver", 0, 0);
	mmv_stats_add_indom(r, 1, NULL, NULL);
	assert_int_equal(mmv_stats_add_instance(r, 1, 1, n63), 0);
	assert_int_equal(start_version(state, r), 1);
	r = mmv_stats_registry("ver", 0, 0);
	mmv_stats_add_indom(r, 1, NULL, NULL);
	assert_int_equal(mmv_stats_add_instance(r, 1, 1, n64), 0);
	assert_int_equal(start_version(state, r), 2);
	r = mmv_stats_registry("ver", 0, 0);
	mmv_stats_add_metric(r, "m", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, mt_none, 0, NULL, NULL);
	assert_int_equal(mmv_stats_add_metric_label(r, 1, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	assert_int_equal(start_version(state, r), 3);
	/* a failed label does not make the file v3 */
	r = mmv_stats_registry("ver", 0, 0);
	assert_int_equal(mmv_stats_add_metric_label(r, 1, "-", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(start_version(state, r), 1);
	free(n63);
	free(n64);
}

/* docs/mmv-format.md §3.2: once a label was added the registry stays at 3 across reset. */
static void version_sticks_across_reset(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("ver", 0, 0);
	unsigned char *b;
	size_t len;

	assert_int_equal(mmv_stats_add_registry_label(r, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	assert_non_null(mmv_stats_start(r));
	mmv_stats_reset(r);
	assert_int_equal(mmv_stats_add_metric(r, "m", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_none, 0, NULL, NULL), 0);
	assert_non_null(mmv_stats_start(r));
	b = mt_read(state, "ver", &len);
	assert_int_equal(rdi32(b, 4), 3);
	/* v2 records, no labels section: 40 + 3*16 + 48 + 32 + 256 */
	assert_int_equal(rdi32(b, 24), 3);
	assert_int_equal(len, 424);
	assert_string_equal((char *)b + rd64(b, 88), "m");
	free(b);
	mmv_stats_free(r);
}

static void header_fields(void **state)
{
	mmv_stats_flags_t flags = (mmv_stats_flags_t)(MMV_FLAG_NOPREFIX |
			MMV_FLAG_SENTINEL | 0x100);
	mmv_registry_t *r = mmv_stats_registry("hdr", 4095, flags);
	unsigned char *b;
	time_t t0 = time(NULL), t1;
	uint64_t g1;
	size_t len;

	assert_non_null(mmv_stats_start(r));
	t1 = time(NULL);
	b = mt_read(state, "hdr", &len);
	check_header(b, 1, 2, 0x105, 4095);
	g1 = rd64(b, 8);
	/* g1 = seconds << 32 | microseconds (docs/mmv-format.md §6.2) */
	assert_uint_in_range(g1 >> 32, (uint64_t)t0, (uint64_t)t1);
	assert_true((g1 & 0xffffffff) < 1000000);
	free(b);
	mmv_stats_free(r);
}

static void mode_0644_under_umask_077(void **state)
{
	mode_t old = umask(077);
	mmv_registry_t *r = mmv_stats_registry("mode", 0, 0);
	char path[PATH_MAX];
	struct stat st;
	void *addr = mmv_stats_start(r);

	umask(old);
	assert_non_null(addr);
	assert_int_equal(stat(mt_path(state, "mode", path), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	mmv_stats_free(r);
}

/* Metric help over 255 chars is cut to 255; "" still takes a slot (2.13). */
static void help_texts(void **state)
{
	char *h600 = mt_str(600, 'h');
	mmv_registry_t *r = mmv_stats_registry("help", 0, 0);
	unsigned char *b;
	size_t len;

	assert_int_equal(mmv_stats_add_indom(r, 9, NULL, ""), 0);
	assert_int_equal(mmv_stats_add_metric(r, "m", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_none, 0, h600, ""), 0);
	assert_non_null(mmv_stats_start(r));
	b = mt_read(state, "help", &len);
	/* NI 1, NINST 0, NM 1, NV 1, NS 3, tocs 5 */
	assert_int_equal(len, 120 + 32 + 104 + 32 + 3 * 256);
	check_toc(b, 1, MMV_TOC_INSTANCES, 0, 152);
	check_toc(b, 4, MMV_TOC_STRINGS, 3, 288);
	/* an indom without instances still has its offset */
	assert_int_equal(rd32(b, 124), 0);
	assert_int_equal(rd64(b, 128), 152);
	assert_int_equal(rd64(b, 152 + 88), 288);
	assert_int_equal(strlen((char *)b + 288), 255);
	assert_memory_equal(b + 288, h600, 255);
	assert_int_equal(rd64(b, 152 + 96), 544);
	assert_int_equal(b[544], 0);
	assert_int_equal(rd64(b, 136), 0);
	assert_int_equal(rd64(b, 144), 800);
	free(b);
	mmv_stats_free(r);
	free(h600);
}

/* docs/mmv-format.md §4.3: pmUnits words. */
static void units_words(void **state)
{
	pmUnits mbs = MMV_UNITS(1, -1, 0, PM_SPACE_MBYTE, PM_TIME_SEC, 0);
	pmUnits neg = MMV_UNITS(-1, 0, 0, 0, 0, 0);
	pmUnits pos = MMV_UNITS(1, 0, 0, 0, 0, 0);
	mmv_registry_t *r = mmv_stats_registry("units", 0, 0);
	unsigned char *b;
	size_t len;

	(void)state;
	assert_int_equal(units_word(mt_count), 0x00100000);
	assert_int_equal(units_word(mt_usec), 0x01001000);
	assert_int_equal(units_word(mbs), 0x1f023000);
	assert_int_equal(units_word(neg), 0xf0000000);
	assert_int_equal(units_word(pos), 0x10000000);
	assert_int_equal(mmv_stats_add_metric(r, "m", 1, MMV_TYPE_DOUBLE,
			MMV_SEM_INSTANT, mbs, 0, NULL, NULL), 0);
	assert_non_null(mmv_stats_start(r));
	b = mt_read(state, "units", &len);
	assert_memory_equal(b + 72 + 76, "\x00\x30\x02\x1f", 4);
	free(b);
	mmv_stats_free(r);
}

/* pmUnits set field by field, the rest zero: what MMV_UNITS must give. */
static unsigned int units_by_field(int ds, int dt, int dc, unsigned ss, unsigned st, int sc)
{
	pmUnits u;

	memset(&u, 0, sizeof(u));
	u.dimSpace = ds;
	u.dimTime = dt;
	u.dimCount = dc;
	u.scaleSpace = ss;
	u.scaleTime = st;
	u.scaleCount = sc;
	return units_word(u);
}

#define UNITS_TEXT(...)	#__VA_ARGS__
#define UNITS_EXPANDED(m)	UNITS_TEXT(m)

/*
 * MMV_UNITS names its fields. A positional list is right only while
 * pmUnits keeps PCP 6's order and count: on PCP 7 (extraUnit, extraScale
 * where the padding was) it shifts every value, so check the expansion
 * itself as well as the fields, and fail on any PCP.
 */
static void units_macro_by_name(void **state)
{
	static const struct { pmUnits u; int f[6]; } cases[] = {
		{ MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0), { 0, 1, 0, 0, PM_TIME_USEC, 0 } },
		{ MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE), { 0, 0, 1, 0, 0, PM_COUNT_ONE } },
		{ MMV_UNITS(1, -1, 0, PM_SPACE_KBYTE, PM_TIME_SEC, 0),
		  { 1, -1, 0, PM_SPACE_KBYTE, PM_TIME_SEC, 0 } },
		{ MMV_UNITS(0, 1, -1, 0, PM_TIME_HOUR, 6), { 0, 1, -1, 0, PM_TIME_HOUR, 6 } },
		{ MMV_UNITS(-1, 0, 0, PM_SPACE_EBYTE, 0, -3), { -1, 0, 0, PM_SPACE_EBYTE, 0, -3 } },
	};
	static const char *const names[] = { ".dimSpace", ".dimTime", ".dimCount",
		".scaleSpace", ".scaleTime", ".scaleCount" };
	const char *text = UNITS_EXPANDED(MMV_UNITS(1, 2, 3, 4, 5, 6));

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const int *f = cases[i].f;
		pmUnits u = cases[i].u;

		assert_int_equal(u.dimSpace, f[0]);
		assert_int_equal(u.dimTime, f[1]);
		assert_int_equal(u.dimCount, f[2]);
		assert_int_equal(u.scaleSpace, f[3]);
		assert_int_equal(u.scaleTime, f[4]);
		assert_int_equal(u.scaleCount, f[5]);
		assert_int_equal(units_word(u), units_by_field(f[0], f[1], f[2],
				(unsigned)f[3], (unsigned)f[4], f[5]));
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(text, names[i]) == NULL)
			fail_msg("MMV_UNITS expands to %s, without %s", text, names[i]);
}

#ifdef PM_UNIT_TEMPERATURE
/* PCP 7's extra units: the two fields, and nothing else moved. */
static void extraunits_macro(void **state)
{
	pmUnits c = MMV_EXTRAUNITS(0, 0, 0, 0, 0, 0, PM_UNIT_TEMPERATURE, PM_TEMPERATURE_C);
	pmUnits ws = MMV_EXTRAUNITS(0, -1, 0, 0, PM_TIME_SEC, 0, PM_UNIT_POWER, 1);
	pmUnits plain = MMV_UNITS(0, -1, 0, 0, PM_TIME_SEC, 0);

	(void)state;
	assert_int_equal(c.extraUnit, PM_UNIT_TEMPERATURE);
	assert_int_equal(c.extraScale, PM_TEMPERATURE_C);
	assert_int_equal(c.dimTime, 0);
	assert_int_equal(ws.extraUnit, PM_UNIT_POWER);
	assert_int_equal(ws.dimTime, -1);
	assert_int_equal(ws.scaleTime, PM_TIME_SEC);
	assert_int_equal(plain.extraUnit, 0);
	assert_int_equal(plain.extraScale, 0);
	ws.extraUnit = 0;
	ws.extraScale = 0;
	assert_int_equal(units_word(ws), units_word(plain));
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(acme_example),
		MT_TEST(trio_v1),
		MT_TEST(trio_v2),
		MT_TEST(trio_v3),
		MT_TEST(small_files),
		MT_TEST(version_choice),
		MT_TEST(version_sticks_across_reset),
		MT_TEST(header_fields),
		MT_TEST(mode_0644_under_umask_077),
		MT_TEST(help_texts),
		MT_TEST(units_words),
		MT_TEST(units_macro_by_name),
#ifdef PM_UNIT_TEMPERATURE
		MT_TEST(extraunits_macro),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
