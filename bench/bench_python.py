# SPDX-License-Identifier: GPL-2.0-or-later
"""Counter increments from Python (bench/run-python.sh, part of make bench).

  bench_python.py sdk   our binding (pcpsdk, cffi ABI mode) and, for the
                        choice of FFI, raw cffi and ctypes calls of mmv_inc
                        on the same library; prometheus_client's
                        Counter.inc; PCP's pcp.mmv on whatever
                        libpcp_mmv.so.1 the loader finds (ours here)
  bench_python.py pcp   PCP's pcp.mmv (python3-pcp, ctypes) on Debian's
                        libpcp_mmv.so.1

Prints "key ns_per_op ns" lines and "library <soname> <path>". Method: a
loop of n calls of a bound method (as an application holds one) or a
functools.partial of the call with its arguments, n calibrated so one repetition takes ~50 ms; the median of 9
repetitions. Writes into $PCP_TMP_DIR/mmv. Never asserts.
"""
import ctypes
import sys
import time
from functools import partial


def median_ns(fn):
    n = 1000
    while True:
        t0 = time.perf_counter_ns()
        loop(fn, n)
        t = time.perf_counter_ns() - t0
        if t > 5_000_000:
            break
        n *= 2
    n = int(n * 50_000_000 / t) + 1
    r = []
    for _ in range(9):
        t0 = time.perf_counter_ns()
        loop(fn, n)
        r.append((time.perf_counter_ns() - t0) / n)
    return sorted(r)[4]


def loop(fn, n):
    for _ in range(n):
        fn()


def pcp_mmv(name):
    import cmmv
    from pcp import mmv, pmapi
    m = mmv.MemoryMappedValues(name)
    units = pmapi.pmUnits(0, 0, 1, 0, 0, 0)
    m.add_metrics([mmv.mmv_metric("hits", 1, cmmv.MMV_TYPE_U64,
                                   cmmv.MMV_SEM_COUNTER, units)])
    m.start()
    h = m.lookup_mapping("hits", None)
    return m, h


def libpath(soname):
    with open("/proc/self/maps") as maps:
        for line in maps:
            if soname in line:
                return line.split()[-1]
    return "?"


def main():
    mode = sys.argv[1]
    out = {}
    out["builtin_call"] = median_ns(partial(abs, 0))
    if mode == "sdk":
        import prometheus_client
        import pcpsdk
        from pcpsdk import _lib
        reg = pcpsdk.Registry("pybench", process=True)
        c = reg.counter("hits")
        ci = reg.counter("per", instances=["a"])
        h = reg.histogram("lat", lo=64, hi=1 << 20)
        g = reg.gauge("level")
        reg.start()
        out["sdk_counter_inc"] = median_ns(c.inc)
        out["sdk_instance_inc"] = median_ns(ci["a"].inc)
        out["sdk_gauge_set"] = median_ns(partial(g.set, 2.5))
        out["sdk_histogram_observe"] = median_ns(partial(h.observe, 1000))
        v = c._one
        f, a, p = _lib.mmv.mmv_inc, v._a, v._h
        out["raw_cffi_inc"] = median_ns(partial(f, a, p))
        lib = ctypes.CDLL("libpcp_mmv.so.1")
        ct = lib.mmv_inc
        ct.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        ct.restype = None
        ia = int(_lib.ffi.cast("uintptr_t", a))
        ip = int(_lib.ffi.cast("uintptr_t", p))
        out["raw_ctypes_inc"] = median_ns(partial(ct, ia, ip))
        pc = prometheus_client.Counter("pybench_hits", "hits")
        out["prometheus_counter_inc"] = median_ns(pc.inc)
        m, hm = pcp_mmv("pybench_pcp")
        out["pcp_mmv_inc_ours"] = median_ns(partial(m.inc, hm))
        m.stop()
        reg.stop()
        print("library libpcp_mmv.so.1", libpath("libpcp_mmv.so"))
    else:
        m, hm = pcp_mmv("pybench_pcp")
        out["pcp_mmv_inc"] = median_ns(partial(m.inc, hm))
        m.stop()
        print("library libpcp_mmv.so.1", libpath("libpcp_mmv.so"))
    for k, v in out.items():
        print(f"{k} {v:.1f} ns")


if __name__ == "__main__":
    main()
