# pmda_trace: the trace agent. The aggregation core is an archive shared by
# the agent and the unit tests.
TRACE_AGG_SRCS := pmda_trace/agg.c
TRACE_AGG_A := $(B)/lib/libtrace_agg.a
TRACE_AGG_SAN_A := $(B)/san/lib/libtrace_agg.a
URCU_LIBS := -lurcu -lurcu-cds

LIB_TARGETS += $(TRACE_AGG_A)
SAN_ARCHIVES += $(TRACE_AGG_SAN_A)
UNIT_LDLIBS += $(URCU_LIBS)

$(TRACE_AGG_A): $(TRACE_AGG_SRCS:%.c=$(B)/obj/%.o)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(TRACE_AGG_SAN_A): $(TRACE_AGG_SRCS:%.c=$(B)/san/%.o)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
