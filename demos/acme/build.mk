# SPDX-License-Identifier: GPL-2.0-or-later
# The Acme factory demo, built against our headers and library.
ACME := $(B)/bin/acme
BIN_TARGETS += $(ACME)

$(ACME): demos/acme/acme.c $(MMV_SO) $(B)/lib/libpcp_mmv.so $(TRACE_SO) $(B)/lib/libpcp_trace.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -lpcp_trace -Wl,-rpath,'$$ORIGIN/../lib'

demo: all
	@sh demos/acme/demo.sh

# A PCP client (links libpcp): reads Acme through a pmcd with fetchgroups.
ACME_READER := $(B)/bin/acme_reader
BIN_TARGETS += $(ACME_READER)

$(ACME_READER): demos/acme/acme_reader.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -lpcp
