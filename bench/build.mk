# SPDX-License-Identifier: GPL-2.0-or-later
# Head-to-head benchmarks (make bench). One source, bench/bench_mmv.c, built
# twice: against PCP's headers and Debian's libpcp_mmv.so.1, and against ours
# (-DOURS adds the inline fast-path cases). The PCP build must not see our
# include/, so -Iinclude and -Icommon are taken out of CFLAGS_ALL. -O2 is
# forced last whatever CFLAGS says.
BENCH_CFLAGS := $(filter-out -Iinclude -Icommon,$(CFLAGS_ALL)) -O2
# Debian's library: /usr/lib before PCP 7, the multiarch folder from PCP 7 on
PCP_MMV_LIB := $(or $(shell . tests/lib/debian.sh; debian_lib libpcp-mmv1 libpcp_mmv.so.1),/usr/lib/libpcp_mmv.so.1)
PCP_MMV_LIBDIR := $(patsubst %/,%,$(dir $(PCP_MMV_LIB)))
include bench/trace.mk
BENCH_PCP := $(B)/bench/bench_mmv_pcp
BENCH_OURS := $(B)/bench/bench_mmv_ours
BENCH_TARGETS += $(BENCH_PCP) $(BENCH_OURS)

$(BENCH_PCP): bench/bench_mmv.c bench/bench_util.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -L$(PCP_MMV_LIBDIR) -lpcp_mmv -lpcp -lpthread

$(BENCH_OURS): bench/bench_mmv.c bench/bench_util.h $(MMV_SO) $(B)/lib/libpcp_mmv.so \
		include/pcp/mmv_stats.h include/pcp/mmv_inline.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -DOURS -Iinclude -o $@ $< -L$(B)/lib \
		-Wl,-rpath,'$$ORIGIN/../lib' -lpcp_mmv -lpthread

# Trace agent benchmark driver (a PCP client: links libpcp).
BENCH_TRACE_AGENT := $(B)/bench/bench_trace_agent
BENCH_TARGETS += $(BENCH_TRACE_AGENT)

$(BENCH_TRACE_AGENT): bench/bench_trace_agent.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -lpcp -lpthread -lm

# MMV agent benchmark: a file writer on our library and a PCP client.
BENCH_MMV_FILES := $(B)/bench/mmv_files
BENCH_MMV_AGENT := $(B)/bench/bench_mmv_agent
BENCH_TARGETS += $(BENCH_MMV_FILES) $(BENCH_MMV_AGENT)

$(BENCH_MMV_FILES): bench/mmv_files.c $(MMV_SO) $(B)/lib/libpcp_mmv.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -Wl,-rpath,'$$ORIGIN/../lib'

$(BENCH_MMV_AGENT): bench/bench_mmv_agent.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -lpcp

# The cheapest agent libpcp_pmda allows: the bound under the agents.
BENCH_FLOOR_PMDA := $(B)/bench/floor_pmda
BENCH_TARGETS += $(BENCH_FLOOR_PMDA)

$(BENCH_FLOOR_PMDA): bench/floor_pmda.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -lpcp_pmda -lpcp

# The same as a DSO, for pmcd's DSO rows.
BENCH_FLOOR_DSO := $(B)/bench/floor_pmda.so
BENCH_TARGETS += $(BENCH_FLOOR_DSO)

$(BENCH_FLOOR_DSO): bench/floor_pmda.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -DFLOOR_DSO -shared -o $@ $< -lpcp_pmda -lpcp

# Start cycles, PCP's library and ours turn about in one process (dlmopen).
# Built against PCP's headers; finds ours at ../lib/libpcp_mmv.so.1.
BENCH_MMV_CYCLE := $(B)/bench/bench_mmv_cycle
BENCH_TARGETS += $(BENCH_MMV_CYCLE)

$(BENCH_MMV_CYCLE): bench/bench_mmv_cycle.c bench/bench_util.h $(MMV_SO) $(B)/lib/libpcp_mmv.so
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -DPCP_LIB='"$(PCP_MMV_LIB)"' -o $@ $< -ldl

# Many threads on one counter, every way of adding (make bench-contention):
# ours, a bare atomic, Debian's library (dlmopen) and mmv_counter_inc.
BENCH_CONTENTION := $(B)/bench/bench_contention
BENCH_TARGETS += $(BENCH_CONTENTION)

$(BENCH_CONTENTION): bench/bench_contention.c bench/bench_util.h $(MMV_SO) \
		$(B)/lib/libpcp_mmv.so include/pcp/mmv_counter.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Iinclude -DPCP_LIB='"$(PCP_MMV_LIB)"' -o $@ $< -L$(B)/lib \
		-Wl,-rpath,'$$ORIGIN/../lib' -lpcp_mmv -lpthread -ldl

