# Unit tests (cmocka), one file per module, built with ASan+UBSan against
# the sanitizer build of the libraries. tests/unit/test_<name>.c becomes
# build/tests/unit/test_<name>; each links every sanitizer library archive.
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_PROGS := $(UNIT_SRCS:%.c=$(B)/%)
TEST_PROGS += $(UNIT_PROGS)

$(B)/tests/unit/%: tests/unit/%.c $(MMV_SAN_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(SANFLAGS) -o $@ $< $(MMV_SAN_A) -lcmocka -lpthread -lm
