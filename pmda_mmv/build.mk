# SPDX-License-Identifier: GPL-2.0-or-later
# pmda_mmv/reader/, the reader core: the part of the MMV agent that knows nothing of
# pmcd, as archives for the PMDA front end (normal) and the unit tests and
# fuzzer (sanitizer build, appended to SAN_ARCHIVES).
MMV_READER_SRCS := $(sort $(wildcard pmda_mmv/reader/*.c)) common/json_check.c
MMV_READER_OBJS := $(MMV_READER_SRCS:%.c=$(B)/obj/%.o)
MMV_READER_SAN_OBJS := $(MMV_READER_SRCS:%.c=$(B)/san/%.o)
MMV_READER_A := $(B)/lib/libmmv_reader.a
MMV_READER_SAN_A := $(B)/san/lib/libmmv_reader.a

LIB_TARGETS += $(MMV_READER_A)
SAN_ARCHIVES += $(MMV_READER_SAN_A)
UNIT_LDLIBS += -lm

$(MMV_READER_A): $(MMV_READER_OBJS)
	$(make_archive)

$(MMV_READER_SAN_A): $(MMV_READER_SAN_OBJS)
	$(make_archive)

# The PMDA front end: a daemon (pipe to pmcd) and a DSO with PCP's entry
# points (mmv_init, pmproxy_init), both over the reader archive.
PMDA_MMV_DIR := $(B)/pmdas/mmv
PMDA_MMV := $(PMDA_MMV_DIR)/pmdammv
PMDA_MMV_SO := $(B)/lib/pmda_mmv.so
PMDA_MMV_LIBS := -lpcp_pmda -lpcp -lurcu -lpthread -lm
PMDA_MMV_FILES := $(PMDA_MMV_DIR)/root_mmv $(PMDA_MMV_DIR)/domain.h \
	$(PMDA_MMV_DIR)/Install $(PMDA_MMV_DIR)/Remove $(PMDA_MMV_DIR)/sdk_pmcd.sh
# the front end over the reader (agent.h says which file does what)
PMDA_MMV_SRCS := $(addprefix pmda_mmv/,view.c control.c fill.c meta.c pmda.c)
PMDA_MMV_OBJS := $(PMDA_MMV_SRCS:%.c=$(B)/obj/%.o)
PMDA_MMV_SAN_OBJS := $(PMDA_MMV_SRCS:%.c=$(B)/san/%.o)
BIN_TARGETS += $(PMDA_MMV) $(PMDA_MMV_SO) $(PMDA_MMV_FILES)

$(PMDA_MMV): $(B)/obj/pmda_mmv/main.o $(PMDA_MMV_OBJS) $(MMV_READER_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PMDA_MMV_LIBS)

$(PMDA_MMV_SO): $(PMDA_MMV_OBJS) $(MMV_READER_A) pmda_mmv/exports.map
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -shared -o $@ $(PMDA_MMV_OBJS) $(MMV_READER_A) \
		-Wl,--version-script=pmda_mmv/exports.map -Wl,-z,defs $(PMDA_MMV_LIBS)

$(PMDA_MMV_DIR)/%: pmda_mmv/%
	@mkdir -p $(@D)
	cp $< $@

# Install's and Remove's pmcd.conf record and pmcd restarts, shared with
# the trace agent.
$(PMDA_MMV_DIR)/sdk_pmcd.sh: scripts/sdk_pmcd.sh
	@mkdir -p $(@D)
	cp $< $@

# make install-pmda: the agent's files beside Debian's, not over them;
# then run Install from that directory as root.
PCP_PMDAS_DIR ?= $(shell . /etc/pcp.conf 2>/dev/null; echo $${PCP_PMDAS_DIR:-/var/lib/pcp/pmdas})
PMDA_MMV_INSTDIR ?= mmv-sdk
.PHONY: install-pmda uninstall-pmda
install-pmda: $(PMDA_MMV) $(PMDA_MMV_SO) $(PMDA_MMV_FILES)
	install -d $(DESTDIR)$(PCP_PMDAS_DIR)/$(PMDA_MMV_INSTDIR)
	install -m 755 $(PMDA_MMV) $(PMDA_MMV_SO) $(PMDA_MMV_DIR)/Install \
		$(PMDA_MMV_DIR)/Remove $(DESTDIR)$(PCP_PMDAS_DIR)/$(PMDA_MMV_INSTDIR)
	install -m 644 $(PMDA_MMV_DIR)/root_mmv $(PMDA_MMV_DIR)/domain.h \
		$(PMDA_MMV_DIR)/sdk_pmcd.sh $(DESTDIR)$(PCP_PMDAS_DIR)/$(PMDA_MMV_INSTDIR)

uninstall-pmda:
	$(call pmda_removed,$(DESTDIR)$(PCP_PMDAS_DIR)/$(PMDA_MMV_INSTDIR))
	rm -f $(addprefix $(DESTDIR)$(PCP_PMDAS_DIR)/$(PMDA_MMV_INSTDIR)/,pmdammv pmda_mmv.so \
		Install Remove root_mmv domain.h sdk_pmcd.sh)
	-rmdir $(DESTDIR)$(PCP_PMDAS_DIR)/$(PMDA_MMV_INSTDIR)

# Agent integration test against Debian's pmdammv; its writer is built
# with PCP's own headers and library (and run again on ours).
TEST_SCRIPTS += tests/integration/mmv_agent.sh
MMV_AGENT_WRITER := $(B)/tests/integration/mmv_writer_pcp
check: $(MMV_AGENT_WRITER)

$(MMV_AGENT_WRITER): tests/integration/mmv_writer.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -Iinclude -Icommon,$(CFLAGS_ALL)) -o $@ $< -lpcp_mmv -lpcp
