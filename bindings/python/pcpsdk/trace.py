# SPDX-License-Identifier: LGPL-2.1-or-later
"""Transactions, points, observations and counters for the trace agent
(libpcp_trace.so.2: pmtracebegin(3) and friends).

Each call sends one event to the trace agent (pmdatrace), which exports
trace.transact.*, trace.point.*, trace.observe.* and trace.counter.*.
Tags are at most 124 bytes of UTF-8. Every call is thread-safe; a
transaction tag is one per process at a time (libpcp_trace keeps one start
time per tag), so concurrent transactions need distinct tags.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Optional, TypeVar

from . import _lib

__all__ = ["TraceError", "transaction", "Transaction", "point", "observe",
           "counter", "set_async", "errstr",
           "ERR_TAGNAME", "ERR_INPROGRESS", "ERR_NOPROGRESS", "ERR_NOSUCHTAG",
           "ERR_TAGLENGTH", "ERR_IPC", "ERR_TIMEOUT"]

_T = _lib.trace
F = TypeVar("F", bound=Callable[..., Any])

# <pcp/trace.h>
ERR_BASE = 12000
ERR_TAGNAME = -ERR_BASE - 0
ERR_INPROGRESS = -ERR_BASE - 1
ERR_NOPROGRESS = -ERR_BASE - 2
ERR_NOSUCHTAG = -ERR_BASE - 3
ERR_TAGLENGTH = -ERR_BASE - 5
ERR_IPC = -ERR_BASE - 6
ERR_TIMEOUT = -ERR_BASE - 8
STATE_ASYNC = 32


def errstr(code: int) -> str:
    """pmtraceerrstr(code): the text of a return code."""
    return _lib.ffi.string(_T.pmtraceerrstr(code)).decode(errors="replace")


class TraceError(Exception):
    """A libpcp_trace call failed.

    code   the call's negative return code (PMTRACE_ERR_* or -errno);
    errno  the errno for -1..-11999 (e.g. ECONNREFUSED), else None;
    str()  "call(tag): " + pmtraceerrstr(code).
    """

    def __init__(self, code: int, call: str, tag: str) -> None:
        self.code = code
        self.errno: Optional[int] = -code if -ERR_BASE < code < 0 else None
        self.call = call
        self.tag = tag
        super().__init__(f"{call}({tag!r}): {errstr(code)}")


def _tag(tag: str) -> bytes:
    if not isinstance(tag, str):
        raise TypeError(f"tag {tag!r} is not a str")
    return tag.encode()


def _done(rc: int, call: str, tag: str) -> int:
    if rc < 0:
        raise TraceError(rc, call, tag)
    return rc


def point(tag: str) -> None:
    """One event at point `tag` (pmtracepoint). Raises TraceError
    (ERR_TAGNAME, ERR_TAGLENGTH, connection errors such as -ECONNREFUSED)."""
    _done(_T.pmtracepoint(_tag(tag)), "pmtracepoint", tag)


def observe(tag: str, value: float) -> None:
    """Observation `value` (any unit) for `tag` (pmtraceobs). Raises as
    point()."""
    _done(_T.pmtraceobs(_tag(tag), value), "pmtraceobs", tag)


def counter(tag: str, value: float) -> None:
    """Counter value `value` for `tag` (pmtracecounter). Raises as point()."""
    _done(_T.pmtracecounter(_tag(tag), value), "pmtracecounter", tag)


def set_async() -> None:
    """Use the asynchronous protocol (pmtracestate(PMTRACE_STATE_ASYNC)):
    calls do not wait for the agent's acknowledgement. Only before the
    first connection; raises TraceError(-EINVAL) after it."""
    old = _T.pmtracestate(STATE_ASYNC)
    if old < 0:
        raise TraceError(old, "pmtracestate", "")
    if old & ~STATE_ASYNC:	# keep debug bits the caller had set
        _T.pmtracestate(old | STATE_ASYNC)


class Transaction(contextlib.ContextDecorator):
    """Transaction `tag` as a `with` block or a decorator.

    Entering calls pmtracebegin; leaving normally calls pmtraceend (the
    agent gets the elapsed seconds); leaving by an exception calls
    pmtraceabort (nothing is sent) and lets the exception through.
    Raises TraceError: ERR_INPROGRESS (the tag is open already, in any
    thread), ERR_TAGNAME, ERR_TAGLENGTH, a connection error at begin, or a
    send error at end.
    """

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self._b = _tag(tag)

    def __enter__(self) -> "Transaction":
        _done(_T.pmtracebegin(self._b), "pmtracebegin", self.tag)
        return self

    def __exit__(self, et: Any, ev: Any, tb: Any) -> bool:
        if et is None:
            _done(_T.pmtraceend(self._b), "pmtraceend", self.tag)
        else:
            _T.pmtraceabort(self._b)
        return False


def transaction(tag: str) -> Transaction:
    """`with transaction("tag"):` or `@transaction("tag")`: see Transaction."""
    return Transaction(tag)


