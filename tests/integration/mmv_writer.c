/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mmv_writer.c - MMV files for tests/integration/mmv_agent.sh, written
 * through PCP's libpcp_mmv API (built against PCP's headers; run with
 * LD_LIBRARY_PATH=build/lib it writes the same files with ours).
 *
 *   mmv_writer CASE     write $PCP_TMP_DIR/mmv/CASE and exit
 *   mmv_writer proclive stays alive (PROCESS flag) until killed
 *
 * Values are fixed; the one ELAPSED interval is closed before exit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>

static pmUnits u_none;
static pmUnits u_count = { .dimCount = 1, .scaleCount = PM_COUNT_ONE };
static pmUnits u_usec = { .dimTime = 1, .scaleTime = PM_TIME_USEC };
static pmUnits u_bytes = { .dimSpace = 1, .scaleSpace = PM_SPACE_KBYTE };

static mmv_instances_t colours[] = {
	{ 0, "red" }, { 1, "green" }, { 7, "blue" },
};
static mmv_indom_t v1_indoms[] = {
	{ .serial = 3, .count = 3, .instances = colours,
	  .shorttext = "Colours", .helptext = "Three colours, ids 0, 1, 7" },
};
static mmv_metric_t v1_metrics[] = {
	{ .name = "counter", .item = 1, .type = MMV_TYPE_U64,
	  .semantics = MMV_SEM_COUNTER, .dimension = { .dimCount = 1 },
	  .shorttext = "A counter", .helptext = "Counts things, v1 style" },
	{ .name = "per.colour", .item = 2, .type = MMV_TYPE_I32,
	  .semantics = MMV_SEM_INSTANT, .indom = 3, .shorttext = "Per colour" },
	{ .name = "ratio", .item = 3, .type = MMV_TYPE_DOUBLE,
	  .semantics = MMV_SEM_DISCRETE, .helptext = "Long help only" },
	{ .name = "kb", .item = 4, .type = MMV_TYPE_U32,
	  .semantics = MMV_SEM_INSTANT, .dimension = { .dimSpace = 1,
	  .scaleSpace = PM_SPACE_KBYTE } },
};

static void *must(void *base, const char *what)
{
	if (base == NULL) {
		fprintf(stderr, "mmv_writer: %s failed\n", what);
		exit(1);
	}
	return base;
}

static void v1(const char *file, int cluster)
{
	void *b = must(mmv_stats_init(file, cluster, 0, v1_metrics, 4, v1_indoms, 1),
			"mmv_stats_init");

	mmv_stats_add(b, "counter", NULL, 42);
	mmv_stats_set(b, "per.colour", "red", -3);
	mmv_stats_set(b, "per.colour", "blue", 99);
	mmv_stats_set(b, "ratio", NULL, 0.25);
	mmv_stats_set(b, "kb", NULL, 4096);
}

static const char long_name[] =
	"a.metric.name.that.is.longer.than.sixty.four.characters.so.v2.is.used";
static const char long_inst[] =
	"an instance name longer than sixty four characters forces version 2";

static void v2(const char *file)
{
	static mmv_instances2_t in[] = { { 1, "short" }, { 2, (char *)long_inst } };
	static mmv_indom2_t id[] = { { .serial = 9, .count = 2, .instances = in,
		.shorttext = "Short and long" } };
	static mmv_metric2_t m[] = {
		{ .name = (char *)long_name, .item = 1, .type = MMV_TYPE_I64,
		  .semantics = MMV_SEM_INSTANT, .shorttext = "Long named" },
		{ .name = "inst.value", .item = 2, .type = MMV_TYPE_FLOAT,
		  .semantics = MMV_SEM_INSTANT, .indom = 9 },
	};
	void *b = must(mmv_stats2_init(file, 12, 0, m, 2, id, 1), "mmv_stats2_init");

	mmv_stats_set(b, long_name, NULL, -1234567890123.0);
	mmv_stats_set(b, "inst.value", "short", 1.5);
	mmv_stats_set(b, "inst.value", long_inst, -2.5);
}