.PHONY: bench-contention
bench-contention: $(BENCH_CONTENTION)
	sh bench/run-contention.sh

# The MMV agents alone: Debian's DSO and ours called through pmdaInterface
# in one process (dlopen), no pmcd and no client in the times.
BENCH_MMV_DSO := $(B)/bench/bench_mmv_dso
BENCH_TARGETS += $(BENCH_MMV_DSO)

$(BENCH_MMV_DSO): bench/bench_mmv_dso.c bench/bench_util.h bench/bench_dso.h tests/lib/pmda_dso.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -lpcp_pmda -lpcp -ldl

# The agent's percentiles: histogram files (our library, registry calls)
# and the driver (loads both DSOs, like bench_mmv_dso).
BENCH_HIST_FILES := $(B)/bench/hist_files
BENCH_MMV_PCT := $(B)/bench/bench_mmv_pct
BENCH_TARGETS += $(BENCH_HIST_FILES) $(BENCH_MMV_PCT)

$(BENCH_HIST_FILES): bench/hist_files.c tests/lib/hist_layout.h $(MMV_SO) $(B)/lib/libpcp_mmv.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -Wl,-rpath,'$$ORIGIN/../lib'

$(BENCH_MMV_PCT): bench/bench_mmv_pct.c bench/bench_util.h bench/bench_dso.h tests/lib/pmda_dso.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -lpcp_pmda -lpcp -ldl

# Histogram record cost beside mmv_inc_value (bench/run-mmv-hist.sh): one
# source built against PCP's library (mmv_inc_value only) and ours.
BENCH_HIST_PCP := $(B)/bench/bench_mmv_hist_pcp
BENCH_HIST_OURS := $(B)/bench/bench_mmv_hist_ours
BENCH_TARGETS += $(BENCH_HIST_PCP) $(BENCH_HIST_OURS)

$(BENCH_HIST_PCP): bench/bench_mmv_hist.c bench/bench_util.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -L$(PCP_MMV_LIBDIR) -lpcp_mmv -lpcp -lpthread

$(BENCH_HIST_OURS): bench/bench_mmv_hist.c bench/bench_util.h $(MMV_SO) $(B)/lib/libpcp_mmv.so \
		include/pcp/mmv_stats.h include/pcp/mmv_histogram.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -DOURS -Iinclude -o $@ $< -L$(B)/lib \
		-Wl,-rpath,'$$ORIGIN/../lib' -lpcp_mmv -lpthread

# The trace agent before histograms: the tree of TRACE_AGG_BASE, the last
# commit before them, taken from git into build/bench/base. Built where git
# has that commit and the PCP is 6.x (that tree predates PCP 7); without
# it the benchmarks leave out the "before" column.
TRACE_AGG_BASE ?= c4eb7af
BENCH_BASE_TREE := $(B)/bench/base/Makefile
BENCH_BASE_OK := $(shell git cat-file -e '$(TRACE_AGG_BASE)^{commit}' 2>/dev/null && \
	! grep -qs PMAPI_VERSION_4 /usr/include/pcp/pmapi.h && echo yes)

$(BENCH_BASE_TREE):
	rm -rf $(B)/bench/base
	mkdir -p $(B)/bench/base
	git archive $(TRACE_AGG_BASE) | tar -x -C $(B)/bench/base

# The aggregation alone (bench/run-trace-agg.sh): one source built against
# the current core (with histograms) and the base tree's agg.[ch].
BENCH_AGG := $(B)/bench/bench_trace_agg
BENCH_AGG_BASE := $(B)/bench/bench_trace_agg_base
BENCH_TARGETS += $(BENCH_AGG) $(if $(BENCH_BASE_OK),$(BENCH_AGG_BASE))

