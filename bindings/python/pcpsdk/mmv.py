# SPDX-License-Identifier: LGPL-2.1-or-later
"""Metrics in an MMV file: a Registry declares them, start() publishes the file.

Every declaration is one or more calls of libpcp_mmv's registry API made at
once (so a bad argument raises where it is given), in this order:

  Registry(name, cluster, labels)  mmv_stats_registry, then
                                   mmv_stats_add_registry_label per label;
  Registry.indom(...)              mmv_stats_add_indom, mmv_stats_add_instance
                                   per instance, mmv_stats_add_indom_label per
                                   label, mmv_stats_add_instance_label per
                                   instance label;
  counter/gauge/string/timer       the indom's calls first if `instances` is a
                                   list (a new indom), then
                                   mmv_stats_add_metric and
                                   mmv_stats_add_metric_label per label;
  histogram                        the indom's calls if `instances` is a list,
                                   mmv_stats_add_histogram, then
                                   mmv_stats_add_metric_label per label on
                                   each of its three items;
  start()                          mmv_stats_start.

So a C program making the same calls writes the same bytes
(tests/python/test_bytes.py checks it). Items are given in declaration order
from 0 (a histogram takes three), indom serials from 1, instance ids from 0,
unless given. start() first declares pcpsdk.failures (below), unless
failures_metric=False.

Failures never raise by default: a declaration, start() or update that
cannot do its work (bad name or argument, no $PCP_TMP_DIR/mmv, a negative
increment, an unknown instance) is counted (pcpsdk.failures()["mmv"], and
the metric pcpsdk.failures of every started Registry), logged once, and
returns an object whose updates do nothing. strict=True on the Registry,
pcpsdk.set_strict(True) or PCPSDK_STRICT=1 make them raise as documented
per call.
"""
from __future__ import annotations

import atexit
import contextlib
import errno as _errno
import functools
import json
import os
import sys
import threading
import time
from typing import (Any, Callable, Dict, Iterable, List, Mapping, Optional,
                    Sequence, Tuple, TypeVar, Union, cast)

from . import _fail, _lib

__all__ = ["Registry", "Indom", "Units", "MMVError", "Counter",
           "ContentionFreeCounter", "Gauge", "String", "Timer", "Histogram"]

_ffi = _lib.ffi
_C = _lib.mmv
_NULL = _ffi.NULL
_inc = _C.mmv_inc
_inc_value = _C.mmv_inc_value
_set_value = _C.mmv_set_value
_record = _C.mmv_histogram_record
_counter_add = _C.mmv_counter_add

# <pcp/mmv_stats.h> and <pcp/pmapi.h> constants (PCP's ABI).
TYPE_I32, TYPE_U32, TYPE_I64, TYPE_U64, TYPE_FLOAT, TYPE_DOUBLE = 0, 1, 2, 3, 4, 5
TYPE_STRING, TYPE_ELAPSED = 6, 9
SEM_COUNTER, SEM_INSTANT, SEM_DISCRETE = 1, 3, 4
FLAG_NOPREFIX, FLAG_PROCESS, FLAG_SENTINEL = 0x1, 0x2, 0x4
_LABEL_STRING, _LABEL_NUMBER, _LABEL_BOOLEAN, _LABEL_NULL = 1, 2, 3, 4
_LABEL_ARRAY, _LABEL_MAP = 5, 6
_STRINGMAX = 255			# bytes a STRING value keeps
_TYPES = {"i32": TYPE_I32, "u32": TYPE_U32, "i64": TYPE_I64, "u64": TYPE_U64,
          "float": TYPE_FLOAT, "double": TYPE_DOUBLE}

LabelValue = Union[str, int, float, bool, None, List[Any], Dict[str, Any]]
Labels = Mapping[str, LabelValue]
F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound="_Metric")


class MMVError(OSError):
    """A libpcp_mmv call failed: .errno is the C errno, str() says which call.

    Subclass of OSError, so `except OSError` catches it too.
    """


def _check(rc: int, call: str) -> None:
    if rc < 0:
        err = _ffi.errno or (-rc if rc < -1 else 0)
        raise MMVError(err, f"{call}: {os.strerror(err)}")


def _b(s: Optional[str]) -> Any:
    return _NULL if s is None else s.encode()


