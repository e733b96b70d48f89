# SPDX-License-Identifier: GPL-2.0-or-later
"""Fixtures of the pcpsdk tests (run by tests/python/pytest.sh, which sets
LD_LIBRARY_PATH to build/lib and PYTHONPATH to bindings/python)."""
import os
import subprocess

import pytest

TOP = os.environ.get("PCPSDK_TOP") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(TOP, "build")
PMNS = os.path.join(BUILD, "pmdas", "mmv", "root_mmv")
OURS_SO = os.path.join(BUILD, "lib", "pmda_mmv.so")
PCP_PMDAS_DIR = "/var/lib/pcp/pmdas"
THEIRS_SO = os.path.join(PCP_PMDAS_DIR, "mmv", "pmda_mmv.so")


def debian_libdir(package, soname):
    """The folder of Debian's `soname`, from its package's file list:
    /usr/lib before PCP 7, the multiarch folder from PCP 7 on."""
    out = subprocess.run(["dpkg", "-L", package], capture_output=True,
                         text=True, check=True).stdout
    return next(os.path.dirname(p) for p in out.split()
                if os.path.basename(p) == soname)


@pytest.fixture
def tmpdir_mmv(tmp_path, monkeypatch):
    """A private $PCP_TMP_DIR (with mmv/) for the test; returns its path."""
    (tmp_path / "mmv").mkdir()
    monkeypatch.setenv("PCP_TMP_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def strict():
    """Failed pcpsdk calls raise during the test (pcpsdk.set_strict)."""
    import pcpsdk
    pcpsdk.set_strict(True)
    yield
    pcpsdk.set_strict(False)


def raw(value, ctype="uint64_t", index=0):
    """8 bytes of a value record (index 0: the value, 1: ELAPSED's start of
    an open interval), read through our own mapping."""
    from pcpsdk import _lib
    return _lib.ffi.cast(ctype + " *", value._h)[index]


def pminfo_local(so, tmpdir, *args):
    """pminfo in a local context with the MMV agent DSO `so` on tmpdir."""
    env = dict(os.environ, PCP_TMP_DIR=str(tmpdir))
    env.pop("LD_LIBRARY_PATH", None)	# the agent's own libraries
    r = subprocess.run(["pminfo", "-L", "-K", "clear", "-K",
                        f"add,70,{so},mmv_init", "-n", PMNS, *args],
                       env=env, capture_output=True, text=True, timeout=60)
    return r.stdout, r.stderr
