# Unit tests (cmocka), one file per module, built with ASan+UBSan against
# the sanitizer build of the libraries. tests/unit/test_<name>.c becomes
# build/tests/unit/test_<name>; each links every archive in SAN_ARCHIVES
# (components append theirs, and any libraries they need to UNIT_LDLIBS).
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_PROGS := $(UNIT_SRCS:%.c=$(B)/%)
TEST_PROGS += $(UNIT_PROGS)

$(B)/tests/unit/%: tests/unit/%.c $(SAN_ARCHIVES)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(SANFLAGS) -MMD -MP -o $@ $< $(SAN_ARCHIVES) $(UNIT_LDLIBS) -lcmocka -lpthread -lm
