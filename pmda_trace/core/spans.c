/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table: see spans.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "spans.h"

struct tra_spans {
	struct trace_agg *agg;
	size_t cap;
	uint64_t idle;
	pthread_mutex_t lock;	/* a new name's cap check and creation, expiry, reset */
};

struct tra_spans *tra_spans_new(unsigned period_sec, unsigned buckets, size_t cap,
		uint64_t idle, trace_clock_fn clock, void *clock_arg)
{
	struct tra_spans *s;

	if (cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	/* the agg's own cap is a backstop: ours plus the overflow instance */
	if ((s->agg = tra_agg_new(period_sec, buckets, cap + 1, clock, clock_arg)) == NULL) {
		int e = errno;

		free(s);
		errno = e;
		return NULL;
	}
	tra_agg_forget_expired(s->agg);
	s->cap = cap;
	s->idle = idle;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

void tra_spans_free(struct tra_spans *s)
{
	if (s == NULL)
		return;
	tra_agg_free(s->agg);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

struct trace_agg *tra_spans_agg(struct tra_spans *s)
{
	return s->agg;
}

const char *tra_span_kind_name(int kind)
{
	static const char *const names[] = {
		"unspecified", "internal", "server", "client", "producer", "consumer",
	};

	return kind > 0 && kind < (int)(sizeof(names) / sizeof(names[0])) ? names[kind] : names[0];
}

/* @n bytes of UTF-8 @s cut to at most @max, at a character boundary. */
static size_t utf8_cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;	/* s[max] continues a character: cut before it */
	return max;
}

int tra_spans_record(struct tra_spans *s, const char *service, const char *name,
		int kind, int error, uint64_t start_ns, uint64_t end_ns)
{
	char tag[TRACE_TAG_MAX + 1];
	size_t ls, ln;
	struct trace_extra x = { error != 0, kind };
	uint64_t seq;
	double secs;
	int inst;

	if (service == NULL || name == NULL || end_ns < start_ns)
		return -EINVAL;
	ls = strlen(service);
	ln = strlen(name);
	if (ls == 0 || ln == 0 || memchr(service, '/', ls) || memchr(name, '/', ln))
		return -EINVAL;
	/* an instance name is a trace tag, at most TRACE_TAG_MAX bytes */
	ls = utf8_cut(service, ls, TRA_SPAN_SERVICE_MAX);
	ln = utf8_cut(name, ln, TRACE_TAG_MAX - 1 - ls);
	if (ls == 0 || ln == 0)
		return -EINVAL;
	memcpy(tag, service, ls);
	tag[ls] = '/';
	memcpy(tag + ls + 1, name, ln);
	tag[ls + 1 + ln] = '\0';
	secs = (double)(end_ns - start_ns) / 1e9;
	seq = tra_agg_seq(s->agg);
	/*
	 * A name with an instance: one lookup, no lock of ours (the agg
	 * serialises with expiry and reset itself). Only a new name takes
	 * the lock, for the cap check and its creation.
	 */
	inst = tra_agg_update_ex(s->agg, seq, TRACE_TRANSACT, tag, ls + 1 + ln, secs, &x);
	if (inst != -ENOENT)
		return inst;
	pthread_mutex_lock(&s->lock);
	if (tra_agg_lookup(s->agg, TRACE_TRANSACT, tag) < 0 &&
	    tra_agg_ntags(s->agg, TRACE_TRANSACT) >= s->cap + (tra_agg_lookup(s->agg,
			TRACE_TRANSACT, TRA_SPAN_OVERFLOW) > 0)) {
		inst = -ENOSPC;	/* a new name beyond the cap */
	} else {
		inst = tra_agg_record_ex(s->agg, seq, TRACE_TRANSACT, tag, ls + 1 + ln, secs, &x);
	}
	if (inst == -ENOSPC)
		inst = tra_agg_record_ex(s->agg, seq, TRACE_TRANSACT, TRA_SPAN_OVERFLOW,
					 sizeof(TRA_SPAN_OVERFLOW) - 1, secs, &x);
	pthread_mutex_unlock(&s->lock);
	return inst;
}

int tra_spans_expire(struct tra_spans *s)
{
	int n;

	if (s->idle == 0)
		return 0;
	pthread_mutex_lock(&s->lock);
	n = tra_agg_expire(s->agg, TRACE_TRANSACT, s->idle);
	pthread_mutex_unlock(&s->lock);
	return n;
}

void tra_spans_reset(struct tra_spans *s)
{
	pthread_mutex_lock(&s->lock);
	tra_agg_reset(s->agg);
	pthread_mutex_unlock(&s->lock);
}
