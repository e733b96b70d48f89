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
