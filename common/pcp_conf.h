/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolve PCP configuration variables without linking libpcp.
 *
 * Order (the same result libpcp's pmGetConfig gives): the process
 * environment; then the first readable of $PCP_CONF, $PCP_DIR/etc/pcp.conf,
 * /etc/pcp.conf, /usr/local/etc/pcp.conf; then a built-in default.
 * Unlike libpcp this never writes the environment and never exits the
 * process when pcp.conf is missing.
 */
#ifndef PCP_CONF_H
#define PCP_CONF_H

#include <stddef.h>

/*
 * Copy the value of configuration variable @name into @buf (@len bytes).
 * @fallback is used when the variable is set nowhere (may be NULL: "").
 * Returns 0, or -ENAMETOOLONG if the value does not fit in @buf.
 */
int sdk_pcp_conf_get(const char *name, const char *fallback, char *buf, size_t len);

/* PCP_TMP_DIR, defaulting to Debian's /var/lib/pcp/tmp. Same returns. */
int sdk_pcp_conf_tmp_dir(char *buf, size_t len);

#endif
