# The Acme factory demo, built against our headers and library.
ACME := $(B)/bin/acme
BIN_TARGETS += $(ACME)

$(ACME): demos/acme/acme.c $(MMV_SO) $(B)/lib/libpcp_mmv.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -Wl,-rpath,'$$ORIGIN/../lib'

demo: all
	@sh demos/acme/demo.sh
