# SPDX-License-Identifier: LGPL-2.1-or-later
"""Transactions, points, observations and counters for the trace agent
(libpcp_trace.so.2: pmtracetransact(3), pmtracepoint(3) and friends).

Each call sends one event to the trace agent (pmdatrace), which exports
trace.transact.*, trace.point.*, trace.observe.* and trace.counter.*.
Tags are at most 124 bytes of UTF-8. Every call is thread-safe.
A transaction is timed here and reported when it ends, with its time
(pmtracetransact), so any number of transactions of one tag may run at
once: threads, asyncio tasks, forked workers.

A call that fails (no agent, a bad tag) never raises by default: the
failure is counted (pcpsdk.failures()["trace"]) and logged once; with
strict=True, or pcpsdk.set_strict(True), it raises TraceError.
"""
from __future__ import annotations

import contextvars
import functools
import inspect
import time
from typing import Any, Awaitable, Callable, Optional, Tuple, TypeVar, cast

from . import _fail, _lib

__all__ = ["TraceError", "transaction", "Transaction", "point", "observe",
           "counter", "set_async", "errstr", "transact",
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
    text = _lib.ffi.string(_T.pmtraceerrstr(code))
    return bytes(text).decode(errors="replace")


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
        self.log_key = f"TraceError: {call}: {code}"	# one log line, any tag
        super().__init__(f"{call}({tag!r}): {errstr(code)}")


def _tag(tag: str) -> bytes:
    if not isinstance(tag, str):
        raise TypeError(f"tag {tag!r} is not a str")
    return tag.encode()


def _send(call: str, tag: Any, strict: Optional[bool],
          fn: Callable[..., int], *args: Any) -> None:
    """fn(tag bytes, *args); a failure goes to _fail (raises if strict)."""
    try:
        rc = fn(_tag(tag), *args)
    except TypeError as e:		# a tag that is not a str
        _fail.fail("trace", e, strict)
        return
    if rc < 0:
        _fail.fail("trace", TraceError(rc, call, tag), strict)


def point(tag: str, *, strict: Optional[bool] = None) -> None:
    """One event at point `tag` (pmtracepoint). A failure (ERR_TAGNAME,
    ERR_TAGLENGTH, a connection error such as -ECONNREFUSED) is counted,
    or raised as TraceError if strict."""
    _send("pmtracepoint", tag, strict, _T.pmtracepoint)


def observe(tag: str, value: float, *, strict: Optional[bool] = None) -> None:
    """Observation `value` (any unit) for `tag` (pmtraceobs). Failures as
    point()."""
    _send("pmtraceobs", tag, strict, _T.pmtraceobs, value)


def counter(tag: str, value: float, *, strict: Optional[bool] = None) -> None:
    """Counter value `value` for `tag` (pmtracecounter). Failures as point()."""
    _send("pmtracecounter", tag, strict, _T.pmtracecounter, value)


def transact(tag: str, seconds: float, *, strict: Optional[bool] = None) -> None:
    """A finished transaction of `tag` that took `seconds` (pmtracetransact:
    the agent counts it as any transaction). Failures as point(); a
    negative or non-finite time fails with -EINVAL."""
    _send("pmtracetransact", tag, strict, _T.pmtracetransact, seconds)


def set_async(*, strict: Optional[bool] = None) -> None:
    """Use the asynchronous protocol (pmtracestate(PMTRACE_STATE_ASYNC)):
    calls do not wait for the agent's acknowledgement. Only before the
    first connection; after it, a failure (-EINVAL) as point()."""
    old = _T.pmtracestate(STATE_ASYNC)
    if old < 0:
        _fail.fail("trace", TraceError(old, "pmtracestate", ""), strict)
        return
    if old & ~STATE_ASYNC:	# keep debug bits the caller had set
        _T.pmtracestate(old | STATE_ASYNC)


class Transaction:
    """Transaction `tag` as a `with` (or `async with`) block or a decorator
    of a function or coroutine function.

    Each entry is timed on its own (time.perf_counter), so threads, tasks
    and processes may run any number of transactions of one tag at once.
    Leaving normally reports the transaction with its time
    (pmtracetransact); leaving by an exception reports nothing (as
    pmtraceabort) and lets the exception through. A failed report (no
    agent, a bad tag) is counted, or raised as TraceError if strict: the
    body always runs, and its result and exceptions are the caller's.
    """

    def __init__(self, tag: str, *, strict: Optional[bool] = None) -> None:
        self.tag = tag
        self.strict = strict
        # entries of this object not left yet, per thread or task
        self._open: contextvars.ContextVar[Tuple[float, ...]] = \
            contextvars.ContextVar(f"pcpsdk.transaction.{id(self)}", default=())

    def _end(self, t0: float) -> None:
        transact(self.tag, time.perf_counter() - t0, strict=self.strict)

    def __enter__(self) -> "Transaction":
        self._open.set(self._open.get() + (time.perf_counter(),))
        return self

    def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
        stack = self._open.get()
        if not stack:
            _fail.fail("trace", RuntimeError(
                f"transaction {self.tag!r}: left without being entered"),
                self.strict)
            return
        self._open.set(stack[:-1])
        if et is None:
            self._end(stack[-1])

    async def __aenter__(self) -> "Transaction":
        return self.__enter__()

    async def __aexit__(self, et: Any, ev: Any, tb: Any) -> None:
        self.__exit__(et, ev, tb)

    def __call__(self, fn: F) -> F:
        """Decorator: each call of fn (awaited, for a coroutine function)
        is one transaction."""
        if inspect.iscoroutinefunction(fn):
            afn = cast(Callable[..., Awaitable[Any]], fn)

            @functools.wraps(fn)
            async def atimed(*a: Any, **kw: Any) -> Any:
                t0 = time.perf_counter()
                result = await afn(*a, **kw)
                self._end(t0)
                return result
            return cast(F, atimed)

        @functools.wraps(fn)
        def timed(*a: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            result = fn(*a, **kw)
            self._end(t0)
            return result
        return cast(F, timed)


def transaction(tag: str, *, strict: Optional[bool] = None) -> Transaction:
    """`with transaction("tag"):` or `@transaction("tag")`: see Transaction."""
    return Transaction(tag, strict=strict)
