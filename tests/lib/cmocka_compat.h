/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmocka_compat.h - the unit tests' assertions on cmocka 1 (Debian 12, 13)
 * and 2 (Debian unstable), which deprecates assert_in_range for
 * assert_int_in_range and assert_uint_in_range. Include after <cmocka.h>.
 */
#ifndef SDK_CMOCKA_COMPAT_H
#define SDK_CMOCKA_COMPAT_H

#ifndef assert_uint_in_range
#define assert_uint_in_range(v, lo, hi)	assert_in_range(v, lo, hi)
#endif

#endif
