/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Connection helpers shared by connect.c and conn.c. */
#ifndef CONN_PRIV_H
#define CONN_PRIV_H

long trace_now_ms(void);
long trace_seconds_ms(double s);
int trace_poll(int fd, short events, long ms);
int trace_open_agent(int *fdp, int *greeting, int *agent_pid);

#endif /* CONN_PRIV_H */
