/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sdk_tsan.h - telling ThreadSanitizer what liburcu orders. liburcu is
 * not instrumented, so TSan sees neither a grace period nor the ordering
 * of a node published in a lock-free hash table: code that relies on
 * them says so with tsan_release(p) (everything before this happens
 * before...) and tsan_acquire(p) (...everything after this) on the same
 * address. Outside a TSan build both are nothing.
 */
#ifndef SDK_TSAN_H
#define SDK_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define SDK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SDK_TSAN 1
#endif
#endif

#ifdef SDK_TSAN
#include <sanitizer/tsan_interface.h>
#define tsan_acquire(p)	__tsan_acquire((void *)(p))
#define tsan_release(p)	__tsan_release((void *)(p))
#else
#define tsan_acquire(p)	((void)(p))
#define tsan_release(p)	((void)(p))
#endif

#endif
