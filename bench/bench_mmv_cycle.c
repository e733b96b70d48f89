/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mmv_cycle.c - the start of an MMV file as an application does it,
 * PCP's libpcp_mmv and ours in one process, turn about.
 *
 * One cycle: mmv_stats_registry, the adds, mmv_stats_start, mmv_stats_free
 * (which stops), then unlink of the file ("new": every start makes a new
 * file) or no unlink ("restart": every start goes over the file the
 * previous cycle left, as an application restarting).
 *
 * Both libraries are loaded with dlmopen into namespaces of their own
 * (they share the soname libpcp_mmv.so.1): Debian's (PCP_LIB), and
 * ours from ../lib next to this program (or the path given second:
 * bench_mmv_cycle [SCALE [OUR_LIB]], SCALE multiplying the cycles). Cycles alternate between them,
 * so both see the same machine load and the same file system state.
 * Each library writes its own file (cycle_pcp, cycle_ours) in
 * $PCP_TMP_DIR/mmv. Prints a Markdown table: medians over the cycles.
 * Nothing is asserted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>

#include "bench_util.h"

#ifndef PCP_LIB	/* bench/build.mk: Debian's, wherever its PCP puts it */
#define PCP_LIB		"/usr/lib/libpcp_mmv.so.1"
#endif

struct lib {
	const char *name;
	char path[PATH_MAX];
	mmv_registry_t *(*registry)(const char *, int, mmv_stats_flags_t);
	int (*add_indom)(mmv_registry_t *, int, const char *, const char *);
	int (*add_instance)(mmv_registry_t *, int, int, const char *);
	int (*add_metric)(mmv_registry_t *, const char *, int, mmv_metric_type_t,
			  mmv_metric_sem_t, pmUnits, int, const char *, const char *);
	void *(*start)(mmv_registry_t *);
	void (*free)(mmv_registry_t *);
};

struct shape {
	const char *label;
	int nmetrics, ninst, cycles;
};

/* Per cycle, ns: registry and adds, start, free (+ unlink), all three. */
enum { T_BUILD, T_START, T_STOP, T_CYCLE, NT };

static char tmpdir[PATH_MAX];
static char (*mnames)[16], (*inames)[16];

static void *sym(void *h, const char *lib, const char *name)
{
	void *p = dlsym(h, name);

	if (p == NULL) {
		fprintf(stderr, "bench_mmv_cycle: %s: no %s\n", lib, name);
		exit(1);
	}
	return p;
}

static void load(struct lib *l, const char *name, const char *path)
{
	void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
	Dl_info info;

	if (h == NULL) {
		fprintf(stderr, "bench_mmv_cycle: %s\n", dlerror());
		exit(1);
	}
	l->name = name;
	l->registry = sym(h, path, "mmv_stats_registry");
	l->add_indom = sym(h, path, "mmv_stats_add_indom");
	l->add_instance = sym(h, path, "mmv_stats_add_instance");
	l->add_metric = sym(h, path, "mmv_stats_add_metric");
	l->start = sym(h, path, "mmv_stats_start");
	l->free = sym(h, path, "mmv_stats_free");
	if (dladdr((void *)l->start, &info) == 0 || info.dli_fname == NULL ||
	    realpath(info.dli_fname, l->path) == NULL)
		snprintf(l->path, sizeof(l->path), "%s", path);
}

/* One cycle of @s with @l; @t gets the times. Returns 0, or -1 with errno. */
static int cycle(const struct lib *l, const struct shape *s, int restart,
		 double *t)
{
	char file[64], path[PATH_MAX + 80];
	pmUnits none = {0};
	mmv_registry_t *reg;
	double t0, t1, t2, t3;
	void *addr;

	snprintf(file, sizeof(file), "cycle_%s", l->name);
	snprintf(path, sizeof(path), "%s/mmv/%s", tmpdir, file);
	t0 = now_ns();
	if ((reg = l->registry(file, 0, 0)) == NULL)
		return -1;
	if (s->ninst > 0) {
		l->add_indom(reg, 1, "bench indom", NULL);
		for (int k = 0; k < s->ninst; k++)
			l->add_instance(reg, 1, k, inames[k]);	/* PCP 6: -1 on success */
	}
	for (int i = 0; i < s->nmetrics; i++)
		if (l->add_metric(reg, mnames[i], i & 1023, MMV_TYPE_U64,
				MMV_SEM_COUNTER, none, s->ninst > 0 ? 1 : 0,
				NULL, NULL) != 0)
			goto fail;
	t1 = now_ns();
	addr = l->start(reg);
	t2 = now_ns();
	if (addr == NULL)
		goto fail;
	l->free(reg);
	if (!restart)
		unlink(path);
	t3 = now_ns();
	t[T_BUILD] = t1 - t0;
	t[T_START] = t2 - t1;
	t[T_STOP] = t3 - t2;
	t[T_CYCLE] = t3 - t0;
	return 0;
fail:
	{
		int e = errno;

		l->free(reg);
		errno = e;
	}
	return -1;
}

