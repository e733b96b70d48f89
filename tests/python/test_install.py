# SPDX-License-Identifier: GPL-2.0-or-later
"""The package installs offline with pip from the repository (no build
isolation, no index) and works from where it was installed.
tests/integration/install.sh checks make install."""
import os
import shutil
import subprocess
import sys

from conftest import BUILD, TOP, debian_libdir


def test_pip_install_offline(tmp_path):
    src = tmp_path / "src"		# pip builds in the tree: build a copy
    shutil.copytree(os.path.join(TOP, "bindings", "python"), src,
                    ignore=shutil.ignore_patterns("__pycache__", "build.mk"))
    site = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                        "--no-build-isolation", "--no-index", "--no-deps",
                        "--target", str(site), str(src)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (site / "pcpsdk" / "py.typed").exists()
    (tmp_path / "mmv").mkdir()
    code = ("import pcpsdk\n"
            "r = pcpsdk.Registry('piped')\n"
            "r.counter('n').inc()\n"
            "r.start().stop()\n"
            "print(pcpsdk.__file__)\n")
    env = dict(os.environ, PYTHONPATH=str(site), PCP_TMP_DIR=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(site / "pcpsdk" / "__init__.py")


def test_refuses_pcps_library(tmp_path):
    """Loaded over Debian's libpcp_mmv (no histograms, lost increments) the
    package refuses to import, saying why."""
    env = dict(os.environ, PCPSDK_LIBDIR=debian_libdir("libpcp-mmv1",
                                                        "libpcp_mmv.so.1"))
    r = subprocess.run([sys.executable, "-c", "import pcpsdk"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "is not the SDK's" in r.stderr


def test_refuses_pcps_trace_library(tmp_path):
    """Our libpcp_mmv beside Debian's libpcp_trace (no pmtracetransact):
    refused too, naming the trace library."""
    os.symlink(os.path.join(BUILD, "lib", "libpcp_mmv.so.1"),
               tmp_path / "libpcp_mmv.so.1")
    os.symlink(os.path.join(debian_libdir("libpcp-trace2", "libpcp_trace.so.2"),
                            "libpcp_trace.so.2"), tmp_path / "libpcp_trace.so.2")
    env = dict(os.environ, PCPSDK_LIBDIR=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", "import pcpsdk"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "libpcp_trace.so.2" in r.stderr and "pmtracetransact" in r.stderr
