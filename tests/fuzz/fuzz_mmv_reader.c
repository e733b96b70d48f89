/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the pmda_mmv reader core: the input is written as
 * two files of a scratch directory (one with a name the NOPREFIX and
 * cluster logic can clash on), scanned, and every answer the snapshot can
 * give is asked for: descriptors, every instance's value, help texts,
 * labels, change detection, memory reserved for the next scan, and a
 * rescan with a newcomer asking for the same clusters.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../../pmda_mmv/reader/reader.h"
#include "json_check.h"

static char dir[] = "/tmp/mmv-fuzz.XXXXXX";

static void quiet(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

static void cleanup(void)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/a", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/b.c", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/0", dir);
	unlink(path);
	rmdir(dir);
}

static void put(const char *name, const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

static int count_label(void *arg, unsigned int flags, int inst,
		const char *json)
{
	(void)flags;
	(void)inst;
	/* libpcp_pmda gets every payload handed out: only good ones */
	if (!sdk_json_label_set_valid(json, strlen(json)))
		abort();
	*(size_t *)arg += strlen(json);
	return 0;
}

static void labels_of(mmvr_snapshot_t *s, const mmvr_metric_info_t *m)
{
	size_t n = 0;

	mmvr_snapshot_labels(s, PM_LABEL_CLUSTER, m->desc.pmid, PM_IN_NULL,
			count_label, &n);
	mmvr_snapshot_labels(s, PM_LABEL_ITEM, m->desc.pmid, PM_IN_NULL,
			count_label, &n);
	if (m->desc.indom == PM_INDOM_NULL)
		return;
	mmvr_snapshot_labels(s, PM_LABEL_INDOM, m->desc.indom, PM_IN_NULL,
			count_label, &n);
	mmvr_snapshot_labels(s, PM_LABEL_INSTANCES, m->desc.indom, PM_IN_NULL,
			count_label, &n);
}

/* The quick path, armed and not, and its raw read (2 for an elapsed
 * time) must agree with the general one's @sts (the values may not: an
 * ELAPSED interval in progress moves); the addresses given to prefetch
 * are the record's and its file's generations. */
static void quick_same(mmvr_snapshot_t *s, const mmvr_metric_info_t *m, int sts)
{
	const mmvr_quick_t *q = mmvr_snapshot_lookup_quick(s, m->desc.pmid);
	static mmvr_guard_t g;
	volatile int armed = PM_ERR_VALUE, raw = PM_ERR_VALUE;
	mmvr_value_t v;
	const void *at[2];

	if (q == NULL)
		return;
	mmvr_snapshot_quick_addrs(s, m->desc.pmid, q, at);
	if ((const char *)at[1] - (const char *)at[0] !=
	    (ptrdiff_t)q->offset - (ptrdiff_t)MMV_HDR_G1)
		abort();
	if (m->desc.indom != PM_INDOM_NULL || m->desc.type == PM_TYPE_STRING ||
	    mmvr_quick_type(q) != m->desc.type ||
	    mmvr_snapshot_fetch_quick(s, m->desc.pmid, q, &v, false) != sts)
		abort();
	if (sigsetjmp(g.env, 0) == 0) {
		mmvr_guard_arm(&g);
		armed = mmvr_snapshot_fetch_quick(s, m->desc.pmid, q, &v, true);
		raw = mmvr_snapshot_read_quick(s, m->desc.pmid, q, &v.atom);
		if (raw >= 0 && memcmp(at[1], &v.atom, sizeof(v.atom)) != 0)
			abort();
		mmvr_guard_disarm();
	}
	if (armed != sts)
		abort();
	if (raw == 2 ? q->mtype != MMV_TYPE_ELAPSED : raw != sts)
		abort();
}

static void visit_metric(mmvr_snapshot_t *s, const mmvr_metric_info_t *m)
{
	const mmvr_indom_info_t *d = mmvr_snapshot_lookup_indom(s, m->desc.indom);
	const char *text;
	mmvr_value_t v;
	unsigned int k;

	if (mmvr_snapshot_lookup_name(s, m->name) != m ||
	    mmvr_snapshot_lookup_pmid(s, m->desc.pmid) != m)
		abort();
	quick_same(s, m, mmvr_snapshot_fetch(s, m->desc.pmid, PM_IN_NULL, &v));
	mmvr_snapshot_fetch(s, m->desc.pmid, 12345, &v);
	for (k = 0; d != NULL && k < d->ninstances; k++) {
		if (mmvr_snapshot_fetch(s, m->desc.pmid, d->instances[k].inst,
				&v) == 1 && v.type == PM_TYPE_STRING &&
		    strlen(v.str) > 255)
			abort();
		(void)strlen(d->instances[k].name);
	}
	mmvr_snapshot_text(s, (int)m->desc.pmid, PM_TEXT_PMID | PM_TEXT_ONELINE,
			&text);
	mmvr_snapshot_text(s, (int)m->desc.pmid, PM_TEXT_PMID | PM_TEXT_HELP,
			&text);
	mmvr_snapshot_text(s, (int)m->desc.indom, PM_TEXT_INDOM | PM_TEXT_HELP,
			&text);
	labels_of(s, m);
}

/*
 * A newcomer "0" (sorting first) with the same content, scanned with @s
 * as the snapshot being served: every file @s serves at an explicit
 * cluster must keep it.
 */
static void rescan_with_newcomer(mmvr_config_t *cfg,
		const mmvr_snapshot_t *s, const uint8_t *data, size_t size)
{
	mmvr_snapshot_t *s2;
	char path[64];
	size_t i, j;

	put("0", data, size);
	cfg->previous = s;
	s2 = mmvr_snapshot_scan(cfg);
	cfg->previous = NULL;
	snprintf(path, sizeof(path), "%s/0", dir);
	unlink(path);
	if (s2 == NULL)
		return;
	for (i = 0; i < mmvr_snapshot_nfiles(s); i++) {
		const mmvr_file_info_t *f = mmvr_snapshot_file(s, i);
		bool kept = false;

		if (f->requested_cluster == 0)
			continue;
		for (j = 0; j < mmvr_snapshot_nfiles(s2); j++) {
			const mmvr_file_info_t *g = mmvr_snapshot_file(s2, j);

			if (strcmp(g->name, f->name) == 0 &&
			    g->cluster == f->cluster)
				kept = true;
		}
		if (!kept)
			abort();
	}
	mmvr_snapshot_free(s2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	mmvr_config_t cfg = { 0 };
	mmvr_snapshot_t *s;
	size_t i;

	if (!ready) {
		if (mkdtemp(dir) == NULL)
			abort();
		atexit(cleanup);
		ready = 1;
	}
	put("a", data, size);
	put("b.c", data, size);
	cfg.dir = dir;
	cfg.log = quiet;
	cfg.max_file_size = 1 << 20;
	if ((s = mmvr_snapshot_scan(&cfg)) == NULL)
		return 0;
	for (i = 0; i < mmvr_snapshot_nmetrics(s); i++)
		visit_metric(s, mmvr_snapshot_metric(s, i));
	for (i = 0; i < mmvr_snapshot_nfiles(s); i++)
		(void)strlen(mmvr_snapshot_file(s, i)->name);
	mmvr_snapshot_needs_rescan(s);
	mmvr_snapshot_needs_rescan_quick(s);
	mmvr_snapshot_reserve(s);	/* as the agent does after its first scan */
	rescan_with_newcomer(&cfg, s, data, size);
	/* Shrink one file under the snapshot (and its mapping): fetches
	 * must fail cleanly, through the SIGBUS guard past the last page. */
	if (size > 64) {
		char path[64];

		snprintf(path, sizeof(path), "%s/a", dir);
		if (truncate(path, (off_t)(size / 2)) == 0) {
			for (i = 0; i < mmvr_snapshot_nmetrics(s); i++)
				visit_metric(s, mmvr_snapshot_metric(s, i));
		}
	}
	mmvr_snapshot_free(s);
	return 0;
}
