/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiny.c - one counter, mmv.tiny.loops, counted to a million. */
#include <stdio.h>
#include <pcp/mmv_stats.h>

int main(void)
{
	pmUnits one = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	mmv_registry_t *reg = mmv_stats_registry("tiny", 0, 0);

	mmv_stats_add_metric(reg, "loops", 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
		one, 0, "Loops run", NULL);
	void *mmv = mmv_stats_start(reg);	/* $PCP_TMP_DIR/mmv/tiny */
	if (mmv == NULL)
		perror("tiny: mmv_stats_start");
	pmAtomValue *loops = mmv_lookup_value_desc(mmv, "loops", NULL);
	for (int i = 0; i < 1000000; i++)
		mmv_inc(mmv, loops);	/* does nothing if mmv is NULL */
	mmv_stats_free(reg);	/* the file stays, for pminfo */
	return mmv == NULL;
}
