/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tra_vlog - one log line of the trace agent's modules, formatted from
 * @fmt and @ap into at most TRA_LOG_MAX bytes (cut beyond) and given to
 * @log at syslog priority @pri; nothing when @log is NULL. The OTLP
 * sink and the OpenTelemetry metrics store each wrap it in a function
 * of their own that takes the arguments.
 *
 * Threads: reentrant, as @log is.
 */
#ifndef TRA_VLOG_H
#define TRA_VLOG_H

#include <stdarg.h>
#include <stdio.h>

#define TRA_LOG_MAX	512

static inline void tra_vlog(void (*log)(int pri, const char *msg), int pri, const char *fmt,
			    va_list ap)
{
	char msg[TRA_LOG_MAX];

	if (log == NULL)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	log(pri, msg);
}

#endif
