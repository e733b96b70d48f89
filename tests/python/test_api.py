# SPDX-License-Identifier: GPL-2.0-or-later
"""The binding's API on the SDK's libpcp_mmv: values, errors (strict
mode; test_failures.py has the default, counted failures), threads."""
import errno
import os
import threading
import time

import pytest

import pcpsdk
from conftest import BUILD, raw


def test_our_libraries_are_loaded():
    libs = pcpsdk.loaded_libraries()
    for soname in ("libpcp_mmv.so.1", "libpcp_trace.so.2"):
        assert os.path.dirname(libs[soname]) == os.path.realpath(
            os.path.join(BUILD, "lib")), libs


def test_counter_gauge_string_values(tmpdir_mmv, strict):
    reg = pcpsdk.Registry("api", process=False)
    c = reg.counter("hits", "Hits")
    per = reg.counter("per", instances=["a", "b"])
    g = reg.gauge("level")
    i = reg.gauge("delta", type="i64")
    s = reg.string("version")
    reg.start()
    assert (tmpdir_mmv / "mmv" / "api").exists()
    c.inc()
    c.inc(41)
    per["b"].inc(2)
    g.set(2.5)
    g.inc(1)
    g.dec(0.25)
    i.set(-5)
    i.dec(2)
    s.set("x" * 300)
    assert raw(c._one) == 42
    assert raw(per["a"]) == 0 and raw(per["b"]) == 2
    assert raw(g._one, "double") == 3.25
    assert raw(i._one, "int64_t") == -7
    with pytest.raises(ValueError):
        c.inc(-1)
    with pytest.raises(TypeError):
        per.inc()
    with pytest.raises(KeyError):
        per["c"]
    reg.stop()
    c.inc()		# after stop: a no-op, not a crash


def test_process_file_removed_at_stop(tmpdir_mmv):
    reg = pcpsdk.Registry("gone").start()
    assert (tmpdir_mmv / "mmv" / "gone").exists()
    reg.stop()
    assert not (tmpdir_mmv / "mmv" / "gone").exists()


def test_timer_sums_overlapping_sections(tmpdir_mmv, strict):
    reg = pcpsdk.Registry("tm", process=False)
    t = reg.timer("busy")
    reg.start()
    a = t.start()
    time.sleep(0.02)
    b = t.start()
    assert raw(t._one, "int64_t", 1) < 0, "an open interval holds -start"
    time.sleep(0.02)
    t.stop(a)
    time.sleep(0.02)
    t.stop(b)
    total = raw(t._one, "int64_t")
    # a: ~40 ms, b: ~40 ms; the sleeps are lower bounds only
    assert total >= 80000
    with t.time():
        time.sleep(0.01)
    assert raw(t._one, "int64_t") >= total + 10000
    t.add(5)
    with pytest.raises(ValueError):
        t.stop(0)

    @t
    def f():
        raise RuntimeError("x")
    before = raw(t._one, "int64_t")
    with pytest.raises(RuntimeError):
        f()
    assert raw(t._one, "int64_t") >= before


def test_histogram_counts(tmpdir_mmv, strict):
    reg = pcpsdk.Registry("hi", process=False)
    h = reg.histogram("lat", lo=16, hi=256, sub_buckets=4)
    per = reg.histogram("build", lo=1, hi=8, sub_buckets=1,
                        instances=["anvil", "rocket"])
    reg.start()
    assert h.item == 0 and per.item == 3
    for v in (5, 16, 19, 255, 256, 1000):
        h.observe(v)
    per["rocket"].observe(5)
    with h.time():
        pass

    @per["anvil"]
    def work():
        return 7
    assert work() == 7
    with pytest.raises(ValueError):
        h.observe(-1)
    # the counts are checked through PCP's agents in test_agents.py