static void row(const char *what, const struct shape *s, const char *mode,
		double pcp_ns, double ours_ns)
{
	printf("| %s, %s, %s | %.3f | %.3f | %.2f |\n", what, s->label, mode,
	       pcp_ns / 1e6, ours_ns / 1e6, ours_ns / pcp_ns);
}

/* Alternate @s->cycles cycles of each library (after a few untimed). */
static void run(struct lib *lib, const struct shape *s, int restart)
{
	const char *mode = restart ? "restart over the previous file" : "new file";
	int n = s->cycles, warm = n / 10 + 1;
	double *t[2][NT];

	for (int j = 0; j < 2; j++)
		for (int k = 0; k < NT; k++)
			t[j][k] = calloc(n, sizeof(double));
	for (int i = -warm; i < n; i++) {
		for (int j = 0; j < 2; j++) {
			double one[NT];

			if (cycle(&lib[(i + j) & 1], s, restart, one) != 0) {
				fprintf(stderr, "bench_mmv_cycle: %s: %s\n",
					lib[(i + j) & 1].name, strerror(errno));
				exit(1);
			}
			if (i >= 0)
				for (int k = 0; k < NT; k++)
					t[(i + j) & 1][k][i] = one[k];
		}
	}
	row("`mmv_stats_start`", s, mode, median(t[0][T_START], n), median(t[1][T_START], n));
	row("registry + adds", s, mode, median(t[0][T_BUILD], n), median(t[1][T_BUILD], n));
	row(restart ? "`mmv_stats_free`" : "`mmv_stats_free` + unlink", s, mode,
	    median(t[0][T_STOP], n), median(t[1][T_STOP], n));
	row("whole cycle", s, mode, median(t[0][T_CYCLE], n), median(t[1][T_CYCLE], n));
	fflush(stdout);
	for (int j = 0; j < 2; j++) {
		char path[PATH_MAX + 80];

		snprintf(path, sizeof(path), "%s/mmv/cycle_%s", tmpdir, lib[j].name);
		unlink(path);
		for (int k = 0; k < NT; k++)
			free(t[j][k]);
	}
}

int main(int argc, char **argv)
{
	static const struct shape shapes[] = {
		{ "1,000 singular metrics", 1000, 0, 1000 },
		{ "1 metric x 10,000 instances", 1, 10000, 200 },
	};
	const char *t = getenv("PCP_TMP_DIR");
	char self[PATH_MAX], ours[PATH_MAX + 32], *slash;
	struct lib lib[2];
	ssize_t len;
	int scale = argc > 1 ? atoi(argv[1]) : 1;

	if (t == NULL || *t == '\0') {
		fprintf(stderr, "bench_mmv_cycle: set PCP_TMP_DIR (with an mmv/ subdirectory)\n");
		return 2;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s", t);
	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		return 1;
	self[len] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	if (argc > 2)
		snprintf(ours, sizeof(ours), "%s", argv[2]);
	else
		snprintf(ours, sizeof(ours), "%s/../lib/libpcp_mmv.so.1", self);
	load(&lib[0], "pcp", PCP_LIB);
	load(&lib[1], "ours", ours);

	mnames = calloc(1000, 16);
	inames = calloc(10000, 16);
	for (int i = 0; i < 1000; i++)
		snprintf(mnames[i], 16, "m%05d", i);
	for (int k = 0; k < 10000; k++)
		snprintf(inames[k], 16, "i%05d", k);

	printf("PCP library: %s\nOur library: %s\n\n", lib[0].path, lib[1].path);
	printf("| step, shape, file | PCP ms | ours ms | ours/PCP |\n");
	printf("|---|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct shape s = shapes[i];

		s.cycles = s.cycles * (scale > 0 ? scale : 1);
		run(lib, &s, 0);
		run(lib, &s, 1);
	}
	return 0;
}
