# libFuzzer targets (clang). Each is built from its sources directly, so
# clang's sanitizer runtimes are not mixed with the gcc-built archives.
# `make check` runs each briefly through a TAP script; `make fuzz` at length.
FUZZ_CC := clang
FUZZ_CFLAGS := $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(CPPFLAGS_ALL)

# The MMV reader core.
FUZZ_MMV_READER := $(B)/tests/fuzz/fuzz_mmv_reader
FUZZ_MMV_READER_CORPUS := tests/fuzz/corpus/mmv_reader

$(FUZZ_MMV_READER): tests/fuzz/fuzz_mmv_reader.c $(MMV_READER_SRCS) \
		pmda_mmv/reader/reader.h pmda_mmv/reader/reader_priv.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_mmv_reader.c \
		$(MMV_READER_SRCS) -lm

check: $(FUZZ_MMV_READER)
TEST_SCRIPTS += tests/fuzz/run-mmv-reader.sh

.PHONY: fuzz-mmv-reader
fuzz: fuzz-mmv-reader
fuzz-mmv-reader: $(FUZZ_MMV_READER)
	@mkdir -p $(B)/fuzz/mmv_reader
	$(FUZZ_MMV_READER) -max_total_time=$${FUZZ_SECONDS:-600} -max_len=65536 \
		$(B)/fuzz/mmv_reader $(FUZZ_MMV_READER_CORPUS)

# The trace agent's PDU decoding and aggregation.
FUZZ_TRACE_PDU := $(B)/tests/fuzz/fuzz_trace_pdu
FUZZ_TRACE_PDU_SRCS := pmda_trace/core/pdu.c pmda_trace/core/agg.c common/trace_decode.c

$(FUZZ_TRACE_PDU): tests/fuzz/fuzz_trace_pdu.c $(FUZZ_TRACE_PDU_SRCS) \
		pmda_trace/core/pdu.h pmda_trace/core/agg.h common/trace_decode.h common/trace_wire.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_trace_pdu.c \
		$(FUZZ_TRACE_PDU_SRCS) -lurcu -lurcu-cds -lpthread

check: $(FUZZ_TRACE_PDU)
TEST_SCRIPTS += tests/fuzz/run-trace-pdu.sh

.PHONY: fuzz-trace-pdu
fuzz: fuzz-trace-pdu
fuzz-trace-pdu: $(FUZZ_TRACE_PDU)
	@mkdir -p $(B)/fuzz/trace_pdu
	$(FUZZ_TRACE_PDU) -max_total_time=$${FUZZ_SECONDS:-600} -max_len=4096 \
		$(B)/fuzz/trace_pdu tests/fuzz/corpus/trace_pdu

# The trace agent's decoder of shared segment registrations (protobuf-c).
FUZZ_TRACE_REG := $(B)/tests/fuzz/fuzz_trace_reg
FUZZ_TRACE_REG_SRCS := pmda_trace/core/reg.c $(TRACE_REG_GEN)

$(FUZZ_TRACE_REG): tests/fuzz/fuzz_trace_reg.c $(FUZZ_TRACE_REG_SRCS) pmda_trace/core/reg.h \
		common/trace_shm.h $(TRACE_REG_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_trace_reg.c $(FUZZ_TRACE_REG_SRCS) \
		$(PROTOBUF_LIBS)

check: $(FUZZ_TRACE_REG)
TEST_SCRIPTS += tests/fuzz/run-trace-reg.sh

.PHONY: fuzz-trace-reg
fuzz: fuzz-trace-reg
fuzz-trace-reg: $(FUZZ_TRACE_REG)
	@mkdir -p $(B)/fuzz/trace_reg
	$(FUZZ_TRACE_REG) -max_total_time=$${FUZZ_SECONDS:-600} -max_len=1024 \
		$(B)/fuzz/trace_reg tests/fuzz/corpus/trace_reg
