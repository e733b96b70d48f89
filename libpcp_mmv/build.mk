# SPDX-License-Identifier: LGPL-2.1-or-later
# libpcp_mmv: libpcp_mmv.so.1, libpcp_mmv.a, libpcp_mmv.pc (the Makefile's
# sdk_library).
comma := ,
MMV_SRCS := $(wildcard libpcp_mmv/*.c) common/pcp_conf.c common/json_check.c
$(eval $(call sdk_library,MMV,libpcp_mmv,1,$(MMV_SRCS),-lm -lpthread -Wl$(comma)-z$(comma)nodelete,\
	mmv_stats.h mmv_dev.h mmv_inline.h mmv_histogram.h mmv_counter.h))