class Units:
    """PCP units (pmUnits): dimensions of space, time and count with scales.

    Units(space=1, time=-1, scale_space=Units.KBYTE, scale_time=Units.SEC) is
    KiB per second. Scales: space BYTE..EBYTE (0..6), time NSEC, USEC, MSEC,
    SEC, MIN, HOUR (0..5), count a power of ten (-8..7); a value out of
    range is a failure (strict: ValueError) giving no units. Ready-made:
    Units.NONE, COUNT, NSEC, USEC, MSEC, SEC, BYTE, KBYTE, MBYTE, or a name
    ("usec", "byte", "count", ...) wherever units are taken.
    """
    BYTE, KBYTE, MBYTE, GBYTE, TBYTE, PBYTE, EBYTE = range(7)
    NSEC_SCALE, USEC_SCALE, MSEC_SCALE, SEC_SCALE, MIN_SCALE, HOUR_SCALE = range(6)
    NONE: "Units"
    COUNT: "Units"

    __slots__ = ("space", "time", "count", "scale_space", "scale_time",
                 "scale_count")

    def __init__(self, space: int = 0, time: int = 0, count: int = 0,
                 scale_space: int = 0, scale_time: int = 0,
                 scale_count: int = 0) -> None:
        for n, v, lo, hi in (("space", space, -8, 7), ("time", time, -8, 7),
                             ("count", count, -8, 7),
                             ("scale_space", scale_space, 0, 15),
                             ("scale_time", scale_time, 0, 15),
                             ("scale_count", scale_count, -8, 7)):
            if not isinstance(v, int) or not lo <= v <= hi:
                _fail.fail("mmv", ValueError(f"Units: {n} must be an int in "
                                             f"{lo}..{hi}, not {v!r}"))
                space = time = count = 0	# no units, as failed
                scale_space = scale_time = scale_count = 0
                break
        self.space, self.time, self.count = space, time, count
        self.scale_space, self.scale_time = scale_space, scale_time
        self.scale_count = scale_count

    def word(self) -> int:
        """The 32-bit pmUnits as passed by value (low-bit-first fields)."""
        return ((self.space & 15) << 28 | (self.time & 15) << 24 |
                (self.count & 15) << 20 | (self.scale_space & 15) << 16 |
                (self.scale_time & 15) << 12 | (self.scale_count & 15) << 8)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Units) and self.word() == other.word()

    def __hash__(self) -> int:
        return self.word()

    def __repr__(self) -> str:
        return (f"Units({self.space}, {self.time}, {self.count}, "
                f"{self.scale_space}, {self.scale_time}, {self.scale_count})")


Units.NONE = Units()
Units.COUNT = Units(count=1)
_NAMED_UNITS = {
    "none": Units.NONE, "": Units.NONE, "count": Units.COUNT,
    "nsec": Units(time=1, scale_time=0), "usec": Units(time=1, scale_time=1),
    "msec": Units(time=1, scale_time=2), "sec": Units(time=1, scale_time=3),
    "min": Units(time=1, scale_time=4), "hour": Units(time=1, scale_time=5),
    "byte": Units(space=1), "kbyte": Units(space=1, scale_space=1),
    "mbyte": Units(space=1, scale_space=2), "gbyte": Units(space=1, scale_space=3),
}


def _units(u: Union[Units, str, None]) -> Units:
    if u is None:
        return Units.NONE
    if isinstance(u, Units):
        return u
    try:
        return _NAMED_UNITS[u]
    except (KeyError, TypeError):
        raise ValueError(f"unknown units {u!r}: a Units or one of "
                         f"{sorted(k for k in _NAMED_UNITS if k)}") from None


def _label_arg(value: LabelValue) -> Tuple[str, int]:
    """JSON text and MMV_*_TYPE of a label value."""
    if value is None:
        return "null", _LABEL_NULL
    if isinstance(value, bool):
        return ("true" if value else "false"), _LABEL_BOOLEAN
    if isinstance(value, (int, float)):
        return json.dumps(value), _LABEL_NUMBER
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False), _LABEL_STRING
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), separators=(",", ":")), _LABEL_ARRAY
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":")), _LABEL_MAP
    raise TypeError(f"label value {value!r}: str, int, float, bool, None, "
                    "list or dict")


class Indom:
    """An instance domain: a fixed list of instances, declared on a Registry.

    Made by Registry.indom(), or implicitly by a metric's `instances` list.
    `serial` is its PCP indom serial (1..2047); `names` its instance names
    in declaration order; `ids` the instance ids.
    """
    __slots__ = ("serial", "names", "ids")

    def __init__(self, serial: int, pairs: Sequence[Tuple[int, str]]) -> None:
        self.serial = serial
        self.ids = [i for i, _ in pairs]
        self.names = [n for _, n in pairs]


def _pairs(instances: Union[Sequence[str], Mapping[int, str]]
           ) -> List[Tuple[int, str]]:
    if isinstance(instances, Mapping):
        pairs = [(int(i), n) for i, n in instances.items()]
    elif isinstance(instances, (str, bytes)):
        raise TypeError("instances: a list of names or a {id: name} dict, "
                        "not a string")
    else:
        pairs = list(enumerate(instances))
    for _, n in pairs:
        if not isinstance(n, str):
            raise TypeError(f"instance name {n!r} is not a str")
    return pairs


FAILURES_METRIC = "pcpsdk.failures"


