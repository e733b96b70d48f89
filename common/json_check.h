/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json_check.h - strict JSON validation (RFC 8259) for label payloads,
 * shared by the MMV writer (values it is asked to store) and the MMV agent
 * (payloads it reads from hostile files before libpcp_pmda sees them).
 */
#ifndef JSON_CHECK_H
#define JSON_CHECK_H

#include <stddef.h>

/*
 * sdk_json_value_valid - 1 if text[0..len) is exactly one JSON value, white
 * space around allowed; maps must not repeat a key (PCP refuses those).
 */
int sdk_json_value_valid(const char *text, size_t len);

/*
 * sdk_json_label_set_valid - 1 if text[0..len) is a label set as PCP's label
 * parser reads it whole: a JSON object of at least one member, every key
 * of every map at any depth a label name ([A-Za-z][A-Za-z0-9_]*; on
 * PCP 7, [A-Za-z0-9_]+) that its map does not repeat. PCP's parser takes cut-short and some invalid
 * JSON too and hands on broken text (or no labels at all), so valid JSON
 * is required here as well.
 */
int sdk_json_label_set_valid(const char *text, size_t len);

#endif
