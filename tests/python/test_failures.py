# SPDX-License-Identifier: GPL-2.0-or-later
"""Failed calls never break the program by default: they return, are
counted (pcpsdk.failures(), and the metric pcpsdk.failures of each started
Registry) and logged once; strict mode raises (test_api.py has the
errors themselves)."""
import logging
import os
import socket
import subprocess
import sys
import textwrap

import pytest

import pcpsdk
from conftest import OURS_SO, pminfo_local, raw


def counted(before, kind):
    return pcpsdk.failures()[kind] - before[kind]


def test_metric_failures_are_counted_not_raised(tmpdir_mmv, caplog):
    caplog.set_level(logging.WARNING, logger="pcpsdk")
    before = pcpsdk.failures()
    reg = pcpsdk.Registry("soft", process=False)
    bad = reg.counter("bad name")			# 1: EINVAL from the library
    far = reg.counter("far", item=5000)			# 2
    unit = reg.gauge("g", units="furlongs")		# 3
    hist = reg.histogram("h", lo=8, hi=4, instances=["a", "b"])  # 4
    ok = reg.counter("ok", instances=["x"])
    again = reg.counter("ok")				# 5: declared twice
    reg.start()
    reg.start()						# 6: EBUSY
    for m in (bad, far, again):
        m.inc()						# detached: nothing happens
    unit.set(1.5)
    hist["a"].observe(3)
    ok["x"].inc(2)
    ok["nope"].inc()					# 7: no such instance
    ok.inc()						# 8: has instances
    ok["x"].inc(-1)					# 9: counters only go up
    ok["x"].inc("many")					# 10: not a number
    assert raw(ok["x"]) == 2
    assert counted(before, "mmv") == 10 and counted(before, "trace") == 0
    # the file's own count, as PCP reads it (our agent)
    out, err = pminfo_local(OURS_SO, tmpdir_mmv, "-f", "mmv.soft.pcpsdk.failures")
    assert f'inst [0 or "mmv"] value {pcpsdk.failures()["mmv"]}' in out, out + err
    assert 'inst [1 or "trace"] value' in out
    # logged once per call and error, not once per failure
    ok["x"].inc(-1)
    ok["x"].inc(-1)
    ok["other"].inc()					# the same, another name
    texts = [r.getMessage() for r in caplog.records]
    assert sum("counters only go up" in t for t in texts) == 1
    assert sum("no instance" in t for t in texts) == 1
    assert len(texts) == 9	# "bad name" and item 5000: one EINVAL text
    reg.stop()


def test_a_failed_registry_is_contained(tmpdir_mmv):
    before = pcpsdk.failures()
    reg = pcpsdk.Registry("c", cluster=5000)		# EINVAL
    c = reg.counter("n")				# EFAULT: no registry
    reg.start()						# EFAULT
    c.inc()
    os.rmdir(tmpdir_mmv / "mmv")
    nodir = pcpsdk.Registry("nodir")
    n = nodir.counter("n")
    nodir.start()					# ENOENT
    n.inc()
    assert not nodir.started
    assert counted(before, "mmv") == 4
    assert pcpsdk.Units(space=9).word() == 0		# 5: no units
    assert counted(before, "mmv") == 5


def test_strict_per_registry(tmpdir_mmv):
    with pytest.raises(pcpsdk.MMVError):
        pcpsdk.Registry("s", strict=True).counter("bad name")
    pcpsdk.set_strict(True)
    try:
        before = pcpsdk.failures()
        pcpsdk.Registry("l", strict=False).counter("bad name")
        assert counted(before, "mmv") == 1
        with pytest.raises(pcpsdk.TraceError):
            pcpsdk.point("")
        pcpsdk.point("", strict=False)
    finally:
        pcpsdk.set_strict(False)


def test_failures_before_start_are_in_the_file(tmpdir_mmv):
    pcpsdk.point("")					# a trace failure first
    reg = pcpsdk.Registry("late").start()
    assert raw(reg._fm["trace"]) == pcpsdk.failures()["trace"] > 0
    pcpsdk.observe("", 1.0)
    assert raw(reg._fm["trace"]) == pcpsdk.failures()["trace"]
    mine = pcpsdk.Registry("mine", failures_metric=False).start()
    assert mine._fm is None
    mine.stop()
    reg.stop()


HANDLER = textwrap.dedent("""
    import asyncio, os, sys, threading, time, pcpsdk
    ran = []

    @pcpsdk.transaction("checkout")
    def handler(i):
        ran.append(i)
        return i

    def serve(base):
        for i in range(100):
            assert handler(base + i) == base + i

    t0 = time.perf_counter()
    threads = [threading.Thread(target=serve, args=(k * 100,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.perf_counter() - t0

    @pcpsdk.transaction("task")
    async def task():
        await asyncio.sleep(0.01)

    async def main():
        await asyncio.gather(*(task() for _ in range(50)))
    asyncio.run(main())
    if "fork" in sys.argv:
        pids = []
        for _ in range(2):
            pid = os.fork()
            if pid == 0:
                for _ in range(25):
                    with pcpsdk.transaction("worker"):
                        pass
                os._exit(0)
            pids.append(pid)
        for pid in pids:
            assert os.waitpid(pid, 0)[1] == 0
    print(len(ran), len(set(ran)), pcpsdk.failures()["trace"], round(took, 3))
""")


def test_decorated_handler_without_an_agent(monkeypatch):
    """4 threads x 100 calls with no agent at all: every call runs, none
    raises, each failed report is counted."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()				# nothing listens there
    monkeypatch.setenv("PCP_TRACE_HOST", "127.0.0.1")
    monkeypatch.setenv("PCP_TRACE_PORT", str(port))
    r = subprocess.run([sys.executable, "-c", HANDLER], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    ran, distinct, failed, took = r.stdout.split()
    assert (ran, distinct) == ("400", "400"), r.stdout
    assert int(failed) == 450			# 400 + the 50 tasks
    assert r.stderr.count("pcpsdk:") == 1, r.stderr	# logged once
    print(f"no agent: 400 calls in {took} s")
