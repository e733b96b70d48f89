/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OpenTelemetry metrics' side of the trace agent's pmcd answers:
 * the dynamic names below trace.otel (pmda_trace/pmns declares the node
 * TRACE:*:*) and the leaves' descriptors, instances, values, help text
 * and labels, from the store (otel/otel.h). metrics.c keeps the fixed
 * metrics and calls in here for the rest.
 *
 * The tables libpcp_pmda reads (pmdaExt's metrics and instance domains)
 * are the fixed ones followed by the store's: otel_pmda_sync rebuilds
 * the store's part when otel_generation says it changed and a request
 * is about the store's metrics (a flood of new series costs the fetches
 * of trace.span.* nothing), and copies the fixed instance domains in
 * front each time (metrics.c changes their instance lists as tags come
 * and go). A rebuild costs a copy of every leaf's name; a leaf's
 * instance names are copied only when a request reads them
 * (otel_pmda_want), so a request costs O(leaves) plus the instances of
 * the leaves it names, whatever else the store holds.
 *
 * Threads: the thread answering pmcd only.
 */
#ifndef TRACE_OTEL_PMDA_H
#define TRACE_OTEL_PMDA_H

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "otel/otel.h"

/* pmdaMetric.m_user of a store's leaf. */
extern const char otel_pmda_leaf[];

/*
 * otel_pmda_setup - after pmdaInit of the fixed tables (@fixed, @nfixed
 * metrics, their PMIDs and indoms whole): remember them and install the
 * namespace callbacks, which call @sync (the agent's own refresh, which
 * ends in otel_pmda_sync; its second argument 1) before they answer. @s NULL: no OpenTelemetry
 * metrics (nothing below trace.otel).
 */
void otel_pmda_setup(pmdaInterface *dp, struct otel_store *s, const pmdaMetric *fixed,
		     int nfixed, void (*sync)(pmdaExt *, int));

/*
 * otel_pmda_sync - the tables as @fixed (@nfixed indoms) stand now, and
 * with @otel as the store does (else as it did when last synced); idle
 * series expire, checked once a second.
 */
void otel_pmda_sync(pmdaExt *pmda, const pmdaIndom *fixed, int nfixed, int otel);

/*
 * otel_pmda_want - @indom's instance list as the store has it now (after
 * a sync), before a request that reads it; otel_pmda_want_pmid - the
 * list of leaf @pmid's domain. Other leaves' lists stay as they were.
 */
void otel_pmda_want(pmInDom indom);
void otel_pmda_want_pmid(pmID pmid);

/* otel_pmda_fetch - a leaf's value, as a pmdaFetch callback answers. */
int otel_pmda_fetch(const pmdaMetric *m, unsigned inst, pmAtomValue *atom);

/* otel_pmda_text - help text of a leaf: 0, or PM_ERR_PMID (not a leaf), PM_ERR_TEXT. */
int otel_pmda_text(pmID pmid, int type, char **buf);

/*
 * otel_pmda_labels - the leaf's labels (otel_name...) for PM_LABEL_ITEM,
 * or an instance's for pmdaLabel's instance callback: the number of
 * labels added to *@lp, 0 when @ident is not the store's, or an error.
 */
int otel_pmda_item_labels(pmID pmid, pmLabelSet **lp);
int otel_pmda_inst_labels(pmInDom indom, unsigned inst, pmLabelSet **lp);

/* otel_pmda_indom, otel_pmda_pmid - whether @indom, @pmid is one of the store's. */
int otel_pmda_indom(pmInDom indom);
int otel_pmda_pmid(pmID pmid);

#endif
