# SPDX-License-Identifier: GPL-2.0-or-later
# Compatibility tests against Debian's PCP: each program is built twice from
# one source, against PCP's headers and libpcp_mmv (*-pcp) and against ours
# (*-ours, our headers, our .so by rpath, no libpcp). tests/compat/run.sh
# runs both (and the PCP builds on our .so through LD_LIBRARY_PATH) and
# compares files, mmvdump output and printed results.
COMPAT_DIR := $(B)/tests/compat
COMPAT_PCP_FLAGS := $(CSTD) $(WARN) $(CFLAGS) -Icommon
COMPAT_OURS_FLAGS := $(CSTD) $(WARN) $(CFLAGS) -Iinclude -Icommon
COMPAT_OURS_LIBS := $(MMV_SO) -Wl,-rpath,$(abspath $(B)/lib)
COMPAT_PROGS := $(COMPAT_DIR)/writer-pcp $(COMPAT_DIR)/writer-ours \
	$(COMPAT_DIR)/labels-pcp $(COMPAT_DIR)/labels-ours \
	$(COMPAT_DIR)/mmvmask $(COMPAT_DIR)/acme-pcp

TEST_SCRIPTS += tests/compat/run.sh

$(COMPAT_DIR)/%-pcp: tests/compat/%.c common/mmv_format.h
	@mkdir -p $(@D)
	$(CC) $(COMPAT_PCP_FLAGS) -o $@ $< -lpcp_mmv -lpcp

$(COMPAT_DIR)/%-ours: tests/compat/%.c $(MMV_SO) include/pcp/mmv_stats.h \
		common/mmv_format.h
	@mkdir -p $(@D)
	$(CC) $(COMPAT_OURS_FLAGS) -o $@ $< $(COMPAT_OURS_LIBS)

$(COMPAT_DIR)/mmvmask: tests/compat/mmvmask.c
	@mkdir -p $(@D)
	$(CC) $(COMPAT_PCP_FLAGS) -o $@ $<

# PCP's own demo, unchanged (hence no -Werror), linked against PCP.
$(COMPAT_DIR)/acme-pcp: /usr/share/pcp/demos/mmv/acme.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(CFLAGS) -o $@ $< -lpcp_mmv -lpcp

# The agent's label payload check against Debian's label parser.
COMPAT_PROGS += $(COMPAT_DIR)/label_parse
check: $(COMPAT_DIR)/label_parse	# prerequisites above were expanded already
$(COMPAT_DIR)/label_parse: tests/compat/label_parse.c common/json_check.c \
		common/json_check.h tests/lib/label_payloads.h
	@mkdir -p $(@D)
	$(CC) $(COMPAT_PCP_FLAGS) -o $@ tests/compat/label_parse.c \
		common/json_check.c -lpcp_pmda -lpcp

# Last: a rule's prerequisites are expanded where it is read.
check: $(COMPAT_PROGS)
