/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CORS for the OTLP/HTTP receiver (docs/trace-protocol.md §12.8): which
 * origins a browser's page may send spans from (-C), and the headers of
 * the answer to its preflight. Off unless the agent is given a list: a
 * receiver without one answers OPTIONS 405, as before. Names start with
 * otlp_cors_.
 *
 * A list is origins separated by commas (blanks around them ignored),
 * each as the OpenTelemetry Collector's cors.allowed_origins takes them
 * (its confighttp, over github.com/rs/cors): an exact origin
 * ("http://127.0.0.1:8080"); one with a single '*' standing for zero or
 * more characters (https, "://", then "*.example.com" takes
 * "https://shop.example.com", not "https://example.com"); or "*" alone,
 * any origin. Origins compare without regard to case, as the Collector's.
 *
 * Threads: reentrant; the list is read, never written.
 */
#ifndef OTLP_CORS_H
#define OTLP_CORS_H

#include <stddef.h>

#define OTLP_CORS_MAX_AGE	7200	/* seconds a browser may keep a preflight's answer */
#define OTLP_CORS_ORIGIN_MAX	256	/* longest origin in a list */
#define OTLP_CORS_HEADERS_MAX	256	/* longest Access-Control-Request-Headers echoed */

/*
 * otlp_cors_check - is @list a list of origins? 0, or -1 with @why
 * (@cap bytes) saying what is wrong (an empty one, a blank or a control
 * character inside one, more than one '*', one too long).
 */
int otlp_cors_check(const char *list, char *why, size_t cap);

/* otlp_cors_match - does @origin match @pattern (@len bytes)? 1 or 0. */
int otlp_cors_match(const char *pattern, size_t len, const char *origin);

/* otlp_cors_allowed - does @list (checked) allow @origin? 0 for NULL or "" either. */
int otlp_cors_allowed(const char *list, const char *origin);

/*
 * otlp_cors_allow_headers - the Access-Control-Allow-Headers of a
 * preflight whose Access-Control-Request-Headers is @requested (NULL:
 * none) into @out (@cap bytes, at least 16): "Content-Type", then
 * @requested when it is a list of header names of at most
 * OTLP_CORS_HEADERS_MAX bytes (anything else is left out: the browser
 * then refuses the header it asked for, not the spans).
 */
void otlp_cors_allow_headers(const char *requested, char *out, size_t cap);

#endif
