# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a failed pcpsdk call does: count, log once, go on (or raise if strict).

Instrumentation must never break the code it instruments: by default a
call that cannot do its work (no trace agent, a bad metric name, a file
that cannot be created, a negative increment) returns as if it had
worked. Each failure is counted per kind ("mmv", "trace"): failures()
returns the counts, and every started Registry exports them as its
metric pcpsdk.failures. The first failure of each call and error is
logged (logger "pcpsdk", WARNING), later ones are only counted. Strict
mode (set_strict(True), the environment variable PCPSDK_STRICT=1, or
strict=True on a Registry, a transaction or a trace call) raises instead.
"""
from __future__ import annotations

import logging
import os
import threading
from typing import Callable, Dict, List, Optional, Set, Tuple

KINDS = ("mmv", "trace")
log = logging.getLogger("pcpsdk")

_lock = threading.Lock()
_counts: Dict[str, int] = {k: 0 for k in KINDS}
_logged: Set[Tuple[str, str]] = set()
_strict = os.environ.get("PCPSDK_STRICT", "") not in ("", "0")
# Called with (kind) after each count: the registries' pcpsdk.failures.
_listeners: List[Callable[[str], None]] = []


def set_strict(on: bool = True) -> None:
    """Make failed calls raise (True) or be counted and logged (False, the
    default) in this process; a strict= argument overrides it per object."""
    global _strict
    _strict = bool(on)


def strict() -> bool:
    """Whether failed calls raise by default (set_strict, PCPSDK_STRICT)."""
    return _strict


def failures() -> Dict[str, int]:
    """How many calls failed in this process so far, per kind: {"mmv": n,
    "trace": n}. A child of fork() starts again from 0."""
    with _lock:
        return dict(_counts)


def fail(kind: str, err: BaseException, strict: Optional[bool] = None) -> None:
    """A call of `kind` failed with `err`: raise it in strict mode, else
    count it, log it if it is new, and return. New: its err.log_key (a
    TraceError's call and code, whatever the tag), else its type and text,
    was not logged before."""
    if _strict if strict is None else strict:
        raise err
    key = (kind, getattr(err, "log_key", None) or f"{type(err).__name__}: {err}")
    with _lock:
        _counts[kind] += 1
        first = key not in _logged
        if first:
            _logged.add(key)
    for fn in list(_listeners):
        try:
            fn(kind)
        except Exception:	# a listener must not turn a count into a raise
            pass
    if first:
        log.warning("pcpsdk: %s: %s (counted in pcpsdk.failures()[%r]; the "
                    "same failure again is counted, not logged; strict=True "
                    "raises)", type(err).__name__, err, kind)


def listen(fn: Callable[[str], None]) -> None:
    """Call fn(kind) after every counted failure (a Registry's metric);
    once, however often it is given."""
    if fn not in _listeners:
        _listeners.append(fn)


def unlisten(fn: Callable[[str], None]) -> None:
    """Stop calling fn."""
    try:
        _listeners.remove(fn)
    except ValueError:
        pass


def _fork_child() -> None:
    global _lock
    _lock = threading.Lock()
    for k in KINDS:
        _counts[k] = 0


os.register_at_fork(after_in_child=_fork_child)

