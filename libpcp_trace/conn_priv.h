/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Connection helpers shared by connect.c and conn.c. */
#ifndef CONN_PRIV_H
#define CONN_PRIV_H

long trace__now_ms(void);
long trace__seconds_ms(double s);
int trace__poll(int fd, short events, long ms);
int trace__open_agent(int *fdp, int *greeting, int *agent_pid);

#endif /* CONN_PRIV_H */
