# SPDX-License-Identifier: GPL-2.0-or-later
# make demo-python: the Acme factory as a Python service on the binding
# (demos/acme-python/acme.py), read by pmrep through a private pmcd with our
# MMV and trace agents. `make demo` is unchanged.
.PHONY: demo-python
demo-python: all
	@sh demos/acme-python/demo.sh
