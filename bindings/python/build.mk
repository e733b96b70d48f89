# SPDX-License-Identifier: LGPL-2.1-or-later
# The Python binding (bindings/python/pcpsdk): pure Python over our
# libraries through cffi's ABI mode, so nothing is built. make install
# copies the package into PYDIR, a folder Debian's python3 searches:
# /usr/lib/python3/dist-packages for PREFIX=/usr, else
# PREFIX/lib/python3.X/dist-packages (/usr/local/lib/python3.11/... by
# default). make deb packages the same files as python3-pcpsdk
# (debian/rules: PYDIR=/usr/lib/python3/dist-packages). pyproject.toml
# lets pip build it too (tests/python/test_install.py).
PYTHON ?= /usr/bin/python3
PY_VER := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PY_VER)/dist-packages)
PY_FILES := __init__.py _fail.py _lib.py mmv.py trace.py py.typed

INSTALL_TARGETS += install-python
# (the __pycache__ glob: what python3 compiled there when root imported it)
INSTALLED += $(addprefix $(PYDIR)/pcpsdk/,$(PY_FILES) __pycache__/*.pyc)
# (the folder too: left empty, python3 would import it as a namespace package)
INSTALLED_DIRS += $(PYDIR)/pcpsdk/__pycache__ $(PYDIR)/pcpsdk
.PHONY: install-python
install-python:
	install -d $(DESTDIR)$(PYDIR)/pcpsdk
	install -m 0644 $(addprefix bindings/python/pcpsdk/,$(PY_FILES)) $(DESTDIR)$(PYDIR)/pcpsdk/
