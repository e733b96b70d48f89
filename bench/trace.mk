# bench_trace, included by bench/build.mk. No rpath on purpose:
# bench/bench_trace.sh chooses PCP's library or ours with LD_LIBRARY_PATH.
BENCH_TRACE := $(B)/bench/bench_trace
BENCH_TARGETS += $(BENCH_TRACE)

$(BENCH_TRACE): bench/bench_trace.c $(B)/lib/libpcp_trace.so.2
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_trace
