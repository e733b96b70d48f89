/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.c - the control metrics in cluster 0 (docs/mmv-format.md §9.7):
 * names, texts, descriptors, values and stores.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "agent.h"

static const struct {
	const char *name, *oneline, *help;
} control[NCONTROL] = {
	/* PCP's texts, byte for byte (docs/mmv-format.md §9.5): clients and
	 * tests compare help text. debug's are PCP 7's or 6's as built;
	 * metrics (PCP 7 only) PCP 7's everywhere. */
	{ "reload", "Control maps reloading",
	  "Writing anything other then 0 to this metric will result in\n"
	  "re-reading directory and re-mapping files." },
#ifdef SDK_PCP7
	{ "debug", "Debug options",
	  "See pmdbg(1).  pmstore into this metric to change the debug option(s)\n\n"
	  "Note that if this PMDA is installed as a DSO agent, the debug options\n"
	  "are shared with pmcd(1)" },
#else
	{ "debug", "Debug flag",
	  "See pmdbg(1).  pmstore into this metric to change the debug value." },
#endif
	{ "files", "Memory mapped file count",
	  "Count of currently mapped and exported statistics files." },
	{ "metrics", "Memory mapped metric count",
	  "Count of currently mapped and exported metrics.\n"
	  "Excludes the mmv.control.* metrics." },
};

void mmvp_control_name(const struct agent *a, int item, char *buf,
		size_t len)
{
	snprintf(buf, len, "%s.control.%s", a->prefix, control[item].name);
}

/* A control metric's type: debug's depends on the PCP (pmda_debug.h). */
int mmvp_control_type(pmID pmid)
{
	return mmv_pmid_item(pmid) == CTL_DEBUG ? SDK_DEBUG_TYPE : PM_TYPE_32;
}

int mmvp_control_value(struct agent *a, const struct view *v,
		unsigned int item, pmAtomValue *atom)
{
	int stored;

	switch (item) {
	case CTL_RELOAD:
		stored = __atomic_load_n(&a->reload, __ATOMIC_RELAXED);
		atom->l = stored ? stored : mmvr_snapshot_not_ready(v->snap) > 0;
		break;
	case CTL_DEBUG:
		return sdk_debug_value(__atomic_load_n(&a->debug, __ATOMIC_RELAXED),
				atom, a->debug_text, sizeof(a->debug_text));
	case CTL_FILES:
		atom->l = (int)mmvr_snapshot_nfiles(v->snap);
		break;
	case CTL_METRICS:
		atom->l = (int)mmvr_snapshot_nmetrics(v->snap);
		break;
	default:
		return PM_ERR_PMID;
	}
	return 1;
}

int mmvp_store(pmdaResult *result, pmdaExt *pmda)
{
	struct agent *a = pmdaExtGetData(pmda);
	int i, sts = 0;

	mmvp_enter(pmda);
	for (i = 0; i < result->numpmid && sts == 0; i++) {
		pmValueSet *vs = result->vset[i];
		unsigned int item = pmID_item(vs->pmid);

		if (pmID_cluster(vs->pmid) != 0 ||
		    (item != CTL_RELOAD && item != CTL_DEBUG))
			sts = PM_ERR_PERMISSION;
		else if (item == CTL_DEBUG)
			sts = sdk_debug_store(vs, &a->debug, a->debug_text,
					sizeof(a->debug_text));
		else if (vs->numval != 1 || vs->valfmt != PM_VAL_INSITU)
			sts = PM_ERR_BADSTORE;
		else
			__atomic_store_n(&a->reload, vs->vlist[0].value.lval,
					__ATOMIC_RELAXED);
	}
	mmvp_leave(a);
	if (sts == 0 && a->threaded && __atomic_load_n(&a->reload, __ATOMIC_RELAXED))
		mmvp_kick(a);
	return sts;
}

int mmvp_control_item(const struct agent *a, const char *name)
{
	int i;

	for (i = 0; i < NCONTROL; i++)
		if (strcmp(name, a->ctl_names[i]) == 0)
			return i;
	return -1;
}

/* The one-line or the long help of control metric @item (< NCONTROL). */
const char *mmvp_control_text(unsigned int item, bool oneline)
{
	return oneline ? control[item].oneline : control[item].help;
}
