# SPDX-License-Identifier: GPL-2.0-or-later
# pmda_trace: the trace agent. Its core (pmda_trace/core: listener, PDU
# decoding, aggregation, access control) is an archive shared by the agent,
# the unit tests and the fuzzer; its names start with tra_ (sdk_ for the
# common code in it, otlp_ for the OTLP decoder and receiver of
# pmda_trace/otlp, otel_ for OpenTelemetry metrics, pmda_trace/otel). The
# front end (main.c, options.c, metrics.c) is pmda_trace/.
include pmda_trace/otlp/build.mk
include pmda_trace/otel/build.mk
# The aggregation, one file per concern (pmda_trace/core/agg.h says which).
TRACE_AGG_SRCS := $(addprefix pmda_trace/core/,agg_tags.c agg_record.c agg_hist.c agg_window.c \
	agg_expire.c)
TRACE_CORE_SRCS := $(TRACE_AGG_SRCS) $(addprefix pmda_trace/core/,access.c pdu.c listener.c \
	shm.c reg.c spans.c) \
	common/trace_decode.c $(TRACE_REG_GEN) $(OTLP_DECODE_SRCS) $(OTLP_SINK_SRCS) \
	$(OTEL_DECODE_SRCS) $(OTEL_STORE_SRCS)
TRACE_CORE_A := $(B)/lib/libpmda_trace_core.a
TRACE_CORE_SAN_A := $(B)/san/lib/libpmda_trace_core.a
URCU_LIBS := -lurcu -lurcu-cds

LIB_TARGETS += $(TRACE_CORE_A)
SAN_ARCHIVES += $(TRACE_CORE_SAN_A)
UNIT_LDLIBS += $(URCU_LIBS)
$(addprefix $(B)/obj/pmda_trace/core/,reg.o listener.o) \
$(addprefix $(B)/san/pmda_trace/core/,reg.o listener.o): $(TRACE_REG_H)

$(TRACE_CORE_A): $(TRACE_CORE_SRCS:%.c=$(B)/obj/%.o)
	$(make_archive)

$(TRACE_CORE_SAN_A): $(TRACE_CORE_SRCS:%.c=$(B)/san/%.o)
	$(make_archive)

# The agent (pipe PMDA), its PMNS and domain for pmcd.
PMDA_TRACE := $(B)/pmdas/trace/pmdatrace
TRACE_FRONT_SRCS := $(addprefix pmda_trace/,main.c options.c metrics.c otel_pmda.c)
BIN_TARGETS += $(PMDA_TRACE) $(B)/pmdas/trace/root_trace

$(PMDA_TRACE): $(TRACE_FRONT_SRCS) $(OTLP_SERVER_A) $(TRACE_CORE_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $(TRACE_FRONT_SRCS) $(OTLP_SERVER_A) $(TRACE_CORE_A) -lpcp_pmda -lpcp $(URCU_LIBS) $(OTLP_SERVER_LIBS) \
		$(OTLP_LIBS) -lpthread -lm

# The agent built with ASan and UBSan for the hostile tests of its receiver
# (tests/integration/otlp_hostile.sh): the same sources over the core's
# sanitizer archive; make check builds it, make install never ships it.
PMDA_TRACE_SAN := $(B)/san/pmdas/trace/pmdatrace
check: $(PMDA_TRACE_SAN)

$(PMDA_TRACE_SAN): $(TRACE_FRONT_SRCS) $(OTLP_SERVER_SAN_A) $(TRACE_CORE_SAN_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(SANFLAGS) -o $@ $(TRACE_FRONT_SRCS) $(OTLP_SERVER_SAN_A) $(TRACE_CORE_SAN_A) -lpcp_pmda -lpcp $(URCU_LIBS) \
		$(OTLP_SERVER_LIBS) $(OTLP_LIBS) -lpthread -lm

# The front end's unit test links its sanitizer build of metrics.c (and
# otel_pmda.c, which it calls) and PCP's PMDA library besides the core.
TRACE_METRICS_SAN_O := $(addprefix $(B)/san/pmda_trace/,metrics.o otel_pmda.o)
$(B)/tests/unit/pmda_trace/test_tracepmda_metrics: $(TRACE_METRICS_SAN_O)
$(B)/tests/unit/pmda_trace/test_tracepmda_metrics: UNIT_LDLIBS += $(TRACE_METRICS_SAN_O) \
	$(TRACE_CORE_SAN_A) $(URCU_LIBS) $(OTLP_LIBS) -lpcp_pmda -lpcp

# A whole PMNS (root and the trace subtree) for private pmcds in tests.
$(B)/pmdas/trace/root_trace: pmda_trace/pmns
	@mkdir -p $(@D)
	{ printf 'root {\n\ttrace\n}\n\n'; cat $<; } > $@

# make install-pmda: the agent where PCP's PMDA helpers expect it (a
# drop-in for Debian's pmdatrace; TRACE_PMDA_DIR or DESTDIR to stage it),
# then run its Install as root to add it to pmcd.
PCP_PMDAS_DIR ?= $(shell sed -n 's/^PCP_PMDAS_DIR=//p' /etc/pcp.conf 2>/dev/null)
TRACE_PMDA_DIR ?= $(PCP_PMDAS_DIR)/trace
# Debian's pcp owns those paths: into the live system they are diverted
# first (scripts/divert.sh), and make uninstall-pmda gives them back.
TRACE_PMDA_FILES := pmdatrace Install Remove pmns domain.h
.PHONY: install-pmda install-pmda-trace uninstall-pmda uninstall-pmda-trace
install-pmda: install-pmda-trace
uninstall-pmda: uninstall-pmda-trace
install-pmda-trace: $(PMDA_TRACE)
	install -d $(DESTDIR)$(TRACE_PMDA_DIR)
	$(if $(DESTDIR),,for f in $(TRACE_PMDA_FILES); do sh scripts/divert.sh add $(TRACE_PMDA_DIR)/$$f || exit 1; done)
	install -m 0755 $(PMDA_TRACE) pmda_trace/Install pmda_trace/Remove $(DESTDIR)$(TRACE_PMDA_DIR)/
	install -m 0644 pmda_trace/pmns pmda_trace/domain.h scripts/sdk_pmcd.sh $(DESTDIR)$(TRACE_PMDA_DIR)/

uninstall-pmda-trace:
	$(call pmda_removed,$(DESTDIR)$(TRACE_PMDA_DIR))
	rm -f $(addprefix $(DESTDIR)$(TRACE_PMDA_DIR)/,$(TRACE_PMDA_FILES) sdk_pmcd.sh)
	$(if $(DESTDIR),,for f in $(TRACE_PMDA_FILES); do sh scripts/divert.sh remove $(TRACE_PMDA_DIR)/$$f || exit 1; done)
	-rmdir $(DESTDIR)$(TRACE_PMDA_DIR) 2>/dev/null

# Agent integration test against Debian's pmdatrace; its workload is built
# with PCP's own headers and library.
TEST_SCRIPTS += tests/integration/trace_agent.sh tests/integration/trace_pct.sh
TRACE_WORKLOAD := $(B)/tests/integration/trace_workload_pcp
check: $(TRACE_WORKLOAD)

$(TRACE_WORKLOAD): tests/integration/trace_workload.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -Iinclude -Icommon,$(CFLAGS_ALL)) -o $@ $< -lpcp_trace
