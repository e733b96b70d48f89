/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table: see spans.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "label_text.h"
#include "spans.h"
#include "utf8.h"

struct tra_spans {
	struct trace_agg *agg;
	size_t cap;
	uint64_t idle;
	pthread_mutex_t lock;	/* a new name's creation, expiry, reset */
	uint64_t overflow_cap, overflow_bytes;	/* atomic */
};

#define OVERFLOW_NOTE "{\"service_name\":\"_overflow\",\"span_name\":\"_overflow\"}"

/* Room in the note for each name's escaped text: with the keys, under TRA_SPAN_NOTE_MAX. */
#define NOTE_NS_WIDTH	150
#define NOTE_SVC_WIDTH	300
#define NOTE_NAME_WIDTH	400

struct tra_spans *tra_spans_new(unsigned period_sec, unsigned buckets, size_t cap,
		size_t max_bytes, uint64_t idle, trace_clock_fn clock, void *clock_arg)
{
	struct tra_spans *s;

	if (cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	/* the agg's cap is ours: the overflow instance is exempt from it */
	if ((s->agg = tra_agg_new(period_sec, buckets, cap, clock, clock_arg)) == NULL) {
		int e = errno;

		free(s);
		errno = e;
		return NULL;
	}
	tra_agg_set_budget(s->agg, max_bytes ? max_bytes : TRA_SPAN_BYTES_DEFAULT,
			   TRA_SPAN_OVERFLOW, sizeof(TRA_SPAN_OVERFLOW) - 1);
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

static const char *const kind_names[] = {
	"unspecified", "internal", "server", "client", "producer", "consumer",
};
#define NKINDS ((int)(sizeof(kind_names) / sizeof(kind_names[0])))

const char *tra_span_kind_name(int kind)
{
	return kind > 0 && kind < NKINDS ? kind_names[kind] : kind_names[0];
}

/*
 * @s cut to @max bytes into @out, each ' ' (and, in the service part
 * (@job), each '/' and ':') as '_': how many bytes.
 */
static size_t put_name(char *out, const char *s, size_t max, int job)
{
	size_t n = sdk_utf8_cut(s, strlen(s), max);

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		out[i] = c == ' ' || (job && (c == '/' || c == ':')) ? '_' : c;
	}
	return n;
}

/* The instance name of @id (spans.h) into @tag (TRACE_TAG_MAX + 1 bytes): its length. */
static size_t instance_name(const struct tra_span_id *id, int kind, char *tag)
{
	const char *kn = tra_span_kind_name(kind);
	size_t o = 0, kl = strlen(kn);

	if (id->ns != NULL && id->ns[0] != '\0') {
		o = put_name(tag, id->ns, TRA_SPAN_NS_MAX, 1);
		tag[o++] = '/';
	}
	o += put_name(tag + o, id->service, TRA_SPAN_SERVICE_MAX, 1);
	tag[o++] = ':';
	memcpy(tag + o, kn, kl);
	o += kl;
	tag[o++] = '/';
	/* at most 63 + 1 + 127 + 1 + 11 + 1 bytes so far: the name keeps 51 or more */
	o += put_name(tag + o, id->name, TRACE_TAG_MAX - o, 0);
	tag[o] = '\0';
	return o;
}

/* The bytes of @s whose JSON escape (sdk_json_string) takes at most @width, whole characters. */
static size_t json_fit(const char *s, size_t width)
{
	size_t w = 0, i;

	for (i = 0; s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t cw = c == '"' || c == '\\' ? 2 : c < 0x20 ? 6 : 1;

		if (w + cw > width)
			break;
		w += cw;
	}
	return sdk_utf8_cut(s, strlen(s), i);
}

/*
 * Append ,"@key":@value (escaped, cut to @width bytes of escape) to the
 * note @out at *@o; the caller's widths keep it within TRA_SPAN_NOTE_MAX.
 */
static void note_member(char *out, size_t *o, const char *key, const char *value, size_t width)
{
	char cut[NOTE_NAME_WIDTH + 1];
	size_t n = json_fit(value, width), kl = strlen(key);
	int w;

	memcpy(cut, value, n);
	cut[n] = '\0';
	if (*o > 1)
		out[(*o)++] = ',';
	out[(*o)++] = '"';
	memcpy(out + *o, key, kl);
	*o += kl;
	out[(*o)++] = '"';
	out[(*o)++] = ':';
	/* sdk_json_string wants 8 bytes to spare at each character: the room left has them */
	w = sdk_json_string(out + *o, TRA_SPAN_NOTE_MAX - *o, cut);
	*o += w > 0 ? (size_t)w : 0;
}

/* @id's labels as JSON (spans.h) into @out (TRA_SPAN_NOTE_MAX bytes): its length. */
static size_t instance_note(const struct tra_span_id *id, int kind, char *out)
{
	size_t o = 0;

	out[o++] = '{';
	note_member(out, &o, "service_name", id->service, NOTE_SVC_WIDTH);
	if (id->ns != NULL && id->ns[0] != '\0')
		note_member(out, &o, "service_namespace", id->ns, NOTE_NS_WIDTH);
	note_member(out, &o, "span_name", id->name, NOTE_NAME_WIDTH);
	note_member(out, &o, "span_kind", tra_span_kind_name(kind), 16);
	out[o++] = '}';
	out[o] = '\0';
	return o;
}

/* Count the span in the overflow instance, sent there by @reason (one of s's counters). */
static int to_overflow(struct tra_spans *s, uint64_t seq, double secs,
		const struct trace_extra *x, uint64_t *reason)
{
	struct trace_extra ox = { x->flagged, x->attr, OVERFLOW_NOTE, sizeof(OVERFLOW_NOTE) - 1 };
	int inst = tra_agg_record_ex(s->agg, seq, TRACE_TRANSACT, TRA_SPAN_OVERFLOW,
				     sizeof(TRA_SPAN_OVERFLOW) - 1, secs, &ox);

	if (inst > 0)
		__atomic_add_fetch(reason, 1, __ATOMIC_RELAXED);
	return inst;
}

int tra_spans_record(struct tra_spans *s, const struct tra_span_id *id, int error,
		uint64_t start_ns, uint64_t end_ns)
{
	char tag[TRACE_TAG_MAX + 1], note[TRA_SPAN_NOTE_MAX];
	int kind = id != NULL && id->kind > 0 && id->kind < NKINDS ? id->kind : 0;
	struct trace_extra x = { error != 0, kind, NULL, 0 };
	uint64_t seq, *reason;
	size_t len;
	double secs;
	int inst;

	if (id == NULL || id->service == NULL || id->name == NULL ||
	    id->service[0] == '\0' || id->name[0] == '\0' || start_ns == 0 || end_ns < start_ns)
		return -EINVAL;
	len = instance_name(id, kind, tag);
	secs = (double)(end_ns - start_ns) / 1e9;
	seq = tra_agg_seq(s->agg);
	/*
	 * A name with an instance: one lookup, no lock of ours (the agg
	 * serialises with expiry and reset itself). -ENOSPC there is the
	 * budget refusing a new chunk or a wider span.
	 */
	inst = tra_agg_update_ex(s->agg, seq, TRACE_TRANSACT, tag, len, secs, &x);
	if (inst == -ENOSPC)
		return to_overflow(s, seq, secs, &x, &s->overflow_bytes);
	if (inst != -ENOENT)
		return inst;
	/* a new name: its labels, its creation serialised with expiry and reset */
	x.note = note;
	x.note_len = instance_note(id, kind, note);
	pthread_mutex_lock(&s->lock);
	reason = &s->overflow_bytes;
	if (tra_agg_lookup(s->agg, TRACE_TRANSACT, tag) < 0 &&
	    tra_agg_ntags(s->agg, TRACE_TRANSACT) >= s->cap)
		reason = &s->overflow_cap;	/* (tags only come and go under our lock) */
	inst = tra_agg_record_ex(s->agg, seq, TRACE_TRANSACT, tag, len, secs, &x);
	pthread_mutex_unlock(&s->lock);
	if (inst == -ENOSPC)
		return to_overflow(s, seq, secs, &x, reason);
	return inst;
}

void tra_spans_usage(struct tra_spans *s, struct tra_spans_usage *u)
{
	memset(u, 0, sizeof(*u));
	tra_agg_usage(s->agg, &u->agg);
	u->overflow_cap = __atomic_load_n(&s->overflow_cap, __ATOMIC_RELAXED);
	u->overflow_bytes = __atomic_load_n(&s->overflow_bytes, __ATOMIC_RELAXED);
	u->instances = u->agg.tags[TRACE_TRANSACT] +
		       (tra_agg_lookup(s->agg, TRACE_TRANSACT, TRA_SPAN_OVERFLOW) > 0);
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