/* Labels at every level, optional and not; @cluster 0 is automatic. */
static void v3(const char *file, int cluster)
{
	mmv_registry_t *r = must(mmv_stats_registry(file, cluster, 0),
			"mmv_stats_registry");
	void *b;

	mmv_stats_add_indom(r, 4, "Workers", "Worker threads");
	mmv_stats_add_instance(r, 4, 10, "w10");
	mmv_stats_add_instance(r, 4, 20, "w20");
	mmv_stats_add_metric(r, "jobs", 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
			u_count, 4, "Jobs done", "Jobs done per worker");
	mmv_stats_add_metric(r, "bytes", 2, MMV_TYPE_U32, MMV_SEM_INSTANT,
			u_bytes, 0, "Bytes", NULL);
	mmv_stats_add_registry_label(r, "app", "\"writer\"", MMV_STRING_TYPE, 0);
	mmv_stats_add_registry_label(r, "ver", "3", MMV_NUMBER_TYPE, 1);
	mmv_stats_add_indom_label(r, 4, "pool", "{\"size\":2}", MMV_MAP_TYPE, 0);
	mmv_stats_add_metric_label(r, 1, "kind", "\"work\"", MMV_STRING_TYPE, 0);
	mmv_stats_add_metric_label(r, 2, "opt", "true", MMV_BOOLEAN_TYPE, 1);
	mmv_stats_add_instance_label(r, 4, 10, "cpu", "0", MMV_NUMBER_TYPE, 0);
	mmv_stats_add_instance_label(r, 4, 20, "cpu", "1", MMV_NUMBER_TYPE, 1);
	b = must(mmv_stats_start(r), "mmv_stats_start");
	mmv_stats_add(b, "jobs", "w10", 5);
	mmv_stats_add(b, "jobs", "w20", 8);
	mmv_stats_set(b, "bytes", NULL, 512);
}

static void strings(const char *file)
{
	mmv_registry_t *r = must(mmv_stats_registry(file, 14, 0),
			"mmv_stats_registry");
	void *b;

	mmv_stats_add_indom(r, 2, NULL, NULL);
	mmv_stats_add_instance(r, 2, 1, "first");
	mmv_stats_add_instance(r, 2, 2, "second");
	mmv_stats_add_metric(r, "name", 1, MMV_TYPE_STRING, MMV_SEM_DISCRETE,
			u_none, 0, "A name", NULL);
	mmv_stats_add_metric(r, "empty", 2, MMV_TYPE_STRING, MMV_SEM_INSTANT,
			u_none, 0, NULL, NULL);
	mmv_stats_add_metric(r, "per", 3, MMV_TYPE_STRING, MMV_SEM_INSTANT,
			u_none, 2, NULL, NULL);
	b = must(mmv_stats_start(r), "mmv_stats_start");
	mmv_stats_set_string(b, "name", NULL, "hello, world");
	mmv_stats_set_string(b, "empty", NULL, "");
	mmv_stats_set_string(b, "per", "first", "one");
	mmv_stats_set_string(b, "per", "second", "caf\xc3\xa9");
}

static void elapsed(const char *file)
{
	mmv_registry_t *r = must(mmv_stats_registry(file, 16, 0),
			"mmv_stats_registry");
	pmAtomValue *v;
	void *b;

	mmv_stats_add_metric(r, "set", 1, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER,
			u_usec, 0, "Set directly", NULL);
	mmv_stats_add_metric(r, "interval", 2, MMV_TYPE_ELAPSED,
			MMV_SEM_COUNTER, u_usec, 0, NULL, NULL);
	b = must(mmv_stats_start(r), "mmv_stats_start");
	mmv_stats_set(b, "set", NULL, 123456);
	v = mmv_stats_interval_start(b, NULL, "interval", NULL);
	usleep(2000);
	mmv_stats_interval_end(b, v);	/* finished: the value stays put */
}

static void noprefix(const char *file)
{
	static mmv_metric_t m[] = {
		{ .name = "np_value", .item = 1, .type = MMV_TYPE_U32,
		  .semantics = MMV_SEM_INSTANT, .shorttext = "No prefix" },
	};
	void *b = must(mmv_stats_init(file, 15, MMV_FLAG_NOPREFIX, m, 1, NULL, 0),
			"mmv_stats_init");

	mmv_stats_set(b, "np_value", NULL, 15);
}

