# SPDX-License-Identifier: GPL-2.0-or-later
"""Debian's pmdammv and ours serve a file written through the binding
(pminfo in a local context with each agent's DSO, and ours through a
private pmcd), and after fork() each process has a file of its own."""
import os
import subprocess
import sys
import textwrap

import pytest

import pywriter
from conftest import OURS_SO, THEIRS_SO, TOP, pminfo_local


def blocks(text):
    """pminfo -f output as {metric: its lines} (agents list in any order)."""
    out, name = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            name = line
            out[name] = []
        elif line and name:
            out[name].append(line.strip())
    return out


WANT = {
    "mmv.bytes.requests": ['inst [0 or "GET"] value 1',
                           'inst [1 or "POST"] value 3'],
    "mmv.bytes.bytes": ['inst [0 or "GET"] value 1500',
                        'inst [1 or "POST"] value 0'],
    "mmv.bytes.temperature": ["value 36.6"],
    "mmv.bytes.users": ['inst [0 or "eu"] value -5',
                        'inst [1 or "us"] value 7'],
    "mmv.bytes.version": ['value "1.2.3"'],
    "mmv.bytes.busy": ["value 1234"],
    "mmv.bytes.latency.count": ["value 6"],
    "mmv.bytes.latency.sum": ["value 1551"],
    "mmv.bytes.build.count": ['inst [0 or "GET"] value 1',
                              'inst [1 or "POST"] value 1'],
    "mmv.bytes.build.sum": ['inst [0 or "GET"] value 8',
                            'inst [1 or "POST"] value 0'],
}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    d = tmp_path_factory.mktemp("agents")
    (d / "tmp" / "mmv").mkdir(parents=True)
    old = os.environ.get("PCP_TMP_DIR")
    os.environ["PCP_TMP_DIR"] = str(d / "tmp")
    try:
        pywriter.write().stop()
    finally:
        if old is None:
            del os.environ["PCP_TMP_DIR"]
        else:
            os.environ["PCP_TMP_DIR"] = old
    return d


def test_theirs_is_debians():
    """What runs as Debian's agent is Debian's (tests/lib/debian.sh)."""
    r = subprocess.run(["sh", "-c", '. tests/lib/debian.sh && is_debian "$1"',
                        "sh", THEIRS_SO], cwd=TOP)
    assert r.returncode == 0, f"{THEIRS_SO} is not Debian's"


@pytest.mark.parametrize("so", [THEIRS_SO, OURS_SO], ids=["debian", "ours"])
def test_agent_serves_the_values(written, so):
    out, err = pminfo_local(so, written / "tmp", "-f", "mmv.bytes")
    got = blocks(out)
    for metric, lines in WANT.items():
        assert got.get(metric) == lines, (metric, out, err)
    assert len(got["mmv.bytes.latency.bucket"]) == 18


def test_both_agents_agree(written):
    ours = blocks(pminfo_local(OURS_SO, written / "tmp", "-f", "mmv.bytes")[0])
    theirs = blocks(pminfo_local(THEIRS_SO, written / "tmp", "-f",
                                 "mmv.bytes")[0])
    assert ours == theirs and len(ours) == 12


@pytest.mark.parametrize("so", [THEIRS_SO, OURS_SO], ids=["debian", "ours"])
def test_agent_serves_the_labels(written, so):
    out, _ = pminfo_local(so, written / "tmp", "-l", "mmv.bytes.requests")
    assert '"kind":"total"' in out and '"service":"web"' in out
    assert '"proto":"http"' in out and '"safe":true' in out


def pmcd_run(script):
    """Run shell `script` with a private pmcd (tests/python/pmcd_run.sh)."""
    return subprocess.run(["sh", os.path.join(TOP, "tests", "python",
                                              "pmcd_run.sh"), "sh", "-c",
                           script, "sh", sys.executable], cwd=TOP,
                          capture_output=True, text=True, timeout=180)


def test_ours_through_a_private_pmcd():
    r = pmcd_run('"$1" tests/python/pywriter.py && '
                 'pminfo -h "$PMCD_HOST" -f mmv.bytes')
    got = blocks(r.stdout)
    for metric, lines in WANT.items():
        assert got.get(metric) == lines, (metric, r.stdout, r.stderr)


TRACER = """
import pcpsdk
for i in range(3):
    with pcpsdk.transaction("tx"):
        pass
try:
    with pcpsdk.transaction("tx"):
        raise KeyError("aborted: not sent")
except KeyError:
    pass
@pcpsdk.transaction("deco")
def f():
    pass
f()
pcpsdk.point("pt")
pcpsdk.point("pt")
pcpsdk.observe("ob", 2.5)
pcpsdk.counter("ct", 7)
"""