class Registry:
    """One MMV file: declare metrics, then start() creates and publishes it.

    name      the file's name in $PCP_TMP_DIR/mmv (its metrics are then
              mmv.<name>.<metric>), or an absolute path. "{pid}" in it is
              replaced by the process id (the child's, in a child of
              fork() that starts the registry). The name used is .name.
    cluster   the PMID cluster asked of the agent, 0 (the agent chooses) or
              1..4095.
    labels    registry labels ({name: JSON-able value}).
    process   MMV_FLAG_PROCESS: the agent exports the file only while this
              process lives, and stop() removes it (default True).
    noprefix  MMV_FLAG_NOPREFIX: metrics are mmv.<metric>.
    sentinel  MMV_FLAG_SENTINEL: all-ones / NaN / "" values read as no value.
    strict    raise on failure (True), count and go on (False), or as
              pcpsdk.set_strict says (None, the default: count).
    failures_metric  start() also declares FAILURES_METRIC, a counter with
              instances "mmv" and "trace": this process's failed pcpsdk
              calls (pcpsdk.failures()), on the next free item and indom
              serial (default True; skipped if the name is taken).

    After fork() a started registry is started again in the child as a file
    of its own, named by `name` with the child's pid for "{pid}", or
    `name` + "_<pid>" if `name` has no "{pid}"; the child's metric objects
    then update that file, from zero. The parent's file is left alone.

    Failures (strict: raises) MMVError (errno EINVAL: bad name or cluster;
    ENOMEM), ValueError (name not a non-empty str); the registry then
    declares detached metrics and never starts. Declaring is serialised by
    a lock, so any thread may declare; updates need no lock.
    """

    def __init__(self, name: str, cluster: int = 0, *,
                 labels: Optional[Labels] = None, process: bool = True,
                 noprefix: bool = False, sentinel: bool = False,
                 strict: Optional[bool] = None,
                 failures_metric: bool = True) -> None:
        self.strict = strict
        self.failures_metric = failures_metric
        self._fm: Optional["Counter"] = None
        self._reg: Any = _NULL
        self._addr: Any = _NULL
        if not isinstance(name, str) or not name:
            _fail.fail("mmv", ValueError("Registry: name must be a non-empty "
                                         f"str, not {name!r}"), strict)
            name = "(unnamed)"
        self.name_template = name
        self.cluster = cluster
        self.flags = ((FLAG_PROCESS if process else 0) |
                      (FLAG_NOPREFIX if noprefix else 0) |
                      (FLAG_SENTINEL if sentinel else 0))
        self._lock = threading.RLock()
        self._calls: List[Tuple[str, Tuple[Any, ...]]] = []
        self._metrics: List["_Metric"] = []
        self._names: Dict[str, "_Metric"] = {}
        self._next_item = 0
        self._next_serial = 1
        self._serials: Dict[int, Indom] = {}
        self.name = name.replace("{pid}", str(os.getpid()))  # the file's
        if name == "(unnamed)":
            return
        try:
            self._reg = self._new_c_registry(self.name)
            for k, v in (labels or {}).items():
                self._call("mmv_stats_add_registry_label", _b(k),
                           *self._lab(v), 0)
        except Exception as e:
            if self._reg != _NULL:
                _C.mmv_stats_free(self._reg)
            self._reg = _NULL
            self._failed(e)
            return
        _registries.add(self)

    def _failed(self, err: Exception) -> None:
        """A call of this registry failed: raise (strict) or count."""
        _fail.fail("mmv", err, self.strict)

    # -- the C registry ------------------------------------------------
    def _new_c_registry(self, name: str) -> Any:
        reg = _C.mmv_stats_registry(name.encode(), self.cluster, self.flags)
        if reg == _NULL:
            _check(-1, f"mmv_stats_registry({name!r})")
        return reg

    @staticmethod
    def _lab(v: LabelValue) -> Tuple[Any, int]:
        text, typ = _label_arg(v)
        return text.encode(), typ

    def _call(self, fn: str, *args: Any) -> None:
        """Call registry function fn(reg, *args) now; keep it for replay."""
        if self._reg == _NULL:
            raise MMVError(_errno.EFAULT, f"{fn}: {self.name!r} is not a "
                           "usable registry (it failed, or was stopped)")
        if self._addr != _NULL:
            raise MMVError(_errno.EBUSY, f"{fn}: registry already started "
                           f"({os.strerror(_errno.EBUSY)})")
        _check(getattr(_C, fn)(self._reg, *args), fn)
        self._calls.append((fn, args))

    # -- declarations ----------------------------------------------------
    def indom(self, instances: Union[Sequence[str], Mapping[int, str]], *,
              serial: Optional[int] = None, help: Optional[str] = None,
              longhelp: Optional[str] = None, labels: Optional[Labels] = None,
              instance_labels: Optional[Mapping[str, Labels]] = None
              ) -> Indom:
        """Declare an instance domain.

        instances        names (ids 0, 1, ...) or {id: name}; at most 255
                         bytes a name.
        serial           1..2047; default: the next unused one.
        help, longhelp   one-line and long help (255 chars at most each).
        labels           labels of the indom; instance_labels: {instance
                         name: labels}.
        Failures (strict: raises) MMVError (EINVAL, E2BIG, EBUSY once
        started), TypeError, KeyError (instance_labels names an unknown
        instance); the Indom returned then has serial 0, known to no file.
        """
        try:
            return self._indom(instances, serial, help, longhelp, labels,
                               instance_labels)
        except Exception as e:
            self._failed(e)
            try:
                return Indom(0, _pairs(instances))
            except Exception:
                return Indom(0, [])

    def _indom(self, instances: Union[Sequence[str], Mapping[int, str]],
               serial: Optional[int], help: Optional[str],
               longhelp: Optional[str], labels: Optional[Labels],
               instance_labels: Optional[Mapping[str, Labels]]) -> Indom:
        with self._lock:
            pairs = _pairs(instances)
            if serial is None:
                serial = self._free_serial()
            self._call("mmv_stats_add_indom", serial, _b(help), _b(longhelp))
            ind = Indom(serial, pairs)
            self._serials[serial] = ind
            for i, n in pairs:
                self._call("mmv_stats_add_instance", serial, i, n.encode())
            for k, v in (labels or {}).items():
                self._call("mmv_stats_add_indom_label", serial, _b(k),
                           *self._lab(v), 0)
            for inst, labs in (instance_labels or {}).items():
                iid = ind.ids[ind.names.index(inst)] if inst in ind.names \
                    else None
                if iid is None:
                    raise KeyError(f"instance_labels: no instance {inst!r}")
                for k, v in labs.items():
                    self._call("mmv_stats_add_instance_label", serial, iid,
                               _b(k), *self._lab(v), 0)
            return ind

    def _free_serial(self) -> int:
        while self._next_serial in self._serials:
            self._next_serial += 1
        return self._next_serial

    def _indom_of(self, instances: Any) -> Optional[Indom]:
        if instances is None:
            return None
        if isinstance(instances, Indom):
            if self._serials.get(instances.serial) is not instances:
                raise ValueError("instances: an Indom of another Registry")
            return instances
        return self._indom(instances, None, None, None, None, None)

    @staticmethod
    def _detached_indom(instances: Any) -> Optional[Indom]:
        """The instances of a metric whose declaration failed (no file)."""
        if instances is None:
            return None
        if isinstance(instances, Indom):
            return instances
        try:
            return Indom(0, _pairs(instances))
        except Exception:
            return Indom(0, [])

    def _declare(self, cls: Callable[..., M], name: str, instances: Any,
                 declare: Callable[[], M]) -> M:
        """declare(), or on failure (strict: raised) a detached cls object:
        its updates do nothing."""
        try:
            return declare()
        except Exception as e:
            self._failed(e)
            return cls(self, str(name), -1, self._detached_indom(instances))

    def _item(self, item: Optional[int]) -> int:
        return self._next_item if item is None else item

    def _took(self, item: int, width: int) -> None:
        """Items item..item+width-1 are declared: the next default follows."""
        self._next_item = max(self._next_item, item + width)

    def _metric(self, cls: Callable[..., M], name: str, typ: Callable[[], int],
                sem: int, units: Any, help: Optional[str],
                longhelp: Optional[str], item: Optional[int], instances: Any,
                labels: Optional[Labels]) -> M:
        def declare() -> M:
            with self._lock:
                if name in self._names:
                    raise ValueError(f"metric {name!r} already declared")
                t, u = typ(), _units(units)
                ind = self._indom_of(instances)
                it = self._item(item)
                self._call("mmv_stats_add_metric", name.encode(), it, t, sem,
                           u.word(), ind.serial if ind else 0, _b(help),
                           _b(longhelp))
                return self._declared(cls, name, it, 1, ind, labels)
        return self._declare(cls, name, instances, declare)

    def _declared(self, cls: Callable[..., M], name: str, item: int, width: int,
                  ind: Optional[Indom], labels: Optional[Labels]) -> M:
        """Metric `name` took items item..item+width-1: label each, keep
        and return its object."""
        self._took(item, width)
        for it in range(item, item + width):
            for k, v in (labels or {}).items():
                self._call("mmv_stats_add_metric_label", it, _b(k),
                           *self._lab(v), 0)
        m = cls(self, name, item, ind)
        self._metrics.append(m)
        self._names[name] = m
        return m

    def counter(self, name: str, help: Optional[str] = None, *,
                units: Union[Units, str, None] = "count", type: str = "u64",
                longhelp: Optional[str] = None, item: Optional[int] = None,
                instances: Any = None, labels: Optional[Labels] = None,
                contention_free: bool = False) -> "Counter":
        """Declare a counter (semantics counter; default U64, units count).

        name       relative metric name: letters, digits, '_', '.' between
                   components, 255 chars at most.
        help       one-line help; longhelp: long help (cut at 255 chars).
        units      a Units or name ("count", "byte", "usec", ...).
        type       "u64" (default), "u32", "i64", "i32", "float" or "double".
        item       PMID item 0..1023 (default: next unused).
        instances  None (one value), a list of instance names, a {id: name}
                   dict, or an Indom shared with other metrics.
        labels     metric labels.
        contention_free
                   True: whole-number increments go to a slot of the
                   calling thread, which the library folds into the file
                   every 10 ms (mmv_counter_open(3)): threads that update
                   the counter at once do not wait for each other. A
                   reader's total lags by up to that interval; flush()
                   makes it exact. Integer types only.
        Failures (strict: raises) MMVError (EINVAL, E2BIG, EBUSY once
        started), ValueError (name declared twice, unknown type or units,
        a floating-point type with contention_free), TypeError; the
        metric returned then updates nothing.
        """
        def typ() -> int:
            t = _type(type)
            if contention_free and t in (TYPE_FLOAT, TYPE_DOUBLE):
                raise ValueError("contention_free counters are integers: "
                                 "type u64, u32, i64 or i32")
            return t
        return self._metric(ContentionFreeCounter if contention_free
                            else Counter, name, typ, SEM_COUNTER,
                            units, help, longhelp, item, instances, labels)

    def gauge(self, name: str, help: Optional[str] = None, *,
              units: Union[Units, str, None] = None, type: str = "double",
              longhelp: Optional[str] = None, item: Optional[int] = None,
              instances: Any = None, labels: Optional[Labels] = None
              ) -> "Gauge":
        """Declare a gauge (semantics instant; default DOUBLE, no units).

        Arguments and errors as counter().
        """
        return self._metric(Gauge, name, lambda: _type(type), SEM_INSTANT,
                            units, help, longhelp, item, instances, labels)

    def string(self, name: str, help: Optional[str] = None, *,
               longhelp: Optional[str] = None, item: Optional[int] = None,
               instances: Any = None, labels: Optional[Labels] = None
               ) -> "String":
        """Declare a string metric (STRING, semantics discrete): 255 bytes
        of UTF-8 at most a value. Arguments and errors as counter().
        """
        return self._metric(String, name, lambda: TYPE_STRING, SEM_DISCRETE,
                            Units.NONE, help, longhelp, item, instances,
                            labels)

    def timer(self, name: str, help: Optional[str] = None, *,
              longhelp: Optional[str] = None, item: Optional[int] = None,
              instances: Any = None, labels: Optional[Labels] = None
              ) -> "Timer":
        """Declare a timer: an ELAPSED metric, total microseconds spent in
        timed sections (semantics counter, units usec, so PCP's tools show
        it as a utilisation). Arguments and errors as counter().
        """
        return self._metric(Timer, name, lambda: TYPE_ELAPSED, SEM_COUNTER,
                            _NAMED_UNITS["usec"], help, longhelp, item,
                            instances, labels)

    def histogram(self, name: str, help: Optional[str] = None, *,
                  lo: int, hi: int, sub_buckets: int = 4,
                  units: Union[Units, str, None] = "usec",
                  longhelp: Optional[str] = None, item: Optional[int] = None,
                  bucket_serial: Optional[int] = None, instances: Any = None,
                  labels: Optional[Labels] = None) -> "Histogram":
        """Declare a log-linear histogram (mmv_stats_add_histogram(3)).

        Values are non-negative integers in `units` (default usec). Buckets:
        [0, lo), `sub_buckets` (a power of two, 1..64) per power of two
        between lo and hi (1 <= lo < hi), [hi, inf). Exported as
        NAME.bucket (a counter per bucket), NAME.count and NAME.sum, on
        items item, item+1, item+2; the buckets' indom is `bucket_serial`
        (default: the next unused serial). `labels` go on all three items.
        Failures (strict: raises) MMVError (EINVAL: bounds, sub_buckets,
        name; EEXIST: serial taken; E2BIG: the file would have over 255
        labels; EBUSY), ValueError; the histogram then records nothing.
        """
        def declare() -> Histogram:
            with self._lock:
                if name in self._names:
                    raise ValueError(f"metric {name!r} already declared")
                ind = self._indom_of(instances)
                u = _units(units)
                bs = self._free_serial() if bucket_serial is None \
                    else bucket_serial
                it = self._item(item)
                self._call("mmv_stats_add_histogram", name.encode(), it, bs,
                           ind.serial if ind else 0, lo, hi, sub_buckets,
                           u.word(), _b(help), _b(longhelp))
                self._serials[bs] = Indom(bs, [])
                return self._declared(Histogram, name, it, 3, ind, labels)
        return self._declare(Histogram, name, instances, declare)

    # -- life cycle ------------------------------------------------------
    def start(self) -> "Registry":
        """Create and publish the file (mmv_stats_start); returns self.

        Failures (strict: raises) MMVError: EBUSY (started already), EFAULT
        (a failed or stopped registry), ESRCH, EINVAL, ENOENT (no
        $PCP_TMP_DIR/mmv), EACCES/EPERM (not writable), ENFILE; the
        registry then stays unstarted and its metrics update nothing.
        """
        with self._lock:
            try:
                if self._addr != _NULL:
                    raise MMVError(_errno.EBUSY, "mmv_stats_start: already "
                                   "started")
                if self._reg == _NULL:
                    raise MMVError(_errno.EFAULT, "mmv_stats_start: a failed "
                                   "or stopped registry (declare a new one)")
                self._declare_failures()
                self._start(self.name, self._reg)
            except Exception as e:
                self._failed(e)
            return self

    def _declare_failures(self) -> None:
        """FAILURES_METRIC, once, unless not wanted or the name is taken."""
        if not self.failures_metric or self._fm is not None or \
                FAILURES_METRIC in self._names:
            return
        help = "Failed pcpsdk calls of this process"
        longhelp = ("Calls of the pcpsdk Python binding in this process that "
                    "failed and were counted instead of raising, per kind: "
                    "mmv (metrics), trace (the trace agent).")
        try:
            with self._lock:
                ind = self._indom(list(_fail.KINDS), None, None, None, None,
                                  None)
                it = self._item(None)
                self._call("mmv_stats_add_metric", FAILURES_METRIC.encode(),
                           it, TYPE_U64, SEM_COUNTER, Units.COUNT.word(),
                           ind.serial, _b(help), _b(longhelp))
                self._fm = self._declared(Counter, FAILURES_METRIC, it, 1,
                                          ind, None)
        except MMVError:	# no room left: the counts stay in failures()
            self._fm = None

    def _count_failure(self, kind: str) -> None:
        if self._fm is not None:
            self._fm[kind].inc()

    def _start(self, name: str, reg: Any) -> None:
        addr = _C.mmv_stats_start(reg)
        if addr == _NULL:
            _check(-1, f"mmv_stats_start({name!r})")
        self._reg, self._addr, self.name = reg, addr, name
        for m in self._metrics:
            m._bind(addr)
        if self._fm is not None:
            counts = _fail.failures()
            for kind in _fail.KINDS:
                if counts[kind]:
                    self._fm[kind].inc(counts[kind])
            _fail.listen(self._count_failure)

    def stop(self) -> None:
        """Unmap the file (and remove it if process=True); mmv_stats_free.

        Metric objects become no-ops. Must not race with updates in other
        threads (as mmv_stats_stop). Idempotent. Called at exit.
        """
        with self._lock:
            if self._reg == _NULL:
                return
            _fail.unlisten(self._count_failure)
            for m in self._metrics:
                m._bind(_NULL)
            _C.mmv_stats_free(self._reg)
            self._reg, self._addr = _NULL, _NULL
            _registries.discard(self)

    def flush(self) -> None:
        """Fold every thread's share of the contention_free counters
        into the files now (mmv_counter_flush), so a reader sees their
        exact totals. The other metrics are always exact. A thread's share
        is also folded when the thread ends, but Thread.join() may return
        just before that: flush() after join() when the total must be
        exact at once."""
        _C.mmv_counter_flush()

    @property
    def started(self) -> bool:
        """True between start() and stop()."""
        return bool(self._addr != _NULL)

    def __enter__(self) -> "Registry":
        return self if self.started else self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _after_fork(self) -> None:
        """In a child of fork(): the same declarations, a file of its own."""
        self._lock = threading.RLock()
        started = self._addr != _NULL
        if started and "{pid}" not in self.name_template:
            self.name_template += "_{pid}"
        if "{pid}" not in self.name_template or self._reg == _NULL:
            return
        # A started registry and its mapping are the parent's: never freed
        # here (that would remove the parent's PROCESS file). One not
        # started is this process's copy, rebuilt under the child's name.
        old = self._reg
        self.name = self.name_template.replace("{pid}", str(os.getpid()))
        reg = self._new_c_registry(self.name)
        for fn, args in self._calls:
            _check(getattr(_C, fn)(reg, *args), fn)
        self._reg = reg
        for m in self._metrics:
            m._after_fork()
        if started:
            self._start(self.name, reg)
        else:
            _C.mmv_stats_free(old)


