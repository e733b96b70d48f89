# SPDX-License-Identifier: GPL-2.0-or-later
# pmtrace, the command line trace client, on our libpcp_trace.
PMTRACE := $(B)/bin/pmtrace
# Finds our library beside it (build/lib, PREFIX/lib); empty for packages.
PMTRACE_RPATH ?= -Wl,-rpath,'$$ORIGIN/../lib'
BIN_TARGETS += $(PMTRACE)

$(PMTRACE): $(B)/obj/pmtrace/pmtrace.o $(TRACE_SO) $(B)/lib/libpcp_trace.so
	@mkdir -p $(@D)
	$(CC) -o $@ $< -L$(B)/lib -lpcp_trace $(PMTRACE_RPATH)

INSTALL_TARGETS += install-pmtrace
INSTALLED += $(BINDIR)/pmtrace
.PHONY: install-pmtrace
install-pmtrace: $(PMTRACE)
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(PMTRACE) $(DESTDIR)$(BINDIR)/
