/* The trace agent's performance metrics domain (PCP's stdpmid: TRACE). */
#define TRACE 10