def _type(t: str) -> int:
    try:
        return _TYPES[t]
    except KeyError:
        raise ValueError(f"unknown type {t!r}: one of {sorted(_TYPES)}") \
            from None


# Every Registry until stop(): rebuilt in a child of fork(), stopped at
# exit. Held here, so a started file stays valid (and is removed at exit)
# even if the program drops its last reference.
_registries: "set[Registry]" = set()


def _fork_child() -> None:
    for reg in list(_registries):
        try:
            reg._after_fork()
        except Exception as e:	# contained: never write the parent's file
            for m in reg._metrics:
                m._bind(_NULL)
            reg._reg = reg._addr = _NULL
            _registries.discard(reg)
            print(f"pcpsdk: after fork, {reg.name_template}: {e}; its "
                  "metrics do nothing in this process", file=sys.stderr)


def _at_exit() -> None:
    for reg in list(_registries):
        reg.stop()


os.register_at_fork(after_in_child=_fork_child)
atexit.register(_at_exit)


class _Value:
    """One value (a metric's, or one instance's): what updates act on."""
    __slots__ = ("_a", "_h", "metric", "instance")

    def __init__(self, metric: "_Metric", instance: Optional[str]) -> None:
        self.metric = metric
        self.instance = instance
        self._a: Any = _NULL
        self._h: Any = _NULL

    def _bind(self, addr: Any) -> None:
        """Take the handle in the file at addr (NULL: no file, updates do
        nothing)."""
        if addr == _NULL:
            self._a = self._h = _NULL
            return
        self._h = self._lookup(addr)
        self._a = addr

    def _lookup(self, addr: Any) -> Any:
        h = _C.mmv_lookup_value_desc(addr, self.metric.name.encode(),
                                     _b(self.instance))
        if h == _NULL:
            raise MMVError(_errno.ENOENT, f"mmv_lookup_value_desc({self.metric.name!r}, "
                           f"{self.instance!r}): not in the file")
        return h

    def _after_fork(self) -> None:
        pass

    def __repr__(self) -> str:
        inst = f"[{self.instance!r}]" if self.instance is not None else ""
        return f"<{type(self).__name__} {self.metric.name}{inst}>"


