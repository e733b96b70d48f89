# SPDX-License-Identifier: GPL-2.0-or-later
# Documentation: the format descriptions in docs/ and the man pages in
# man/man[135]. make install puts the pages (and a .so page for every
# other name a page lists under NAME) in $(MANDIR); make check renders
# each with warnings on (tests/docs/man_pages.sh). The programs README.md
# and docs/*.md quote (<!-- quote FILE -->, then a fenced block) are the
# files themselves, byte for byte (tests/docs/quoted.sh); every link of
# the Markdown leads somewhere (tests/docs/links.sh).
MAN_PAGES := $(sort $(wildcard man/man[1-8]/*.[1-8]))

TEST_SCRIPTS += tests/docs/man_pages.sh tests/docs/links.sh tests/docs/quoted.sh

INSTALL_TARGETS += install-man
.PHONY: install-man
MANEXT ?=
install-man: $(MAN_PAGES)
	sh scripts/install-man.sh $(DESTDIR)$(MANDIR) $(if $(MANEXT),-e $(MANEXT)) $(MAN_PAGES)

.PHONY: uninstall-man
uninstall: uninstall-man
uninstall-man:
	sh scripts/install-man.sh -n $(DESTDIR)$(MANDIR) $(if $(MANEXT),-e $(MANEXT)) $(MAN_PAGES) | xargs rm -f
