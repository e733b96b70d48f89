# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests (cmocka), one file per module in one folder per component
# (libpcp_mmv, pmda_mmv, libpcp_trace, pmda_trace; fixtures shared with
# other folders or kinds of test in tests/lib/), built with ASan+UBSan
# against the sanitizer build of the libraries.
# tests/unit/COMPONENT/test_<name>.c becomes
# build/tests/unit/COMPONENT/test_<name>; each links every archive in SAN_ARCHIVES
# (components append theirs, and any libraries they need to UNIT_LDLIBS).
UNIT_SRCS := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_PROGS := $(UNIT_SRCS:%.c=$(B)/%)
TEST_PROGS += $(UNIT_PROGS)

$(B)/tests/unit/%: tests/unit/%.c $(SAN_ARCHIVES)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(SANFLAGS) -MMD -MP -o $@ $< $(SAN_ARCHIVES) $(UNIT_LDLIBS) -lcmocka -lpthread -lm

# ThreadSanitizer builds of the tests of threaded code: clang, the sources
# under test compiled into the test with -fsanitize=thread (liburcu is not
# instrumented: code that uses it tells TSan what its grace periods order).
TSAN_CC ?= clang
TSANFLAGS := -fsanitize=thread -O1 -g -fno-omit-frame-pointer
TSAN_PROGS := $(B)/tsan/libpcp_trace/test_trace_proto $(B)/tsan/libpcp_mmv/test_mmv_threads \
	$(B)/tsan/libpcp_mmv/test_mmv_histogram $(B)/tsan/libpcp_mmv/test_mmv_counter \
	$(B)/tsan/libpcp_trace/test_trace_shm $(B)/tsan/pmda_mmv/test_mmv_pmda_threads \
	$(B)/tsan/pmda_trace/test_tracepmda_agg_threads $(B)/tsan/pmda_trace/test_tracepmda_spans_threads \
	$(B)/tsan/pmda_trace/test_otlp_sink $(B)/tsan/pmda_trace/test_otel_store_threads
TEST_PROGS += $(TSAN_PROGS)

$(B)/tsan/libpcp_trace/test_trace_proto: tests/unit/libpcp_trace/test_trace_proto.c $(TRACE_SRCS)
$(B)/tsan/libpcp_mmv/test_mmv_threads: tests/unit/libpcp_mmv/test_mmv_threads.c $(MMV_SRCS)
$(B)/tsan/libpcp_mmv/test_mmv_histogram: tests/unit/libpcp_mmv/test_mmv_histogram.c $(MMV_SRCS)
# the counters' slots, folding thread, fork and stop; the library's
# relaxed loads and stores of the slots are intended
$(B)/tsan/libpcp_mmv/test_mmv_counter: tests/unit/libpcp_mmv/test_mmv_counter.c $(MMV_SRCS)
# the segment's writer threads against its reader (which needs no liburcu)
$(B)/tsan/libpcp_trace/test_trace_shm: tests/unit/libpcp_trace/test_trace_shm.c $(TRACE_SRCS) \
		pmda_trace/core/shm.c
# the MMV agent's daemon mode: its front end, the reader and libpcp_mmv
# (for the writer thread) instrumented; liburcu is not, so view.c tells
# TSan what a grace period orders (its tsan_acquire and tsan_release)
$(B)/tsan/pmda_mmv/test_mmv_pmda_threads: tests/unit/pmda_mmv/test_mmv_pmda_threads.c \
		$(PMDA_MMV_SRCS) $(MMV_READER_SRCS) $(MMV_SRCS)
$(B)/tsan/pmda_mmv/test_mmv_pmda_threads: TSAN_LDLIBS := -lpcp_pmda -lpcp -lurcu
# the trace agent's aggregation under its recorders, reader and resets;
# the aggregation likewise tells TSan what liburcu orders (publication, grace periods)
$(B)/tsan/pmda_trace/test_tracepmda_agg_threads: tests/unit/pmda_trace/test_tracepmda_agg_threads.c \
		$(TRACE_AGG_SRCS)
$(B)/tsan/pmda_trace/test_tracepmda_agg_threads: TSAN_LDLIBS := -lurcu -lurcu-cds
# the span table's recorders, expiry and reader over the same aggregation
$(B)/tsan/pmda_trace/test_tracepmda_spans_threads: tests/unit/pmda_trace/test_tracepmda_spans_threads.c \
		pmda_trace/core/spans.c $(TRACE_AGG_SRCS)
$(B)/tsan/pmda_trace/test_tracepmda_spans_threads: TSAN_LDLIBS := -lurcu -lurcu-cds
# the OTLP sink's budget and counts under two transports' threads
$(B)/tsan/pmda_trace/test_otlp_sink: tests/unit/pmda_trace/test_otlp_sink.c $(OTLP_SINK_SRCS) \
		$(OTLP_DECODE_SRCS) $(OTEL_DECODE_SRCS) $(OTEL_STORE_SRCS) pmda_trace/core/spans.c \
		$(TRACE_AGG_SRCS)
$(B)/tsan/pmda_trace/test_otlp_sink: TSAN_LDLIBS := -lurcu -lurcu-cds -ljson-c -lz
# the OpenTelemetry metrics store's two recorders against the agent's reader
$(B)/tsan/pmda_trace/test_otel_store_threads: tests/unit/pmda_trace/test_otel_store_threads.c \
		$(OTEL_STORE_SRCS)
# One compile and link of several sources: their headers are listed for
# the Makefile's -include by a separate -MM pass (-MMD keeps only the last).
$(TSAN_PROGS):
	@mkdir -p $(@D)
	$(TSAN_CC) $(CSTD) $(CPPFLAGS_ALL) -MM -MP -MT $@ $(filter %.c,$^) > $@.d
	$(TSAN_CC) $(CSTD) $(WARN) $(TSANFLAGS) $(CPPFLAGS_ALL) -o $@ $(filter %.c,$^) $(PROTOBUF_LIBS) \
		$(TSAN_LDLIBS) -lcmocka -lpthread -lm

# The MMV format header's encoders are checked against libpcp's own.
$(B)/tests/unit/libpcp_mmv/test_mmv_format: UNIT_LDLIBS += -lpcp

# The MMV agent's PMDA front end, driven through its libpcp_pmda callbacks:
# built with the sanitizers, over the reader archive.
$(B)/tests/unit/pmda_mmv/test_mmv_pmda $(B)/tests/unit/pmda_mmv/test_mmv_pmda_threads: \
		$(B)/tests/unit/%: tests/unit/%.c $(PMDA_MMV_SAN_OBJS) $(SAN_ARCHIVES)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(SANFLAGS) -MMD -MP -o $@ $< \
		$(PMDA_MMV_SAN_OBJS) $(SAN_ARCHIVES) $(UNIT_LDLIBS) \
		-lpcp_pmda -lpcp -lurcu -lcmocka -lpthread -lm