class _Metric:
    """What all metric kinds share: name, item, indom, instance access."""
    _value_class: type = _Value
    _forward: Tuple[str, ...] = ()	# update methods of the value class

    def __init__(self, reg: Registry, name: str, item: int,
                 indom: Optional[Indom]) -> None:
        self.registry = reg
        self.name = name
        self.item = item
        self.indom = indom
        self._lock = threading.Lock()
        self._values: Dict[Optional[str], Any] = {}
        if indom is None:
            self._one = self._value_class(self, None)
            self._values[None] = self._one
            # updates go straight to the value object: one Python call
            for fn in self._forward:
                setattr(self, fn, getattr(self._one, fn))
        else:
            self._one = None
            for n in indom.names:
                self._values[n] = self._value_class(self, n)

    def __getitem__(self, instance: str) -> Any:
        """The value of instance `instance`. Not declared: a failure
        (strict: KeyError), and a value whose updates do nothing."""
        try:
            if instance is None:
                raise KeyError(instance)
            return self._values[instance]
        except (KeyError, TypeError):
            err = KeyError(f"{self.name}: no instance {instance!r}")
            err.log_key = f"KeyError: {self.name}: no such instance"  # type: ignore[attr-defined]
            self._failed(err)
            return self._value_class(self, instance)

    def _failed(self, err: Exception) -> None:
        """An update of this metric failed: raise (strict) or count."""
        _fail.fail("mmv", err, self.registry.strict)

    def instance(self, instance: str) -> Any:
        """Same as metric[instance]."""
        return self[instance]

    def _single(self) -> Any:
        if self._one is None:
            self._failed(TypeError(f"{self.name} has instances: use "
                                   f"{self.name}[instance]"))
            return self._value_class(self, None)	# updates nothing
        return self._one

    def _bind(self, addr: Any) -> None:
        for v in self._values.values():
            v._bind(addr)

    def _after_fork(self) -> None:
        self._lock = threading.Lock()
        for v in self._values.values():
            v._after_fork()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} item {self.item}>"


