/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trace agent's performance metrics domain (PCP's stdpmid: TRACE). */
#define TRACE 10
