# SPDX-License-Identifier: GPL-2.0-or-later
# bench_trace, included by bench/build.mk. No rpath on purpose:
# bench/bench_trace.sh chooses PCP's library or ours with LD_LIBRARY_PATH.
BENCH_TRACE := $(B)/bench/bench_trace
BENCH_TARGETS += $(BENCH_TRACE)

$(BENCH_TRACE): bench/bench_trace.c $(B)/lib/libpcp_trace.so.2 $(B)/lib/libpcp_trace.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_trace

# bench_trace_shm: ns per call, PCP's library, our PDU path and our shared
# segment in one run (bench/run-trace-shm.sh); no rpath either.
BENCH_TRACE_SHM := $(B)/bench/bench_trace_shm
BENCH_TRACE_SHM_OURS := $(B)/bench/bench_trace_shm_ours
BENCH_TARGETS += $(BENCH_TRACE_SHM) $(BENCH_TRACE_SHM_OURS)

$(BENCH_TRACE_SHM): bench/bench_trace_shm.c $(B)/lib/libpcp_trace.so.2 $(B)/lib/libpcp_trace.so
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -L$(B)/lib -lpcp_trace -lpthread

# the same with the tag-handle cases (our header; runs on our library only)
$(BENCH_TRACE_SHM_OURS): bench/bench_trace_shm.c $(B)/lib/libpcp_trace.so.2 $(B)/lib/libpcp_trace.so include/pcp/trace_handle.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -DHANDLES -Iinclude -o $@ $< -L$(B)/lib -lpcp_trace -lpthread
