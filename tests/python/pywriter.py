# SPDX-License-Identifier: GPL-2.0-or-later
"""The Python writer of the byte comparison (test_bytes.py) and of the
agents' tests (test_agents.py): writes $PCP_TMP_DIR/mmv/bytes through the
binding with the calls tests/python/writer.c makes in C. The file stays
(process=False). With an argument, sleeps that many seconds before exit.
"""
import sys
import time

import pcpsdk


def write():
    reg = pcpsdk.Registry("bytes", 7, labels={"service": "web", "tier": 2},
                          process=False, failures_metric=False)
    methods = reg.indom(["GET", "POST"], help="HTTP methods",
                        longhelp="Methods seen", labels={"proto": "http"},
                        instance_labels={"GET": {"safe": True}})
    req = reg.counter("requests", "Requests served", instances=methods,
                      labels={"kind": "total"})
    byt = reg.counter("bytes", "Bytes sent", units="byte", instances=methods)
    temp = reg.gauge("temperature", "Core temperature")
    users = reg.gauge("users", type="i64", instances=["eu", "us"])
    ver = reg.string("version", "Build")
    busy = reg.timer("busy", "Time busy")
    lat = reg.histogram("latency", "Request latency", lo=16, hi=256,
                        sub_buckets=4)
    build = reg.histogram("build", lo=1, hi=8, sub_buckets=1,
                          instances=methods, item=100, labels={"team": "a"})
    reg.start()
    req["GET"].inc()
    req["POST"].inc(3)
    byt["GET"].inc(1500)
    temp.set(36.6)
    users["eu"].set(-5)
    users["us"].inc(7)
    ver.set("1.2.3")
    busy.add(1234)
    for v in (5, 16, 19, 255, 256, 1000):
        lat.observe(v)
    build["GET"].observe(8)
    build["POST"].observe(0)
    return reg


if __name__ == "__main__":
    r = write()
    if len(sys.argv) > 1:
        time.sleep(float(sys.argv[1]))
    r.stop()
