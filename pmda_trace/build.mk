# pmda_trace: the trace agent. Its core (aggregation, access control, PDU
# decoding) is an archive shared by the agent and the unit tests.
TRACE_CORE_SRCS := pmda_trace/agg.c pmda_trace/access.c pmda_trace/pdu.c pmda_trace/listener.c
TRACE_CORE_A := $(B)/lib/libpmda_trace_core.a
TRACE_CORE_SAN_A := $(B)/san/lib/libpmda_trace_core.a
URCU_LIBS := -lurcu -lurcu-cds

LIB_TARGETS += $(TRACE_CORE_A)
SAN_ARCHIVES += $(TRACE_CORE_SAN_A)
UNIT_LDLIBS += $(URCU_LIBS)

$(TRACE_CORE_A): $(TRACE_CORE_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(TRACE_CORE_SAN_A): $(TRACE_CORE_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The agent (pipe PMDA), its PMNS and domain for pmcd.
PMDA_TRACE := $(B)/pmdas/trace/pmdatrace
BIN_TARGETS += $(PMDA_TRACE) $(B)/pmdas/trace/root_trace

$(PMDA_TRACE): pmda_trace/main.c pmda_trace/metrics.c $(TRACE_CORE_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ pmda_trace/main.c pmda_trace/metrics.c $(TRACE_CORE_A) \
		-lpcp_pmda -lpcp $(URCU_LIBS) -lpthread

$(B)/pmdas/trace/%: pmda_trace/%
	@mkdir -p $(@D)
	cp $< $@

# Agent integration test against Debian's pmdatrace; its workload is built
# with PCP's own headers and library.
TEST_SCRIPTS += tests/integration/trace_agent.sh
TRACE_WORKLOAD := $(B)/tests/integration/trace_workload_pcp
check: $(TRACE_WORKLOAD)

$(TRACE_WORKLOAD): tests/integration/trace_workload.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -Iinclude -Icommon,$(CFLAGS_ALL)) -o $@ $< -L/usr/lib -lpcp_trace