class CounterValue(_Value):
    __slots__ = ()

    def inc(self, amount: Union[int, float] = 1) -> None:
        """Add `amount` (>= 0; default 1) atomically (mmv_inc, or
        mmv_inc_value: converted as C converts a double, so integer
        counters take whole numbers below 2^53). A negative or non-number
        amount is a failure (strict: ValueError, TypeError), not added.
        """
        try:
            if amount == 1:
                _inc(self._a, self._h)
            elif amount >= 0:
                _inc_value(self._a, self._h, amount)
            else:
                raise ValueError("counters only go up: amount must be >= 0")
        except (TypeError, ValueError) as e:
            self.metric._failed(e)


class Counter(_Metric):
    """A counter (PCP semantics counter). c.inc(), c["inst"].inc(n).

    Thread-safe: every update is one atomic add in the file.
    """
    _value_class = CounterValue
    _forward = ("inc",)

    def inc(self, amount: Union[int, float] = 1) -> None:
        """See CounterValue.inc (TypeError if the counter has instances)."""
        self._single().inc(amount)


class ContentionFreeCounterValue(CounterValue):
    """A counter's value updated through mmv_counter_add: a slot of the
    calling thread, folded into the file by the library."""
    __slots__ = ("_c",)

    def __init__(self, metric: "_Metric", instance: Optional[str]) -> None:
        super().__init__(metric, instance)
        self._c: Any = _NULL

    def _bind(self, addr: Any) -> None:
        if self._c != _NULL:	# its total goes into the file first
            _C.mmv_counter_close(self._c)
            self._c = _NULL
        super()._bind(addr)
        if addr != _NULL:
            c = _C.mmv_counter_open(addr, self._h)
            if c == _NULL:	# updates stay atomic adds: nothing lost
                self.metric._failed(MMVError(_ffi.errno, "mmv_counter_open: "
                                             + os.strerror(_ffi.errno)))
            self._c = c

    def inc(self, amount: Union[int, float] = 1) -> None:
        """Add `amount` (>= 0; default 1). A whole number goes to the
        calling thread's slot (mmv_counter_add); any other amount is added
        as Counter's are. Failures as CounterValue.inc."""
        if type(amount) is int and 0 <= amount < 1 << 64 and self._c != _NULL:
            _counter_add(self._c, amount)
        else:
            super().inc(amount)


