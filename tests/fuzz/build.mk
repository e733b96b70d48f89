# SPDX-License-Identifier: GPL-2.0-or-later
# libFuzzer targets (clang). Each is built from its sources directly, so
# clang's sanitizer runtimes are not mixed with the gcc-built archives.
# `make check` runs each briefly through a TAP script; `make fuzz` at length.
FUZZ_CC := clang
FUZZ_CFLAGS := $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(CPPFLAGS_ALL)

# fuzz_target NAME,STEM,MAXLEN[,DICT]: build/tests/fuzz/fuzz_STEM runs briefly in
# make check (tests/fuzz/run-NAME.sh) and at length as make fuzz-NAME
# (FUZZ_SECONDS, default 600) over tests/fuzz/corpus/STEM, with libFuzzer's
# dictionary DICT if given.
define fuzz_target
check: $(B)/tests/fuzz/fuzz_$(2)
TEST_SCRIPTS += tests/fuzz/run-$(1).sh

.PHONY: fuzz-$(1)
fuzz: fuzz-$(1)
fuzz-$(1): $(B)/tests/fuzz/fuzz_$(2)
	@mkdir -p $(B)/fuzz/$(2)
	$(B)/tests/fuzz/fuzz_$(2) -max_total_time=$$$${FUZZ_SECONDS:-600} -max_len=$(3) \
		$(if $(4),-dict=$(4)) $(B)/fuzz/$(2) tests/fuzz/corpus/$(2)
endef

# The MMV reader core.
FUZZ_MMV_READER := $(B)/tests/fuzz/fuzz_mmv_reader

$(FUZZ_MMV_READER): tests/fuzz/fuzz_mmv_reader.c $(MMV_READER_SRCS) \
		pmda_mmv/reader/reader.h pmda_mmv/reader/reader_priv.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_mmv_reader.c \
		$(MMV_READER_SRCS) -lm

$(eval $(call fuzz_target,mmv-reader,mmv_reader,65536))

# The trace agent's PDU decoding and aggregation.
FUZZ_TRACE_PDU := $(B)/tests/fuzz/fuzz_trace_pdu
FUZZ_TRACE_PDU_SRCS := pmda_trace/core/pdu.c $(TRACE_AGG_SRCS) common/trace_decode.c

$(FUZZ_TRACE_PDU): tests/fuzz/fuzz_trace_pdu.c $(FUZZ_TRACE_PDU_SRCS) \
		pmda_trace/core/pdu.h pmda_trace/core/agg.h pmda_trace/core/agg_priv.h common/trace_decode.h common/trace_wire.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_trace_pdu.c \
		$(FUZZ_TRACE_PDU_SRCS) -lurcu -lurcu-cds -lpthread

$(eval $(call fuzz_target,trace-pdu,trace_pdu,4096))

# The trace agent's decoder of shared segment registrations (protobuf-c).
FUZZ_TRACE_REG := $(B)/tests/fuzz/fuzz_trace_reg
FUZZ_TRACE_REG_SRCS := pmda_trace/core/reg.c $(TRACE_REG_GEN)

$(FUZZ_TRACE_REG): tests/fuzz/fuzz_trace_reg.c $(FUZZ_TRACE_REG_SRCS) pmda_trace/core/reg.h \
		common/trace_shm.h $(TRACE_REG_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_trace_reg.c $(FUZZ_TRACE_REG_SRCS) \
		$(PROTOBUF_LIBS)

$(eval $(call fuzz_target,trace-reg,trace_reg,1024))

# The trace agent's OTLP decoder (protobuf-c, json-c, zlib).
FUZZ_OTLP := $(B)/tests/fuzz/fuzz_otlp_decode

$(FUZZ_OTLP): tests/fuzz/fuzz_otlp_decode.c $(OTLP_DECODE_SRCS) pmda_trace/otlp/otlp.h \
		pmda_trace/otlp/otlp_priv.h $(OTLP_GEN_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_otlp_decode.c $(OTLP_DECODE_SRCS) $(OTLP_LIBS)

$(eval $(call fuzz_target,otlp-decode,otlp_decode,65536))

# The OTLP protobuf walker against protobuf-c, on the same bytes.
FUZZ_OTLP_PB_DIFF := $(B)/tests/fuzz/fuzz_otlp_pb_diff

$(FUZZ_OTLP_PB_DIFF): tests/fuzz/fuzz_otlp_pb_diff.c $(OTLP_DECODE_SRCS) pmda_trace/otlp/otlp.h \
		pmda_trace/otlp/otlp_priv.h pmda_trace/otlp/otlp_fields.h $(OTLP_GEN_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_otlp_pb_diff.c $(OTLP_DECODE_SRCS) $(OTLP_LIBS)

$(eval $(call fuzz_target,otlp-pb-diff,otlp_pb_diff,65536))

# The OTLP JSON walker against json-c's path, differentially (same bytes,
# same outcome but for the differences the target's source lists).
FUZZ_OTLP_JSON_DIFF := $(B)/tests/fuzz/fuzz_otlp_json_diff

$(FUZZ_OTLP_JSON_DIFF): tests/fuzz/fuzz_otlp_json_diff.c $(OTLP_DECODE_SRCS) pmda_trace/otlp/otlp.h \
		pmda_trace/otlp/otlp_priv.h pmda_trace/otlp/otlp_fields.h $(OTLP_GEN_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_otlp_json_diff.c $(OTLP_DECODE_SRCS) $(OTLP_LIBS)

$(eval $(call fuzz_target,otlp-json-diff,otlp_json_diff,65536,tests/fuzz/otlp_json.dict))

# The OpenTelemetry metrics decoder (protobuf-c, json-c), over the OTLP
# decoder's pre-scan, arena and JSON parsing.
FUZZ_OTEL := $(B)/tests/fuzz/fuzz_otel_decode

$(FUZZ_OTEL): tests/fuzz/fuzz_otel_decode.c $(OTLP_DECODE_SRCS) $(OTEL_DECODE_SRCS) \
		pmda_trace/otel/decode.h pmda_trace/otel/otel.h pmda_trace/otlp/otlp.h \
		pmda_trace/otlp/otlp_priv.h pmda_trace/otlp/pbc.h $(OTLP_GEN_H) $(OTEL_GEN_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_otel_decode.c $(OTLP_DECODE_SRCS) \
		$(OTEL_DECODE_SRCS) $(OTLP_LIBS)

$(eval $(call fuzz_target,otel-decode,otel_decode,65536,tests/fuzz/otel_json.dict))
