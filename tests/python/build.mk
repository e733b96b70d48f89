# SPDX-License-Identifier: GPL-2.0-or-later
# The Python binding's tests (bindings/python): pytest through a TAP
# wrapper. They need our libraries and MMV agent, the pmcd helper, a C
# writer making the same calls as the Python one (test_bytes.py), and
# mmvmask (tests/compat) for the bytes a comparison ignores.
# tests/python/mypy.sh: mypy --strict over the package and a typed user
# program (tests/python/typed_use.py); it needs nothing built.
PY_TEST_DIR := $(B)/tests/python
PY_WRITER := $(PY_TEST_DIR)/writer
TEST_SCRIPTS += tests/python/pytest.sh tests/python/wrapper.sh tests/python/mypy.sh
check: $(PY_WRITER) $(COMPAT_DIR)/mmvmask

$(PY_WRITER): tests/python/writer.c $(MMV_SO) $(B)/lib/libpcp_mmv.so include/pcp/mmv_histogram.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -Wl,-rpath,$(abspath $(B)/lib)
