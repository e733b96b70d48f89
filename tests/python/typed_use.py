# SPDX-License-Identifier: GPL-2.0-or-later
"""A small service, typed as a user would type it, that uses pcpsdk the way
the README does: a Registry, a counter with instances, a histogram,
transactions as a decorator and a with-block, a point and observations.
tests/python/mypy.sh checks it with mypy --strict (nothing runs it): the
package's annotations must let such a program through, decorators keeping
the types of what they wrap."""
from __future__ import annotations

from typing import Dict, List

import pcpsdk


def serve(orders: List[int]) -> float:
    reg = pcpsdk.Registry("web", labels={"service": "shop"})
    requests = reg.counter("requests", "Requests served",
                           instances=["GET", "POST"])
    served = reg.counter("served", "All requests")
    latency = reg.histogram("latency", "Request time", lo=64, hi=1 << 20,
                            units="usec")
    reg.start()

    @pcpsdk.transaction("checkout")     # a trace transaction per call
    @latency                            # and its time in the histogram
    def checkout(items: int) -> float:
        requests["POST"].inc()
        return items * 9.5

    total = 0.0
    for items in orders:
        total += checkout(items)        # float: the decorators keep it
        served.inc()
    with pcpsdk.transaction("browse"):
        pcpsdk.point("browse.page")
        requests["GET"].inc(2)
    with latency.time():
        pcpsdk.observe("basket.size", float(len(orders)))
    latency.observe(250)
    libs: Dict[str, str] = pcpsdk.loaded_libraries()
    reg.stop()
    return total if libs else 0.0


if __name__ == "__main__":
    print(serve([1, 2, 3]))
