# libpcp_trace: libpcp_trace.so.2, libpcp_trace.a, libpcp_trace.pc, and
# the pmtrace command. Does not link libpcp.
TRACE_SRCS := $(wildcard libpcp_trace/*.c) common/trace_decode.c
TRACE_OBJS := $(TRACE_SRCS:%.c=$(B)/obj/%.o)
TRACE_SAN_OBJS := $(TRACE_SRCS:%.c=$(B)/san/%.o)
TRACE_SO := $(B)/lib/libpcp_trace.so.2
TRACE_A := $(B)/lib/libpcp_trace.a
TRACE_SAN_A := $(B)/san/lib/libpcp_trace.a
TRACE_PC := $(B)/lib/libpcp_trace.pc
PMTRACE := $(B)/bin/pmtrace
# Finds our library beside it (build/lib, PREFIX/lib); empty for packages.
PMTRACE_RPATH ?= -Wl,-rpath,'$$ORIGIN/../lib'

LIB_TARGETS += $(TRACE_SO) $(B)/lib/libpcp_trace.so $(TRACE_A) $(TRACE_PC)
BIN_TARGETS += $(PMTRACE)
SAN_ARCHIVES += $(TRACE_SAN_A)
TEST_SCRIPTS += tests/integration/trace_client.sh

$(TRACE_SO): $(TRACE_OBJS) libpcp_trace/exports.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libpcp_trace.so.2 \
		-Wl,--version-script=libpcp_trace/exports.map \
		-Wl,-z,defs -o $@ $(TRACE_OBJS) -lpthread

$(B)/lib/libpcp_trace.so: $(TRACE_SO)
	ln -sf libpcp_trace.so.2 $@

$(TRACE_A): $(TRACE_OBJS)
	$(make_archive)

$(TRACE_SAN_A): $(TRACE_SAN_OBJS)
	$(make_archive)

$(TRACE_PC): libpcp_trace/libpcp_trace.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' $< > $@

$(PMTRACE): $(B)/obj/libpcp_trace/pmtrace/pmtrace.o $(TRACE_SO)
	@mkdir -p $(@D)
	$(CC) -o $@ $< -L$(B)/lib -lpcp_trace $(PMTRACE_RPATH)

INSTALL_TARGETS += install-trace
INSTALLED += $(addprefix $(LIBDIR)/,libpcp_trace.so.2 libpcp_trace.so libpcp_trace.a) \
	$(PCDIR)/libpcp_trace.pc $(addprefix $(INCDIR)/pcp/,trace.h trace_dev.h trace_ext.h) \
	$(BINDIR)/pmtrace
.PHONY: install-trace
install-trace: $(TRACE_SO) $(TRACE_A) $(TRACE_PC) $(PMTRACE)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR)/pcp $(DESTDIR)$(BINDIR)
	install -m 0755 $(TRACE_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libpcp_trace.so.2 $(DESTDIR)$(LIBDIR)/libpcp_trace.so
	install -m 0644 $(TRACE_A) $(DESTDIR)$(LIBDIR)/
	$(call install_pc,libpcp_trace/libpcp_trace.pc.in)
	install -m 0644 include/pcp/trace.h include/pcp/trace_dev.h include/pcp/trace_ext.h $(DESTDIR)$(INCDIR)/pcp/
	install -m 0755 $(PMTRACE) $(DESTDIR)$(BINDIR)/
