# The one entry point. Components add themselves through */build.mk fragments,
# so a new library, agent, test or benchmark never edits this file.
#
#   make deps        install Debian packages (no-op when present)
#   make all         libraries, agents, demo, tools (build/)
#   make check       every test; ends with "N passed, M failed"
#   make demo        the Acme demo (the project's main job)
#   make bench       head-to-head benchmarks against PCP
#   make fuzz        long fuzzing runs
#   make install     DESTDIR/PREFIX honoured

PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
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

.PHONY: all check demo bench fuzz install deps clean
all:

# The recipe of every static archive: built afresh from its prerequisites.
define make_archive
@mkdir -p $(@D)
rm -f $@ && ar rcs $@ $^
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

bench: all $(BENCH_TARGETS)
	@sh bench/run-bench.sh

install: all $(INSTALL_TARGETS)

deps:
	@sh scripts/deps.sh

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