class ContentionFreeCounter(Counter):
    """A counter declared with contention_free=True (Registry.counter).

    Thread-safe, and threads updating it at once do not contend: see
    ContentionFreeCounterValue. Its value in the file lags by up to 10 ms
    (Registry.flush makes it exact).
    """
    _value_class = ContentionFreeCounterValue


class GaugeValue(_Value):
    __slots__ = ()

    def set(self, value: float) -> None:
        """Store `value` (mmv_set_value: converted to the metric's type). A
        non-number is a failure (strict: TypeError)."""
        try:
            _set_value(self._a, self._h, value)
        except TypeError as e:
            self.metric._failed(e)

    def inc(self, amount: float = 1) -> None:
        """Add `amount` (may be negative) atomically (mmv_inc_value).
        Failures as set()."""
        try:
            _inc_value(self._a, self._h, amount)
        except TypeError as e:
            self.metric._failed(e)

    def dec(self, amount: float = 1) -> None:
        """Subtract `amount` atomically. Failures as set()."""
        try:
            _inc_value(self._a, self._h, -amount)
        except TypeError as e:
            self.metric._failed(e)


class Gauge(_Metric):
    """A value that goes up and down (PCP semantics instant).

    g.set(x), g.inc(), g.dec(); with instances g["inst"].set(x).
    Thread-safe: each update is one atomic store or add.
    """
    _value_class = GaugeValue
    _forward = ("set", "inc", "dec")

    def set(self, value: float) -> None:
        """See GaugeValue.set."""
        self._single().set(value)

    def inc(self, amount: float = 1) -> None:
        """See GaugeValue.inc."""
        self._single().inc(amount)

    def dec(self, amount: float = 1) -> None:
        """See GaugeValue.dec."""
        self._single().dec(amount)


class StringValue(_Value):
    __slots__ = ("_wl",)

    def __init__(self, metric: "_Metric", instance: Optional[str]) -> None:
        super().__init__(metric, instance)
        self._wl = threading.Lock()

    def _after_fork(self) -> None:
        self._wl = threading.Lock()

    def set(self, value: str) -> None:
        """Store `value` (UTF-8; cut to 255 bytes on a character boundary)
        with mmv_set_string. A reader sees a terminated string; calls from
        several threads are serialised (the C call wants one writer).
        """
        try:
            b = value.encode()
        except AttributeError:
            self.metric._failed(TypeError(f"{self!r}: {value!r} is not a str"))
            return
        if len(b) > _STRINGMAX:
            b = b[:_STRINGMAX].decode(errors="ignore").encode()
        with self._wl:
            _C.mmv_set_string(self._a, self._h, b, len(b))


class String(_Metric):
    """A string value (PCP type string, semantics discrete). s.set("x")."""
    _value_class = StringValue
    _forward = ("set",)

    def set(self, value: str) -> None:
        """See StringValue.set."""
        self._single().set(value)


