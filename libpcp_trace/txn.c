/*
 * Per-tag transaction state. A tag is either in progress (with its start
 * time) or idle; entries are never removed, as in the reference. The
 * table is a glibc binary tree under one mutex, held only for the lookup
 * and update, never across I/O. Times come from CLOCK_MONOTONIC so clock
 * steps cannot produce wrong or negative durations.
 */
#include <errno.h>
#include <pthread.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "trace_priv.h"

struct txn {
	char *tag;
	int in_progress;
	struct timespec start;
};

static pthread_mutex_t txn_lock = PTHREAD_MUTEX_INITIALIZER;
static void *txn_root;

static int txn_cmp(const void *a, const void *b)
{
	return strcmp(((const struct txn *)a)->tag, ((const struct txn *)b)->tag);
}

static struct txn *txn_find(const char *tag)
{
	struct txn probe = { .tag = (char *)tag };
	struct txn **found = tfind(&probe, &txn_root, txn_cmp);

	return found != NULL ? *found : NULL;
}

static struct txn *txn_add(const char *tag)
{
	struct txn *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->tag = strdup(tag);
	if (t->tag == NULL || tsearch(t, &txn_root, txn_cmp) == NULL) {
		free(t->tag);
		free(t);
		return NULL;
	}
	return t;
}

int trace_txn_begin(const char *tag)
{
	struct txn *t;
	int rc = 0;

	pthread_mutex_lock(&txn_lock);
	t = txn_find(tag);
	if (t == NULL)
		t = txn_add(tag);
	if (t == NULL) {
		rc = -ENOMEM;
	} else if (t->in_progress) {
		rc = PMTRACE_ERR_INPROGRESS;
	} else {
		t->in_progress = 1;
		clock_gettime(CLOCK_MONOTONIC, &t->start);
	}
	pthread_mutex_unlock(&txn_lock);
	return rc;
}

static int txn_stop(const char *tag, struct timespec *start)
{
	struct txn *t;
	int rc = 0;

	pthread_mutex_lock(&txn_lock);
	t = txn_find(tag);
	if (t == NULL) {
		rc = PMTRACE_ERR_NOSUCHTAG;
	} else if (!t->in_progress) {
		rc = PMTRACE_ERR_NOPROGRESS;
	} else {
		t->in_progress = 0;
		if (start != NULL)
			*start = t->start;
	}
	pthread_mutex_unlock(&txn_lock);
	return rc;
}

int trace_txn_end(const char *tag, double *elapsed)
{
	struct timespec now, start;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &now);
	rc = txn_stop(tag, &start);
	if (rc == 0)
		*elapsed = (double)(now.tv_sec - start.tv_sec) +
			(double)(now.tv_nsec - start.tv_nsec) / 1e9;
	return rc;
}

int trace_txn_abort(const char *tag)
{
	return txn_stop(tag, NULL);
}

static void txn_free(void *p)
{
	struct txn *t = p;

	free(t->tag);
	free(t);
}

/* A forked child starts with no transactions, as with PCP's pid key. */
void trace_txn_atfork_child(void)
{
	pthread_mutex_init(&txn_lock, NULL);
	tdestroy(txn_root, txn_free);
	txn_root = NULL;
}