def test_errors_carry_errno(tmpdir_mmv, strict):
    reg = pcpsdk.Registry("err")
    with pytest.raises(pcpsdk.MMVError) as e:
        reg.counter("bad name")
    assert e.value.errno == errno.EINVAL
    assert "mmv_stats_add_metric" in str(e.value)
    with pytest.raises(pcpsdk.MMVError) as e:
        reg.counter("x", item=5000)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(pcpsdk.MMVError) as e:
        reg.counter("long", labels={"l": "v" * 300})
    assert e.value.errno == errno.E2BIG
    with pytest.raises(pcpsdk.MMVError) as e:
        reg.histogram("h", lo=8, hi=4)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        reg.counter("c", units="furlongs")
    with pytest.raises(pcpsdk.MMVError) as e:
        pcpsdk.Registry("c", cluster=5000)
    assert e.value.errno == errno.EINVAL
    reg.counter("ok")
    with pytest.raises(ValueError):
        reg.counter("ok")
    reg.start()
    with pytest.raises(pcpsdk.MMVError) as e:
        reg.start()
    assert e.value.errno == errno.EBUSY
    with pytest.raises(pcpsdk.MMVError) as e:
        reg.counter("late")
    assert e.value.errno == errno.EBUSY
    reg.stop()
    os.rmdir(tmpdir_mmv / "mmv")
    with pytest.raises(OSError) as e:
        pcpsdk.Registry("nodir").start()
    assert e.value.errno == errno.ENOENT


def test_threads_lose_no_increment(tmpdir_mmv):
    reg = pcpsdk.Registry("mt", process=False)
    c = reg.counter("n")
    h = reg.histogram("h", lo=1, hi=1024)
    t = reg.timer("t")
    reg.start()
    n = 20000

    def work():
        for _ in range(n):
            c.inc()
            h.observe(3)
        for _ in range(200):
            with t.time():
                pass
    ts = [threading.Thread(target=work) for _ in range(4)]
    for x in ts:
        x.start()
    for x in ts:
        x.join()
    assert raw(c._one) == 4 * n
    assert raw(t._one, "int64_t", 1) == 0, "no interval left open"


def test_contention_free_counter(tmpdir_mmv, strict):
    reg = pcpsdk.Registry("cf", process=False)
    c = reg.counter("n", contention_free=True)
    per = reg.counter("per", type="u32", instances=["a", "b"],
                      contention_free=True)
    with pytest.raises(ValueError):
        reg.counter("d", type="double", contention_free=True)
    reg.start()
    assert isinstance(c, pcpsdk.ContentionFreeCounter)
    n = 20000

    def work():
        for _ in range(n):
            c.inc()
        per["b"].inc(3)
    ts = [threading.Thread(target=work) for _ in range(4)]
    for x in ts:
        x.start()
    for x in ts:
        x.join()
    # Thread.join returns before the OS thread's exit, which folds its
    # share: flush() folds what they added
    reg.flush()
    assert raw(c._one) == 4 * n
    c.inc(5)
    c.inc(0.5 + 0.5)	# not an int: an atomic add, as Counter's
    reg.flush()
    assert raw(c._one) == 4 * n + 6
    assert raw(per["b"], "uint32_t") == 12 and raw(per["a"], "uint32_t") == 0
    with pytest.raises(ValueError):
        c.inc(-1)
    c.inc(7)
    from pcpsdk import _lib
    at = int(_lib.ffi.cast("uintptr_t", c._one._h)) - \
        int(_lib.ffi.cast("uintptr_t", reg._addr))
    path = tmpdir_mmv / "mmv" / "cf"
    reg.stop()	# folds, then unmaps
    data = path.read_bytes()
    assert int.from_bytes(data[at:at + 8], "little") == 4 * n + 13
    assert _lib.mmv.mmv_counter_fallbacks() == 0


def test_units(strict):
    assert pcpsdk.Units(time=1, scale_time=1).word() == 0x01001000
    assert pcpsdk.Units(space=1, time=-1, scale_space=1,
                        scale_time=3).word() == 0x1F013000
    with pytest.raises(ValueError):
        pcpsdk.Units(space=9)


def test_registry_life_cycle(tmpdir_mmv, strict):
    with pytest.raises(pcpsdk.MMVError) as e:
        pcpsdk.Registry("bad", labels={"1bad": 1})
    assert e.value.errno == errno.EINVAL
    pid = os.getpid()
    with pcpsdk.Registry("ctx{pid}") as reg:
        assert reg.name == f"ctx{pid}"
        assert (tmpdir_mmv / "mmv" / reg.name).exists()
    assert not (tmpdir_mmv / "mmv" / reg.name).exists()
    with pytest.raises(pcpsdk.MMVError) as e:
        reg.start()
    assert e.value.errno == errno.EFAULT
