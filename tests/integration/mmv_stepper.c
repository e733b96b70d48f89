/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mmv_stepper.c - acme-like counters that move only when told to, for
 * tests/integration/mmv_derived.sh. Built on our libpcp_mmv.
 *
 * Creates $PCP_TMP_DIR/mmv/acme (cluster 321, indom 61: Anvils 0,
 * Rockets 1) with U64 counters products.count (item 7, count) and
 * products.time (item 8, usec), all starting at 0, prints "ready", then for
 * each line "step" read on stdin adds exactly
 *     Anvils:  count +2, time +8000
 *     Rockets: count +4, time +24000
 * and prints "done". Exits on EOF (the file stays; the test removes it).
 */
#include <stdio.h>
#include <string.h>
#include <pcp/mmv_stats.h>

#define ACME_CLUSTER	321
#define ACME_INDOM	61

static const struct step {
	const char *name;
	int id;
	unsigned count, usec;
} steps[] = {
	{ "Anvils", 0, 2, 8000 },
	{ "Rockets", 1, 4, 24000 },
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

int main(void)
{
	pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
	pmAtomValue *c[NSTEPS], *t[NSTEPS];
	mmv_registry_t *reg;
	char line[64];
	void *addr = NULL;

	reg = mmv_stats_registry("acme", ACME_CLUSTER, 0);
	if (reg == NULL ||
	    mmv_stats_add_indom(reg, ACME_INDOM, "Acme products", NULL) < 0)
		goto fail;
	for (size_t i = 0; i < NSTEPS; i++)
		if (mmv_stats_add_instance(reg, ACME_INDOM, steps[i].id,
				steps[i].name) < 0)
			goto fail;
	if (mmv_stats_add_metric(reg, "products.count", 7, MMV_TYPE_U64,
			MMV_SEM_COUNTER, count, ACME_INDOM, "Products built", NULL) < 0 ||
	    mmv_stats_add_metric(reg, "products.time", 8, MMV_TYPE_U64,
			MMV_SEM_COUNTER, usec, ACME_INDOM, "Build time", NULL) < 0 ||
	    (addr = mmv_stats_start(reg)) == NULL)
		goto fail;
	for (size_t i = 0; i < NSTEPS; i++) {
		c[i] = mmv_lookup_value_desc(addr, "products.count", steps[i].name);
		t[i] = mmv_lookup_value_desc(addr, "products.time", steps[i].name);
		if (c[i] == NULL || t[i] == NULL)
			goto fail;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strcmp(line, "step\n") != 0) {
			fprintf(stderr, "mmv_stepper: unknown command %s", line);
			return 2;
		}
		for (size_t i = 0; i < NSTEPS; i++) {
			mmv_inc_value(addr, c[i], steps[i].count);
			mmv_inc_value(addr, t[i], steps[i].usec);
		}
		printf("done\n");
		fflush(stdout);
	}
	mmv_stats_free(reg);
	return 0;
fail:
	perror("mmv_stepper: cannot create the MMV file");
	return 1;
}
