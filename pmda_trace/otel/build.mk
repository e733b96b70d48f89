# SPDX-License-Identifier: GPL-2.0-or-later
# pmda_trace/otel: OpenTelemetry metrics below trace.otel (otel.h),
# included by pmda_trace/build.mk, which puts these sources in the trace
# core archive. The store (OTEL_STORE_SRCS): names and PMIDs, series,
# histograms, the PMID state file and what the agent serves.
OTEL_STORE_SRCS := $(addprefix pmda_trace/otel/,store.c names.c series.c hist.c state.c pcp.c \
	htab.c)
