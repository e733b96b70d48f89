# SPDX-License-Identifier: GPL-2.0-or-later
"""A file written through the binding is byte-identical to the C API's for
the same calls: tests/python/writer.c (C) against pywriter.py (Python),
compared but for the bytes build/tests/compat/mmvmask names (the header's
generations and pid: they vary from run to run, docs/mmv-format.md §2)."""
import os
import subprocess

import pywriter
from conftest import BUILD


def masked(path):
    out = subprocess.run([os.path.join(BUILD, "tests", "compat", "mmvmask"),
                          path], capture_output=True, text=True, check=True)
    ranges = [tuple(int(x) for x in line.split())
              for line in out.stdout.splitlines()]
    assert ranges, "mmvmask names at least the header's generations"
    return ranges


def test_python_writes_the_c_bytes(tmp_path, monkeypatch):
    for d in ("c", "py"):
        (tmp_path / d / "mmv").mkdir(parents=True)
    subprocess.run([os.path.join(BUILD, "tests", "python", "writer")],
                   env=dict(os.environ, PCP_TMP_DIR=str(tmp_path / "c")),
                   check=True)
    monkeypatch.setenv("PCP_TMP_DIR", str(tmp_path / "py"))
    pywriter.write().stop()
    c = (tmp_path / "c" / "mmv" / "bytes").read_bytes()
    py = (tmp_path / "py" / "mmv" / "bytes").read_bytes()
    assert len(c) == len(py)
    skip = set()
    for first, last in masked(str(tmp_path / "c" / "mmv" / "bytes")):
        skip.update(range(first - 1, last))
    diff = [i for i in range(len(c)) if c[i] != py[i] and i not in skip]
    assert diff == [], f"{len(diff)} bytes differ, first at offset {diff[0]}"
    # what differs at all is in the header (generations, pid)
    assert all(i < 40 for i in range(len(c)) if c[i] != py[i])


def test_the_comparison_can_fail(tmp_path, monkeypatch):
    """One call more on the Python side changes the bytes."""
    (tmp_path / "mmv").mkdir()
    monkeypatch.setenv("PCP_TMP_DIR", str(tmp_path))
    reg = pywriter.write()
    a = (tmp_path / "mmv" / "bytes").read_bytes()
    reg._names["requests"]["POST"].inc()
    b = (tmp_path / "mmv" / "bytes").read_bytes()
    reg.stop()
    assert a != b
