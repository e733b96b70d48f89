# SPDX-License-Identifier: GPL-2.0-or-later
"""The Acme factory as a Python service on the pcpsdk binding (make
demo-python). Three products are built by worker threads; every build is

  - counted (products.count), its machine time summed (products.time, a
    Timer: PCP shows it as utilisation) and recorded in a histogram
    (products.buildtime, usec),
  - a trace transaction named after the product (trace.transact.*),

and the queue length is a gauge (queue.length), each arrival a trace point.
Runs for argv[1] seconds (default 20), then stops its file.
"""
import random
import sys
import threading
import time

import pcpsdk

PRODUCTS = {"Anvils": 0.010, "Rockets": 0.030, "Giant_Rubber_Bands": 0.005}


def main(seconds: float) -> None:
    reg = pcpsdk.Registry("acmepy", labels={"factory": "acme", "lang": "python"})
    products = reg.indom(list(PRODUCTS), help="Acme products")
    count = reg.counter("products.count", "Products built",
                        instances=products)
    busy = reg.timer("products.time", "Machine time spent building",
                     instances=products)
    build = reg.histogram("products.buildtime", "Build time per product",
                          lo=1024, hi=1 << 17, sub_buckets=2, units="usec",
                          instances=products)
    queue = reg.gauge("queue.length", "Orders waiting", type="i64")
    status = reg.string("status", "What the factory is doing")
    reg.start()
    status.set("running")
    stop = time.monotonic() + seconds

    def worker(product: str, mean: float) -> None:
        n, t, h = count[product], busy[product], build[product]

        @pcpsdk.transaction(product)
        @h
        def make() -> None:
            with t.time():
                time.sleep(random.expovariate(1 / mean))
        while time.monotonic() < stop:
            queue.inc()
            pcpsdk.point("arrival")
            make()
            queue.dec()
            n.inc()

    threads = [threading.Thread(target=worker, args=kv, daemon=True)
               for kv in PRODUCTS.items()]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    status.set("stopped")
    reg.stop()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 20)
