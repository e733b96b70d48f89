# SPDX-License-Identifier: LGPL-2.1-or-later
"""pcpsdk: Python services' metrics and transactions for Performance Co-Pilot.

Metrics go to an MMV file through the SDK's libpcp_mmv.so.1 (served by an
MMV agent as mmv.<file>.<metric>); transactions, points and observations
go to the trace agent through libpcp_trace.so.2. Both libraries are loaded
through cffi in ABI mode (no compiler needed). See docs/python.md.

Instrumentation never breaks the program: a call that fails (no trace
agent, a bad name, no MMV directory) is counted, in failures() and in
each started Registry's metric pcpsdk.failures, logged once (logger
"pcpsdk"), and returns; set_strict(True), PCPSDK_STRICT=1 or strict=True
on a Registry or trace call make failures raise.

    import pcpsdk
    reg = pcpsdk.Registry("web")
    hits = reg.counter("requests", "Requests served", instances=["GET", "POST"])
    lat = reg.histogram("latency", "Request time", lo=64, hi=1 << 20)
    reg.start()
    hits["GET"].inc()
    with lat.time(), pcpsdk.transaction("GET /"):
        ...
"""
from ._fail import failures, set_strict
from ._lib import loaded_libraries
from .mmv import (ContentionFreeCounter, Counter, Gauge, Histogram, Indom,
                  MMVError, Registry, String, Timer, Units)
from .trace import (TraceError, Transaction, counter, observe, point,
                    set_async, transact, transaction)

__version__ = "1.1.0"
__all__ = ["Registry", "Indom", "Units", "Counter", "ContentionFreeCounter",
           "Gauge", "String",
           "Timer", "Histogram", "MMVError", "TraceError", "Transaction",
           "transaction", "transact", "point", "observe", "counter",
           "set_async", "loaded_libraries", "failures", "set_strict"]