$(BENCH_AGG): bench/bench_trace_agg.c bench/bench_util.h $(TRACE_CORE_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -O2 -DBENCH_HIST -Ipmda_trace/core -o $@ $< $(TRACE_CORE_A) \
		$(URCU_LIBS) -lpthread -lm

$(BENCH_AGG_BASE): bench/bench_trace_agg.c bench/bench_util.h $(BENCH_BASE_TREE)
	$(CC) $(CFLAGS_ALL) -O2 -I$(B)/bench/base/pmda_trace/core -o $@ $< \
		$(B)/bench/base/pmda_trace/core/agg.c $(URCU_LIBS) -lpthread -lm

# The whole agent of the base tree, for bench/run-trace-agent.sh's
# "before histograms" column.
BENCH_AGENT_BASE := $(B)/bench/base/build/pmdas/trace/pmdatrace
BENCH_TARGETS += $(if $(BENCH_BASE_OK),$(BENCH_AGENT_BASE))

$(BENCH_AGENT_BASE): $(BENCH_BASE_TREE)
	$(MAKE) -C $(B)/bench/base B=build build/pmdas/trace/pmdatrace

# Our daemon with liburcu's read lock called, not inlined (view.c without
# its _LGPL_SOURCE): what the inlining saves, against build/pmdas/mmv/pmdammv
# (MMV_BENCH_THEIRS, bench/run-mmv-agent.sh).
BENCH_RCU_CALLS := $(B)/bench/pmdammv_rcu_calls
BENCH_TARGETS += $(BENCH_RCU_CALLS)

$(B)/bench/view_rcu_calls.c: pmda_mmv/view.c
	@mkdir -p $(@D)
	sed "/^#define _LGPL_SOURCE$$/d" $< > $@

$(BENCH_RCU_CALLS): $(B)/bench/view_rcu_calls.c $(B)/obj/pmda_mmv/main.o \
		$(filter-out %/view.o,$(PMDA_MMV_OBJS)) $(MMV_READER_A)
	$(CC) $(CFLAGS_ALL) -Ipmda_mmv -o $@ $< $(B)/obj/pmda_mmv/main.o \
		$(filter-out %/view.o,$(PMDA_MMV_OBJS)) $(MMV_READER_A) $(PMDA_MMV_LIBS)

# OTLP/HTTP and OTLP/gRPC load generator (bench/run-otlp.sh, make
# bench-otlp), spans and metrics: the request schemas' generated code, protobuf-c, zlib for
# gzip bodies and libnghttp2's client for gRPC.
BENCH_OTLP := $(B)/bench/bench_otlp
BENCH_TARGETS += $(BENCH_OTLP)

$(BENCH_OTLP): bench/bench_otlp.c $(OTLP_GEN) $(OTLP_GEN_H) $(OTEL_GEN) $(OTEL_GEN_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -O2 -I$(B)/gen -o $@ $< $(OTLP_GEN) $(OTEL_GEN) $(PROTOBUF_LIBS) -lnghttp2 \
		-lz -lm -lpthread

# The span table alone (bench/run-otlp.sh): ns per tra_spans_record.
BENCH_SPANS := $(B)/bench/bench_trace_spans
BENCH_TARGETS += $(BENCH_SPANS)

$(BENCH_SPANS): bench/bench_trace_spans.c bench/bench_util.h $(TRACE_CORE_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -O2 -Ipmda_trace/core -o $@ $< $(TRACE_CORE_A) $(URCU_LIBS) -lpthread -lm

.PHONY: bench-otlp
bench-otlp: all $(BENCH_OTLP) $(BENCH_SPANS)
	@sh bench/run-otlp.sh

# The OTLP protobuf decoder alone (make bench-otlp-decode; issue 36): the
# walker against protobuf-c on plain and real (SDK) spans, ns of CPU a span.
BENCH_OTLP_DECODE := $(B)/bench/bench_otlp_decode
BENCH_TARGETS += $(BENCH_OTLP_DECODE)

$(BENCH_OTLP_DECODE): bench/bench_otlp_decode.c $(TRACE_CORE_A) $(OTLP_GEN_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -O2 -Ipmda_trace/otlp -o $@ $< $(TRACE_CORE_A) $(OTLP_LIBS) $(URCU_LIBS) -lpthread -lm

.PHONY: bench-otlp-decode
bench-otlp-decode: $(BENCH_OTLP_DECODE)
	@for i in 1 2 3; do $(BENCH_OTLP_DECODE) $${OTLP_DECODE_SECONDS:-2}; echo; done

# OTLP JSON decoding, the walker against json-c's path (make bench-otlp-json):
# ns per span and spans per CPU-second for plain and real spans.
BENCH_OTLP_JSON := $(B)/bench/bench_otlp_json
BENCH_TARGETS += $(BENCH_OTLP_JSON)

$(BENCH_OTLP_JSON): bench/bench_otlp_json.c $(TRACE_CORE_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -O2 -o $@ $< $(TRACE_CORE_A) $(OTLP_LIBS) -lpthread

.PHONY: bench-otlp-json
bench-otlp-json: $(BENCH_OTLP_JSON)
	$(BENCH_OTLP_JSON) tests/fuzz/corpus/otlp_json_diff/sdk-json-real-2 5
