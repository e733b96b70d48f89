# SPDX-License-Identifier: GPL-2.0-or-later
# The one entry point. Components add themselves through */build.mk fragments,
# so a new library, agent, test or benchmark never edits this file.
#
#   make deps        install Debian packages (no-op when present)
#   make all         libraries, agents, demo, tools (build/)
#   make check       every test; ends with "N passed, M failed"
#   make demo        the Acme demo (the project's main job)
#   make bench       head-to-head benchmarks against PCP
#   make fuzz        long fuzzing runs
#   make install     DESTDIR/PREFIX honoured; make uninstall undoes it
#   make deb         Debian packages in build/deb (debian/, dpkg-buildpackage)

PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
PCDIR   ?= $(LIBDIR)/pkgconfig
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

CC      ?= cc
B       := build
WARN    := -Wall -Wextra -Werror
CSTD    := -std=c11 -D_GNU_SOURCE
CPPFLAGS_ALL := -Iinclude -Icommon
CFLAGS  ?= -O2 -g
CFLAGS_ALL := $(CSTD) $(WARN) $(CFLAGS) -fPIC $(CPPFLAGS_ALL)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
PCP_LIBS := -lpcp

# Filled in by the fragments.
LIB_TARGETS :=
BIN_TARGETS :=
TEST_PROGS :=
TEST_SCRIPTS :=
SAN_ARCHIVES :=		# sanitizer builds unit tests link against
UNIT_LDLIBS :=		# extra libraries those archives need
BENCH_TARGETS :=
INSTALL_TARGETS :=
INSTALLED :=		# files make install writes, for make uninstall

.PHONY: all check demo bench bench-build fuzz install uninstall deps deb clean
all:

# The recipe of every static archive: built afresh from its prerequisites.
define make_archive
@mkdir -p $(@D)
rm -f $@ && ar rcs $@ $^
endef

# A .pc file for the PREFIX, LIBDIR and INCDIR of this make install.
define install_pc
install -d $(DESTDIR)$(PCDIR)
sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	$(1) > $(DESTDIR)$(PCDIR)/$(notdir $(1:.in=))
endef

# An agent its Install put into pmcd is taken out (and what it replaced put
# back) by its Remove before its files go.
define pmda_removed
if [ -e $(1)/pmcd.conf.added ] || [ -e $(1)/pmcd.conf.replaced ] || \
	grep -qs '[[:space:]]$(1)/' /etc/pcp/pmcd/pmcd.conf; then cd $(1) && ./Remove; fi
endef

# Objects: build/obj for the shipped code, build/san for sanitizer builds.
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(B)/san/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(SANFLAGS) -MMD -MP -c -o $@ $<

# Libraries first, then agents, programs, tests and benchmarks, so each
# fragment can name what the earlier ones defined.
FRAGMENTS := $(sort $(wildcard lib*/build.mk)) $(sort $(wildcard pmda_*/build.mk)) \
	$(sort $(wildcard demos/*/build.mk bindings/*/build.mk)) \
	$(sort $(wildcard tests/*/build.mk)) $(wildcard bench/build.mk) \
	$(wildcard docs/build.mk)
include $(FRAGMENTS)

all: $(LIB_TARGETS) $(BIN_TARGETS)

check: all $(TEST_PROGS)
	@sh tests/run-tests.sh $(TEST_PROGS) $(TEST_SCRIPTS)

bench: bench-build
	@sh bench/run-bench.sh

# The benchmarks built, not run (make check-matrix builds them on every PCP).
bench-build: all $(BENCH_TARGETS)

# Into the live system (no DESTDIR, as root): refresh the loader's cache
# so programs load the new libraries, not Debian's, from the next start.
install: all $(INSTALL_TARGETS)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then echo ldconfig; ldconfig; fi

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(INCDIR)/pcp 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then echo ldconfig; ldconfig; fi

# Packages: built in a copy of the tree under build/deb/src, so the
# .debs, .changes and debhelper's files all stay in build/deb.
# DEB_VERSION overrides the changelog's version, DEB_DIR the output folder.
DEB_VERSION ?=
DEB_DIR ?= $(B)/deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	tar -cf - --exclude=./build --exclude=./.git . | tar -C $(DEB_DIR)/src -xf -
	$(if $(DEB_VERSION),sed -i '1s/(.*)/($(DEB_VERSION))/' $(DEB_DIR)/src/debian/changelog)
	cd $(DEB_DIR)/src && dpkg-buildpackage -b -us -uc -j2
	rm -rf $(DEB_DIR)/src
	lintian --fail-on error $(DEB_DIR)/*.changes

deps:
	@sh scripts/deps.sh

clean:
	rm -rf $(B)

# (not inside the throw-away Debian roots of tests/matrix)
-include $(shell find $(B) \( -path $(B)/roots -o -path $(B)/matrix \) -prune -o -name '*.d' -type f -print 2>/dev/null)