def test_trace_events_reach_our_trace_agent():
    r = pmcd_run('"$1" -c \'' + TRACER + '\' && pminfo -h "$PMCD_HOST" -f '
                 'trace.transact.count trace.point.count trace.observe.value '
                 'trace.counter.value')
    got = blocks(r.stdout)
    assert got.get("trace.transact.count") == [
        'inst [1 or "tx"] value 3', 'inst [2 or "deco"] value 1'], \
        r.stdout + r.stderr
    assert got.get("trace.point.count") == ['inst [1 or "pt"] value 2']
    assert got.get("trace.observe.value") == ['inst [1 or "ob"] value 2.5']
    assert got.get("trace.counter.value") == ['inst [1 or "ct"] value 7']


def test_concurrent_transactions_are_each_counted():
    """One decorated handler called by 4 threads x 100, 50 asyncio tasks at
    once and 2 forked workers x 25: none raises, every body runs, and our
    trace agent counts every transaction (PCP's begin/end allow one open
    transaction of a tag per process)."""
    from test_failures import HANDLER
    r = pmcd_run('"$1" -c \'' + HANDLER + '\' fork && pminfo -h "$PMCD_HOST" '
                 '-f trace.transact.count')
    assert r.returncode == 0, r.stdout + r.stderr
    ran, distinct, failed, _ = r.stdout.split("\n")[0].split()
    assert (ran, distinct, failed) == ("400", "400", "0"), r.stdout + r.stderr
    # (instance numbers follow the order the agent collected the segments)
    got = sorted(line.split(" or ")[1] for line in
                 blocks(r.stdout).get("trace.transact.count", []))
    assert got == ['"checkout"] value 400', '"task"] value 50',
                   '"worker"] value 50'], r.stdout + r.stderr


FORKER = textwrap.dedent("""
    import os, sys, pcpsdk
    def say(*words):   # one write(2) a line: the two processes share the pipe
        os.write(1, (" ".join(map(str, words)) + "\\n").encode())
    reg = pcpsdk.Registry(sys.argv[1])
    c = reg.counter("n")
    reg.start()
    c.inc(5)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        c.inc(2)
        say("child", os.getpid(), reg.name)
        os.read(r, 1)      # the parent reads the files meanwhile
        reg.stop()
        os._exit(0)
    c.inc()
    say("parent", os.getpid(), reg.name)
    sys.stdin.readline()
    os.write(w, b"x")
    os.waitpid(pid, 0)
    say("parent still", os.path.exists(os.path.join(
        os.environ["PCP_TMP_DIR"], "mmv", reg.name)))
""")


@pytest.mark.parametrize("template,child_name", [
    ("web", "web_{pid}"), ("w{pid}", "w{pid}")])
def test_fork_gives_each_process_its_file(tmpdir_mmv, template, child_name):
    p = subprocess.Popen([sys.executable, "-c", FORKER, template],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    lines = dict()
    for _ in range(2):
        who, pid, name = p.stdout.readline().split()
        lines[who] = (int(pid), name)
    cpid, cname = lines["child"]
    ppid, pname = lines["parent"]
    assert cname == child_name.format(pid=cpid)
    assert pname == template.format(pid=ppid)
    files = sorted(os.listdir(tmpdir_mmv / "mmv"))
    assert files == sorted([pname, cname])
    out, err = pminfo_local(OURS_SO, tmpdir_mmv, "-f", "mmv")
    got = blocks(out)
    assert got[f"mmv.{pname}.n"] == ["value 6"], out + err
    assert got[f"mmv.{cname}.n"] == ["value 2"], out + err
    p.stdin.write("\n")
    p.stdin.flush()
    assert p.stdout.readline().split() == ["parent", "still", "True"]
    assert p.wait(timeout=30) == 0
    # the child's stop removed its (PROCESS) file, not the parent's
    assert os.listdir(tmpdir_mmv / "mmv") == []


def test_fork_failure_is_contained(tmpdir_mmv):
    """A child that cannot make its file updates nothing, in particular not
    the parent's file (which the child's mapping still shows)."""
    code = textwrap.dedent("""
        import os, shutil, sys, pcpsdk
        sys.path.insert(0, sys.argv[1])
        from conftest import raw
        reg = pcpsdk.Registry("web")
        c = reg.counter("n")
        reg.start()
        c.inc(5)
        shutil.rmtree(os.path.join(os.environ["PCP_TMP_DIR"], "mmv"))
        pid = os.fork()
        if pid == 0:
            c.inc(100)
            os._exit(0 if c._one._h == pcpsdk.mmv._NULL else 3)
        _, st = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(st), raw(c._one))
    """)
    r = subprocess.run([sys.executable, "-c", code,
                        os.path.dirname(__file__)], capture_output=True,
                       text=True, timeout=60)
    assert r.stdout.split() == ["0", "5"], r.stdout + r.stderr
    assert "after fork, web" in r.stderr and "No such file" in r.stderr
