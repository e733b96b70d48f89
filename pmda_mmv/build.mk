# pmda_mmv reader core: the part of the MMV agent that knows nothing of
# pmcd, as archives for the PMDA front end (normal) and the unit tests and
# fuzzer (sanitizer build, appended to SAN_ARCHIVES).
MMV_READER_SRCS := pmda_mmv/arena.c pmda_mmv/file.c pmda_mmv/model.c \
	pmda_mmv/snapshot.c pmda_mmv/query.c pmda_mmv/fetch.c \
	pmda_mmv/rescan.c
MMV_READER_OBJS := $(MMV_READER_SRCS:%.c=$(B)/obj/%.o)
MMV_READER_SAN_OBJS := $(MMV_READER_SRCS:%.c=$(B)/san/%.o)
MMV_READER_A := $(B)/lib/libmmv_reader.a
MMV_READER_SAN_A := $(B)/san/lib/libmmv_reader.a

LIB_TARGETS += $(MMV_READER_A)
SAN_ARCHIVES += $(MMV_READER_SAN_A)
UNIT_LDLIBS += -lm

$(MMV_READER_A): $(MMV_READER_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(MMV_READER_SAN_A): $(MMV_READER_SAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
