# SPDX-License-Identifier: GPL-2.0-or-later
"""The README's Python example runs as printed and does what it says."""
import os
import re

from conftest import TOP, raw
from pcpsdk import trace


def test_readme_example(tmpdir_mmv):
    text = open(os.path.join(TOP, "README.md")).read()
    m = re.search(r"\n    import pcpsdk\n(?:\n|    .*\n)+", text)
    assert m, "README has the example"
    code = "\n".join(line[4:] for line in m.group(0).splitlines())
    old = trace._T.pmtracestate(16)	# PMTRACE_STATE_NOAGENT
    try:
        ns = {}
        exec(compile(code, "README.md", "exec"), ns)
        assert (tmpdir_mmv / "mmv" / "web").exists()
        ns["checkout"]()
        assert raw(ns["requests"]["POST"]) == 1
    finally:
        trace._T.pmtracestate(old)
        ns["reg"].stop()
