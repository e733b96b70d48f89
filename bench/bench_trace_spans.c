/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table alone (pmda_trace/core/spans.c): ns per tra_spans_record
 * of a name that has its instance, as the OTLP receiver calls it for each
 * decoded span; 100 names of one service, durations spread over 1 us to
 * 1 s, -T 60 -N 5, cap 10,000. One thread, no sockets, no decoding: the
 * table's part of bench/run-otlp.sh's CPU per span. Prints "key value unit".
 */
#include <stdint.h>
#include <stdio.h>
#include <urcu.h>

#include "spans.h"
#include "bench_util.h"

#define NNAMES 100
#define CALLS 1000000

int main(void)
{
	char names[NNAMES][32];
	struct tra_spans *s;
	double best = 1e30;

	rcu_register_thread();
	if ((s = tra_spans_new(60, 5, 10000, 0, 0, NULL, NULL)) == NULL) {
		perror("bench_trace_spans: tra_spans_new");
		return 1;
	}
	for (int i = 0; i < NNAMES; i++)
		snprintf(names[i], sizeof(names[i]), "GET operation-%02d", i);
	for (int r = 0; r < 15; r++) {	/* the best of 15 rounds of CALLS */
		double t0 = now_ns(), ns;

		for (int i = 0; i < CALLS; i++) {
			struct tra_span_id id = { "checkout-service", NULL, names[(i * 7) % NNAMES], 2 };

			tra_spans_record(s, &id, 0, 1000,
					 1000 + (uint64_t)(i % 977) * 1022 * (1 + i % 1000));
		}
		ns = (now_ns() - t0) / CALLS;
		if (ns < best)
			best = ns;
	}
	printf("spans_record %.1f ns/span\n", best);
	tra_spans_free(s);
	rcu_unregister_thread();
	return 0;
}