class _Timed:
    """time() and the decorator of a value with start() and stop(stamp)."""
    __slots__ = ()

    def start(self) -> int:
        raise NotImplementedError

    def stop(self, stamp: int) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def time(self) -> Any:
        """`with v.time():` times the block (also when it raises)."""
        stamp = self.start()
        try:
            yield self
        finally:
            self.stop(stamp)

    def __call__(self, fn: F) -> F:
        """Decorator: time every call of fn (also when it raises)."""
        @functools.wraps(fn)
        def timed(*a: Any, **kw: Any) -> Any:
            stamp = self.start()
            try:
                return fn(*a, **kw)
            finally:
                self.stop(stamp)
        return timed  # type: ignore[return-value]


class _TimedMetric(_Metric):
    """time() and the decorator of a metric without instances."""

    def time(self) -> Any:
        """See the value class's time() (TypeError with instances)."""
        return self._single().time()

    def __call__(self, fn: F) -> F:
        """See the value class's decorator (TypeError with instances)."""
        return cast(F, self._single()(fn))


class TimerValue(_Timed, _Value):
    """Elapsed time of one value. Sections may overlap (threads): the
    total is the sum of every section's duration in microseconds.

    While any section is open the file holds an open interval
    (mmv_stats_interval_start), so a reader sees the time grow live; when
    the last open section ends, mmv_stats_interval_end closes it and the
    time the sections overlapped is added with mmv_inc_value.
    """
    __slots__ = ("_tl", "_open", "_since", "_sum")

    def __init__(self, metric: "_Metric", instance: Optional[str]) -> None:
        super().__init__(metric, instance)
        self._after_fork()

    def _after_fork(self) -> None:
        self._tl = threading.Lock()
        self._open = 0
        self._since = 0
        self._sum = 0

    def start(self) -> int:
        """Open a section; returns its start stamp (ns, monotonic) for
        stop(). Thread-safe."""
        with self._tl:
            now = time.monotonic_ns()
            if self._open == 0:
                _C.mmv_stats_interval_start(self._a, self._h, _NULL, _NULL)
                self._since, self._sum = now, 0
            self._open += 1
            return now

    def stop(self, stamp: int) -> None:
        """Close the section opened at `stamp` (from start()): its time is
        added to the total. With no section open, a failure (strict:
        ValueError)."""
        with self._tl:
            if self._open == 0:
                self.metric._failed(ValueError(f"{self!r}: no section open"))
                return
            now = time.monotonic_ns()
            self._sum += now - stamp
            self._open -= 1
            if self._open == 0:
                _C.mmv_stats_interval_end(self._a, self._h)
                extra = (self._sum - (now - self._since)) // 1000
                if extra > 0:
                    _inc_value(self._a, self._h, extra)

    def add(self, usec: int) -> None:
        """Add `usec` microseconds (>= 0) measured elsewhere; a negative
        number is a failure (strict: ValueError)."""
        if usec < 0:
            self.metric._failed(ValueError("usec must be >= 0"))
            return
        with self._tl:
            if self._open:
                self._sum += usec * 1000
            else:
                _inc_value(self._a, self._h, usec)


class Timer(_TimedMetric):
    """Total time spent in timed sections, microseconds (ELAPSED).

    `with t.time():`, `@t` on a function, t.start()/t.stop(stamp),
    t.add(usec); with instances t["inst"].time() and so on.
    """
    _value_class = TimerValue
    _forward = ("start", "stop", "add", "time")

    def start(self) -> int:
        """See TimerValue.start."""
        return int(self._single().start())

    def stop(self, stamp: int) -> None:
        """See TimerValue.stop."""
        self._single().stop(stamp)

    def add(self, usec: int) -> None:
        """See TimerValue.add."""
        self._single().add(usec)


class HistogramValue(_Timed, _Value):
    """One histogram (the metric's, or one instance's)."""
    __slots__ = ()

    def _lookup(self, addr: Any) -> Any:
        h = _C.mmv_stats_histogram(addr, self.metric.name.encode(),
                                   _b(self.instance))
        if h == _NULL:
            _check(-1, f"mmv_stats_histogram({self.metric.name!r}, "
                   f"{self.instance!r})")
        return h

    def observe(self, value: int) -> None:
        """Record `value` (an int >= 0 in the histogram's units; a float is
        truncated): three atomic adds (bucket, .count, .sum). A negative or
        non-number value is a failure (strict: ValueError, TypeError). A
        no-op before start() and after stop()."""
        try:
            if value < 0:
                raise ValueError("histogram values must be >= 0")
            _record(self._h, int(value))
        except (TypeError, ValueError, OverflowError) as e:
            self.metric._failed(e)

    def start(self) -> int:
        """A start stamp for stop() (mmv_histogram_now: CLOCK_MONOTONIC ns).
        `with h.time():` and `@h` use start() and stop()."""
        return int(_C.mmv_histogram_now())

    def stop(self, stamp: int) -> None:
        """Record the time since `stamp` in the histogram's time units
        (mmv_histogram_record_since; ns if the units are not a time)."""
        _C.mmv_histogram_record_since(self._h, stamp)


class Histogram(_TimedMetric):
    """A distribution (mmv_histogram.h): h.observe(v), `with h.time():`,
    `@h`; with instances h["inst"].observe(v). Thread-safe.
    """
    _value_class = HistogramValue
    _forward = ("observe", "time")

    def observe(self, value: int) -> None:
        """See HistogramValue.observe."""
        self._single().observe(value)
