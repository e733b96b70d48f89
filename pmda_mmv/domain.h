/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PMDA domains of the MMV agent: mmv and pmproxy. */
#define MMV 70
#define PMPROXY 4
