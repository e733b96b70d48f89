# SPDX-License-Identifier: GPL-2.0-or-later
# The C guide's programs (docs/c.md, README.md), built against our headers
# and libraries as a user builds them (C11, no _GNU_SOURCE: each program
# says what it needs), into build/demos/quickstart/. They are run and read
# through a pmcd by tests/integration/quickstart.sh; the guide's copies are
# checked against these files by tests/docs/quoted.sh. A user builds them
# with demos/quickstart/Makefile (pkg-config), which deb_roundtrip.sh runs
# on the installed packages.
QUICKSTART_DIR := $(B)/demos/quickstart
QUICKSTART := $(addprefix $(QUICKSTART_DIR)/,first tiny threads)
BIN_TARGETS += $(QUICKSTART)

$(QUICKSTART): $(QUICKSTART_DIR)/%: demos/quickstart/%.c $(MMV_SO) $(B)/lib/libpcp_mmv.so \
		$(TRACE_SO) $(B)/lib/libpcp_trace.so $(wildcard include/pcp/*.h)
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -Iinclude -o $@ $< -L$(B)/lib -lpcp_mmv -lpcp_trace \
		-pthread -Wl,-rpath,'$$ORIGIN/../../lib'
