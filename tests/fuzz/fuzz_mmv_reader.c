/*
 * libFuzzer target for the pmda_mmv reader core: the input is written as
 * two files of a scratch directory (one with a name the NOPREFIX and
 * cluster logic can clash on), scanned, and every answer the snapshot can
 * give is asked for: descriptors, every instance's value, help texts,
 * labels, change detection, and a rescan with a newcomer asking for the
 * same clusters.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../../pmda_mmv/reader.h"
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
	if (!json_label_set_valid(json, strlen(json)))
		abort();
	*(size_t *)arg += strlen(json);
	return 0;
}

static void labels_of(mmv_snapshot_t *s, const mmv_metric_info_t *m)
{
	size_t n = 0;

	mmv_snapshot_labels(s, PM_LABEL_CLUSTER, m->desc.pmid, PM_IN_NULL,
			count_label, &n);
	mmv_snapshot_labels(s, PM_LABEL_ITEM, m->desc.pmid, PM_IN_NULL,
			count_label, &n);
	if (m->desc.indom == PM_INDOM_NULL)
		return;
	mmv_snapshot_labels(s, PM_LABEL_INDOM, m->desc.indom, PM_IN_NULL,
			count_label, &n);
	mmv_snapshot_labels(s, PM_LABEL_INSTANCES, m->desc.indom, PM_IN_NULL,
			count_label, &n);
}

static void visit_metric(mmv_snapshot_t *s, const mmv_metric_info_t *m)
{
	const mmv_indom_info_t *d = mmv_snapshot_lookup_indom(s, m->desc.indom);
	const char *text;
	mmv_value_t v;
	unsigned int k;

	if (mmv_snapshot_lookup_name(s, m->name) != m ||
	    mmv_snapshot_lookup_pmid(s, m->desc.pmid) != m)
		abort();
	mmv_snapshot_fetch(s, m->desc.pmid, PM_IN_NULL, &v);
	mmv_snapshot_fetch(s, m->desc.pmid, 12345, &v);
	for (k = 0; d != NULL && k < d->ninstances; k++) {
		if (mmv_snapshot_fetch(s, m->desc.pmid, d->instances[k].inst,
				&v) == 1 && v.type == PM_TYPE_STRING &&
		    strlen(v.str) > 255)
			abort();
		(void)strlen(d->instances[k].name);
	}
	mmv_snapshot_text(s, (int)m->desc.pmid, PM_TEXT_PMID | PM_TEXT_ONELINE,
			&text);
	mmv_snapshot_text(s, (int)m->desc.pmid, PM_TEXT_PMID | PM_TEXT_HELP,
			&text);
	mmv_snapshot_text(s, (int)m->desc.indom, PM_TEXT_INDOM | PM_TEXT_HELP,
			&text);
	labels_of(s, m);
}

/*
 * A newcomer "0" (sorting first) with the same content, scanned with @s
 * as the snapshot being served: every file @s serves at an explicit
 * cluster must keep it.
 */
static void rescan_with_newcomer(mmv_reader_config_t *cfg,
		const mmv_snapshot_t *s, const uint8_t *data, size_t size)
{
	mmv_snapshot_t *s2;
	char path[64];
	size_t i, j;

	put("0", data, size);
	cfg->previous = s;
	s2 = mmv_snapshot_scan(cfg);
	cfg->previous = NULL;
	snprintf(path, sizeof(path), "%s/0", dir);
	unlink(path);
	if (s2 == NULL)
		return;
	for (i = 0; i < mmv_snapshot_nfiles(s); i++) {
		const mmv_file_info_t *f = mmv_snapshot_file(s, i);
		bool kept = false;

		if (f->requested_cluster == 0)
			continue;
		for (j = 0; j < mmv_snapshot_nfiles(s2); j++) {
			const mmv_file_info_t *g = mmv_snapshot_file(s2, j);

			if (strcmp(g->name, f->name) == 0 &&
			    g->cluster == f->cluster)
				kept = true;
		}
		if (!kept)
			abort();
	}
	mmv_snapshot_free(s2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	mmv_reader_config_t cfg = { 0 };
	mmv_snapshot_t *s;
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
	if ((s = mmv_snapshot_scan(&cfg)) == NULL)
		return 0;
	for (i = 0; i < mmv_snapshot_nmetrics(s); i++)
		visit_metric(s, mmv_snapshot_metric(s, i));
	for (i = 0; i < mmv_snapshot_nfiles(s); i++)
		(void)strlen(mmv_snapshot_file(s, i)->name);
	mmv_snapshot_needs_rescan(s);
	mmv_snapshot_needs_rescan_quick(s);
	rescan_with_newcomer(&cfg, s, data, size);
	/* Shrink one file under the snapshot (and its mapping): fetches
	 * must fail cleanly, through the SIGBUS guard past the last page. */
	if (size > 64) {
		char path[64];

		snprintf(path, sizeof(path), "%s/a", dir);
		if (truncate(path, (off_t)(size / 2)) == 0) {
			for (i = 0; i < mmv_snapshot_nmetrics(s); i++)
				visit_metric(s, mmv_snapshot_metric(s, i));
		}
	}
	mmv_snapshot_free(s);
	return 0;
}
