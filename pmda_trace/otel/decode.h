/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TEMPORARY stub of helper A's API, to compile the glue early. */
#ifndef OTEL_DECODE_H
#define OTEL_DECODE_H
#include "otel.h"
#include "../otlp/otlp.h"
struct otel_result { uint64_t accepted, rejected; uint64_t rejected_by[OTEL_REJECT_N]; char message[160]; };
typedef int (*otel_point_fn)(void *arg, const struct otel_resource *r, const struct otel_metric *m, const struct otel_point *p);
int otel_decode(enum otlp_encoding enc, const void *body, size_t len, size_t mem_max, otel_point_fn fn, void *arg, struct otel_result *res);
int otel_answer(enum otlp_encoding enc, const struct otel_result *res, void *buf, size_t cap);
#endif
