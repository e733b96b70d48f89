# SPDX-License-Identifier: LGPL-2.1-or-later
# libpcp_mmv: libpcp_mmv.so.1, libpcp_mmv.a, libpcp_mmv.pc
MMV_SRCS := $(wildcard libpcp_mmv/*.c) common/pcp_conf.c common/json_check.c
MMV_OBJS := $(MMV_SRCS:%.c=$(B)/obj/%.o)
MMV_SAN_OBJS := $(MMV_SRCS:%.c=$(B)/san/%.o)
MMV_SO := $(B)/lib/libpcp_mmv.so.1
MMV_A := $(B)/lib/libpcp_mmv.a
MMV_SAN_A := $(B)/san/lib/libpcp_mmv.a
MMV_PC := $(B)/lib/libpcp_mmv.pc

LIB_TARGETS += $(MMV_SO) $(B)/lib/libpcp_mmv.so $(MMV_A) $(MMV_PC)
SAN_ARCHIVES += $(MMV_SAN_A)

$(MMV_SO): $(MMV_OBJS) libpcp_mmv/exports.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libpcp_mmv.so.1 -Wl,--version-script=libpcp_mmv/exports.map \
		-Wl,-z,defs -o $@ $(MMV_OBJS) -lm -lpthread

$(B)/lib/libpcp_mmv.so: $(MMV_SO)
	ln -sf libpcp_mmv.so.1 $@

$(MMV_A): $(MMV_OBJS)
	$(make_archive)

$(MMV_SAN_A): $(MMV_SAN_OBJS)
	$(make_archive)

$(MMV_PC): libpcp_mmv/libpcp_mmv.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' $< > $@

INSTALL_TARGETS += install-mmv
INSTALLED += $(addprefix $(LIBDIR)/,libpcp_mmv.so.1 libpcp_mmv.so libpcp_mmv.a) \
	$(PCDIR)/libpcp_mmv.pc $(addprefix $(INCDIR)/pcp/,mmv_stats.h mmv_dev.h mmv_inline.h mmv_histogram.h)
.PHONY: install-mmv
install-mmv: $(LIB_TARGETS)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR)/pcp
	install -m 0755 $(MMV_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libpcp_mmv.so.1 $(DESTDIR)$(LIBDIR)/libpcp_mmv.so
	install -m 0644 $(MMV_A) $(DESTDIR)$(LIBDIR)/
	$(call install_pc,libpcp_mmv/libpcp_mmv.pc.in)
	install -m 0644 include/pcp/mmv_stats.h include/pcp/mmv_dev.h include/pcp/mmv_inline.h \
		include/pcp/mmv_histogram.h $(DESTDIR)$(INCDIR)/pcp/
