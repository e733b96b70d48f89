# SPDX-License-Identifier: GPL-2.0-or-later
"""Transactions and the other trace calls: errors and abort on exception.

Without an agent (PCP_TRACE_PORT at a closed port) a call that needs one
fails with ECONNREFUSED; tag checks come first. tests/python/test_agents.py
sends to a real trace agent.
"""
import errno
import socket
import time

import pytest

import pcpsdk
from pcpsdk import trace


def test_errors_carry_pcp_text(strict):
    with pytest.raises(pcpsdk.TraceError) as e:
        pcpsdk.point("x" * 200)
    assert e.value.code == trace.ERR_TAGLENGTH
    assert e.value.errno is None
    assert str(e.value).endswith(trace.errstr(trace.ERR_TAGLENGTH))
    with pytest.raises(pcpsdk.TraceError) as e:
        pcpsdk.observe("", 1.0)
    assert e.value.code == trace.ERR_TAGNAME
    with pytest.raises(TypeError):
        pcpsdk.point(3)
    with pytest.raises(pcpsdk.TraceError) as e:
        pcpsdk.transact("t", -1.0)
    assert e.value.errno == errno.EINVAL


def test_transactions_are_timed_per_entry():
    # PMTRACE_STATE_NOAGENT (16): the calls succeed without an agent.
    old = trace._T.pmtracestate(16)
    sent = []
    real = trace.transact
    try:
        trace.transact = lambda tag, s, strict=None: sent.append((tag, s))
        tx = pcpsdk.transaction("job")
        with pytest.raises(KeyError):
            with tx:
                raise KeyError("boom")
        assert sent == []		# aborted: nothing reported
        with tx:			# the same tag, open twice at once
            with pcpsdk.transaction("job"):
                time.sleep(0.01)
            time.sleep(0.01)
        assert [t for t, _ in sent] == ["job", "job"]
        assert 0.01 <= sent[0][1] < sent[1][1] < 5

        @pcpsdk.transaction("deco")
        def f(x):
            return x * 2
        assert f(4) == 8 and sent[-1][0] == "deco"
    finally:
        trace.transact = real
        trace._T.pmtracestate(old)


def test_connection_refused_has_errno(monkeypatch):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()		# nothing listens there now
    monkeypatch.setenv("PCP_TRACE_HOST", "127.0.0.1")
    monkeypatch.setenv("PCP_TRACE_PORT", str(port))
    import subprocess
    import sys
    code = ("import pcpsdk\n"
            "try:\n pcpsdk.point('p', strict=True)\n"
            "except pcpsdk.TraceError as e:\n print(e.errno, e.code, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=60).stdout.split(None, 2)
    assert int(out[0]) == errno.ECONNREFUSED, out
    assert "refused" in out[2].lower()
