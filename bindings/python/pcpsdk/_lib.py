# SPDX-License-Identifier: LGPL-2.1-or-later
"""Loading of libpcp_mmv.so.1 and libpcp_trace.so.2 through cffi (ABI mode).

ABI mode: cffi parses the declarations below and calls the shared libraries
through libffi, so installing the package needs no compiler. The libraries
are found as any program finds them (LD_LIBRARY_PATH, then the loader's
cache: after `make install` or the -sdk packages, ours), or in the folder
named by $PCPSDK_LIBDIR. The SDK's libraries are required: PCP's
libpcp_mmv has no histograms and loses concurrent increments, PCP's
libpcp_trace has no pmtracetransact (concurrent transactions of one tag);
loading either raises ImportError.

Why cffi and not ctypes: the FFI part of a call through a cffi ABI-mode
function object costs about half of a ctypes call's with argtypes set
(bench/RESULTS.md, "Python binding"), and the declarations are the C
prototypes themselves.
"""
from __future__ import annotations

import os
from typing import Any, Dict

import cffi

MMV_SONAME = "libpcp_mmv.so.1"
TRACE_SONAME = "libpcp_trace.so.2"

ffi = cffi.FFI()
# pmUnits (a 32-bit struct of bit-fields) is passed by value: a 4-byte
# struct travels as one 32-bit integer on every ABI Debian supports, so it
# is declared as uint32_t and built by units_word() below.
ffi.cdef("""
void *mmv_stats_registry(const char *file, int cluster, int flags);
int mmv_stats_add_indom(void *reg, int serial, const char *shorthelp,
                        const char *longhelp);
int mmv_stats_add_metric(void *reg, const char *name, int item, int type,
                         int sem, uint32_t units, int serial,
                         const char *shorthelp, const char *longhelp);
int mmv_stats_add_instance(void *reg, int serial, int instid,
                           const char *name);
int mmv_stats_add_registry_label(void *reg, const char *name,
                                 const char *value, int type, int optional);
int mmv_stats_add_indom_label(void *reg, int serial, const char *name,
                              const char *value, int type, int optional);
int mmv_stats_add_metric_label(void *reg, int item, const char *name,
                               const char *value, int type, int optional);
int mmv_stats_add_instance_label(void *reg, int serial, int instid,
                                 const char *name, const char *value,
                                 int type, int optional);
void *mmv_stats_start(void *reg);
void mmv_stats_free(void *reg);
void *mmv_lookup_value_desc(void *addr, const char *metric,
                            const char *inst);
void mmv_inc(void *addr, void *av);
void mmv_inc_value(void *addr, void *av, double inc);
void mmv_set_value(void *addr, void *av, double value);
void mmv_set_string(void *addr, void *av, const char *string, int len);
void *mmv_stats_interval_start(void *addr, void *value, const char *metric,
                               const char *inst);
void mmv_stats_interval_end(void *addr, void *value);
int mmv_stats_add_histogram(void *reg, const char *name, int item,
                            int bucket_serial, int serial, uint64_t lo,
                            uint64_t hi, unsigned int sub_buckets,
                            uint32_t units, const char *shorttext,
                            const char *helptext);
void *mmv_stats_histogram(void *addr, const char *name,
                          const char *instance);
void mmv_histogram_record(void *h, uint64_t value);
uint64_t mmv_histogram_now(void);
void mmv_histogram_record_since(void *h, uint64_t start);
void *mmv_counter_open(void *addr, void *value);
void mmv_counter_add(void *c, uint64_t n);
void mmv_counter_flush(void);
void mmv_counter_close(void *c);
uint64_t mmv_counter_fallbacks(void);

int pmtracebegin(const char *tag);
int pmtraceend(const char *tag);
int pmtraceabort(const char *tag);
int pmtracepoint(const char *tag);
int pmtraceobs(const char *tag, double value);
int pmtracecounter(const char *tag, double value);
char *pmtraceerrstr(int code);
int pmtracestate(int code);
int pmtracetransact(const char *tag, double elapsed);
""")


def _open(soname: str) -> Any:
    libdir = os.environ.get("PCPSDK_LIBDIR")
    path = os.path.join(libdir, soname) if libdir else soname
    try:
        return ffi.dlopen(path)
    except OSError as e:
        raise ImportError(f"pcpsdk: cannot load {path}: {e}") from e


def loaded_libraries() -> Dict[str, str]:
    """Where this process loaded each library from: {soname: path}.

    Read from /proc/self/maps (Linux), so it names the files the loader
    actually mapped, whatever found them.
    """
    found: Dict[str, str] = {}
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split(None, 5)[-1].strip()
            base = os.path.basename(path)
            for soname in (MMV_SONAME, TRACE_SONAME):
                if base.startswith(soname.split(".so")[0] + ".so"):
                    found.setdefault(soname, os.path.realpath(path))
    return found


def _require(lib: Any, soname: str, symbol: str) -> None:
    try:
        getattr(lib, symbol)
    except AttributeError:
        raise ImportError(
            f"pcpsdk: the {soname} the loader found "
            f"({loaded_libraries().get(soname, '?')}) is not the SDK's "
            f"(no {symbol}): install the SDK (the python3-pcpsdk package "
            "brings it; or make install), or point LD_LIBRARY_PATH or "
            "PCPSDK_LIBDIR at its build/lib") from None


mmv = _open(MMV_SONAME)
trace = _open(TRACE_SONAME)
_require(mmv, MMV_SONAME, "mmv_stats_histogram")
_require(mmv, MMV_SONAME, "mmv_counter_open")
_require(trace, TRACE_SONAME, "pmtracetransact")