static void process(const char *file, int cluster, int live)
{
	static mmv_metric_t m[] = {
		{ .name = "alive", .item = 1, .type = MMV_TYPE_U32,
		  .semantics = MMV_SEM_INSTANT },
	};
	void *b = must(mmv_stats_init(file, cluster, MMV_FLAG_PROCESS, m, 1,
			NULL, 0), "mmv_stats_init");

	mmv_stats_set(b, "alive", NULL, 1);
	if (live) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
}

/* SENTINEL: all-ones integers and ELAPSED, NaN floats and "" are "no
 * value"; an I32 of -1 set by value keeps bytes 4-7 zero and is kept. */
static void sentinel(const char *file)
{
	static mmv_metric_t m[] = {
		{ .name = "ones", .item = 1, .type = MMV_TYPE_I64, .semantics = MMV_SEM_INSTANT },
		{ .name = "minus1", .item = 2, .type = MMV_TYPE_I32, .semantics = MMV_SEM_INSTANT },
		{ .name = "fnan", .item = 3, .type = MMV_TYPE_FLOAT, .semantics = MMV_SEM_INSTANT },
		{ .name = "dnan", .item = 4, .type = MMV_TYPE_DOUBLE, .semantics = MMV_SEM_INSTANT },
		{ .name = "str", .item = 5, .type = MMV_TYPE_STRING, .semantics = MMV_SEM_INSTANT },
		{ .name = "el", .item = 6, .type = MMV_TYPE_ELAPSED, .semantics = MMV_SEM_COUNTER },
		{ .name = "fine", .item = 7, .type = MMV_TYPE_U64, .semantics = MMV_SEM_INSTANT },
		{ .name = "ones32", .item = 8, .type = MMV_TYPE_U32, .semantics = MMV_SEM_INSTANT },
	};
	void *b = must(mmv_stats_init(file, 17, MMV_FLAG_SENTINEL, m, 8, NULL, 0),
			"mmv_stats_init");
	pmAtomValue a;

	memset(&a, 0xff, sizeof(a));
	mmv_set_atomvalue(b, mmv_lookup_value_desc(b, "ones", NULL), &a);
	mmv_set_atomvalue(b, mmv_lookup_value_desc(b, "el", NULL), &a);
	mmv_set_atomvalue(b, mmv_lookup_value_desc(b, "ones32", NULL), &a);
	mmv_stats_set(b, "minus1", NULL, -1);
	mmv_stats_set(b, "fnan", NULL, NAN);
	mmv_stats_set(b, "dnan", NULL, NAN);
	mmv_stats_set_string(b, "str", NULL, "");
	mmv_stats_set(b, "fine", NULL, 7);
}

/* 300 counters: the last values lie pages past the header. */
static void big(const char *file)
{
	mmv_registry_t *r = must(mmv_stats_registry(file, 0, 0),
			"mmv_stats_registry");
	char name[16];
	void *b;
	int i;

	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "m%03d", i);
		mmv_stats_add_metric(r, name, (unsigned int)i + 1, MMV_TYPE_U64,
				MMV_SEM_COUNTER, u_count, 0, NULL, NULL);
	}
	b = must(mmv_stats_start(r), "mmv_stats_start");
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "m%03d", i);
		mmv_stats_set(b, name, NULL, i);
	}
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	(void)u_usec;
	if (strcmp(c, "v1") == 0)
		v1(c, 11);
	else if (strcmp(c, "v1auto") == 0)
		v1(c, 0);
	else if (strcmp(c, "v2") == 0)
		v2(c);
	else if (strcmp(c, "v3") == 0)
		v3(c, 13);
	else if (strcmp(c, "v3auto") == 0)
		v3(c, 0);
	else if (strcmp(c, "strings") == 0)
		strings(c);
	else if (strcmp(c, "elapsed") == 0)
		elapsed(c);
	else if (strcmp(c, "noprefix") == 0)
		noprefix(c);
	else if (strcmp(c, "proclive") == 0)
		process(c, 18, 1);
	else if (strcmp(c, "procdead") == 0)
		process(c, 19, 0);
	else if (strcmp(c, "sentinel") == 0)
		sentinel(c);
	else if (strcmp(c, "big") == 0)
		big(c);
	else {
		fprintf(stderr, "usage: mmv_writer v1|v1auto|v2|v3|v3auto|strings|elapsed|"
			"noprefix|proclive|procdead|sentinel|big\n");
		return 2;
	}
	return 0;
}
