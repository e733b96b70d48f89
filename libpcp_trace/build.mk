# libpcp_trace: libpcp_trace.so.2, libpcp_trace.a, libpcp_trace.pc, and
# the pmtrace command. Does not link libpcp.
TRACE_SRCS := $(wildcard libpcp_trace/*.c)
TRACE_OBJS := $(TRACE_SRCS:%.c=$(B)/obj/%.o)
TRACE_SAN_OBJS := $(TRACE_SRCS:%.c=$(B)/san/%.o)
TRACE_SO := $(B)/lib/libpcp_trace.so.2
TRACE_A := $(B)/lib/libpcp_trace.a
TRACE_SAN_A := $(B)/san/lib/libpcp_trace.a
TRACE_PC := $(B)/lib/libpcp_trace.pc
PMTRACE := $(B)/bin/pmtrace

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
	$(CC) -o $@ $< -L$(B)/lib -lpcp_trace -Wl,-rpath,'$$ORIGIN/../lib'

INSTALL_TARGETS += install-trace
.PHONY: install-trace
install-trace: $(TRACE_SO) $(TRACE_A) $(TRACE_PC) $(PMTRACE)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/pcp $(DESTDIR)$(BINDIR)
	install -m 0755 $(TRACE_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libpcp_trace.so.2 $(DESTDIR)$(LIBDIR)/libpcp_trace.so
	install -m 0644 $(TRACE_A) $(DESTDIR)$(LIBDIR)/
	install -m 0644 $(TRACE_PC) $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 0644 include/pcp/trace.h include/pcp/trace_dev.h include/pcp/trace_ext.h $(DESTDIR)$(INCDIR)/pcp/
	install -m 0755 $(PMTRACE) $(DESTDIR)$(BINDIR)/
