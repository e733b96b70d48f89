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
INSTALLED_DIRS :=	# folders of its own it makes, innermost first, removed if empty

.PHONY: all check demo bench bench-build fuzz install uninstall deps deps-build deb clean
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

# One of the SDK's libraries, from one call in its build.mk:
#   $(eval $(call sdk_library,VAR,NAME,SOVERSION,SRCS,LIBS,HEADERS))
# NAME (libpcp_mmv) is built from SRCS as $(B)/lib/NAME.so.SOVERSION with
# NAME/exports.map and LIBS, NAME.so, NAME.a and $(B)/san/lib/NAME.a (for
# the sanitizer builds of the tests), NAME.pc from NAME/NAME.pc.in; make
# install-NAME installs them and HEADERS (include/pcp/). VAR_OBJS, VAR_SO,
# VAR_A, VAR_SAN_A and VAR_PC name what the other fragments use.
define sdk_library
$(1)_OBJS := $(4:%.c=$(B)/obj/%.o)
$(1)_SAN_OBJS := $(4:%.c=$(B)/san/%.o)
$(1)_SO := $(B)/lib/$(2).so.$(3)
$(1)_A := $(B)/lib/$(2).a
$(1)_SAN_A := $(B)/san/lib/$(2).a
$(1)_PC := $(B)/lib/$(2).pc
LIB_TARGETS += $$($(1)_SO) $(B)/lib/$(2).so $$($(1)_A) $$($(1)_PC)
SAN_ARCHIVES += $$($(1)_SAN_A)
INSTALL_TARGETS += install-$(2)
INSTALLED += $(addprefix $(LIBDIR)/,$(2).so.$(3) $(2).so $(2).a) $(PCDIR)/$(2).pc \
	$(addprefix $(INCDIR)/pcp/,$(6))

$$($(1)_SO): $$($(1)_OBJS) $(2)/exports.map
	@mkdir -p $$(@D)
	$$(CC) -shared -Wl,-soname,$(2).so.$(3) -Wl,--version-script=$(2)/exports.map \
		-Wl,-z,defs -o $$@ $$($(1)_OBJS) $(5)

$(B)/lib/$(2).so: $$($(1)_SO)
	ln -sf $(2).so.$(3) $$@

$$($(1)_A): $$($(1)_OBJS)
	$$(make_archive)

$$($(1)_SAN_A): $$($(1)_SAN_OBJS)
	$$(make_archive)

$$($(1)_PC): $(2)/$(2).pc.in
	@mkdir -p $$(@D)
	sed -e 's|@PREFIX@|$$(PREFIX)|' -e 's|@LIBDIR@|$$(LIBDIR)|' -e 's|@INCDIR@|$$(INCDIR)|' $$< > $$@

.PHONY: install-$(2)
install-$(2): $$($(1)_SO) $$($(1)_A) $$($(1)_PC)
	install -d $$(DESTDIR)$$(LIBDIR) $$(DESTDIR)$$(INCDIR)/pcp
	install -m 0755 $$($(1)_SO) $$(DESTDIR)$$(LIBDIR)/
	ln -sf $(2).so.$(3) $$(DESTDIR)$$(LIBDIR)/$(2).so
	install -m 0644 $$($(1)_A) $$(DESTDIR)$$(LIBDIR)/
	$$(call install_pc,$(2)/$(2).pc.in)
	install -m 0644 $(addprefix include/pcp/,$(6)) $$(DESTDIR)$$(INCDIR)/pcp/
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
FRAGMENTS := $(sort $(wildcard lib*/build.mk)) pmtrace/build.mk $(sort $(wildcard pmda_*/build.mk)) \
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
	-rmdir $(addprefix $(DESTDIR),$(INSTALLED_DIRS)) $(DESTDIR)$(INCDIR)/pcp 2>/dev/null
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

# Only what make all and make deb need, for a user who wants the packages.
deps-build:
	@sh scripts/deps.sh build

clean:
	rm -rf $(B)

# (not inside the throw-away Debian roots of tests/matrix)
-include $(shell find $(B) \( -path $(B)/roots -o -path $(B)/matrix \) -prune -o -name '*.d' -type f -print 2>/dev/null)
